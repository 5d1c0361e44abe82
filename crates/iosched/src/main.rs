//! `iosched`: the command line. It stays small because the libraries do the work: it parses arguments, calls
//! them, and turns every error into one line and an exit status (2 for bad input, 1 for a failed run).

use clap::Parser;
use iosched::{cli, commands, error};
use std::process::ExitCode;

fn main() -> ExitCode {
    restore_default_sigpipe();
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        Err(e) => return error::clap_exit(e),
    };
    match commands::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e @ error::CliError::Interrupted(_)) => {
            eprintln!("iosched: {e}");
            ExitCode::from(e.status())
        }
        Err(e) => {
            eprintln!("iosched: error: {e}");
            ExitCode::from(e.status())
        }
    }
}

/// Rust ignores SIGPIPE, so printing into a closed pipe (`iosched policies | head`) would panic; a command-line
/// tool should stop quietly instead, as the default disposition does.
fn restore_default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to the default before any thread starts has no other effect.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
