//! `iosched`: the command line. It stays small because the libraries do the work: it parses arguments, calls
//! them, and turns every error into one line and an exit status (2 for bad input, 1 for a failed run).

mod cli;
mod commands;
mod error;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        Err(e) => return error::clap_exit(e),
    };
    match commands::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("iosched: error: {e}");
            ExitCode::from(e.status())
        }
    }
}
