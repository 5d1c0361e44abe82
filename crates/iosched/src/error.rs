//! Errors of the command line: iosched's own are one line each, clap's usage errors as clap renders them (with
//! the usage line and suggestions); each with the exit status it means.

use std::fmt;
use std::process::ExitCode;

/// A failure of a command.
#[derive(Debug)]
pub enum CliError {
    /// The input was wrong (arguments, job file, spec, tunable): exit status 2.
    BadInput(String),
    /// The input was fine but the run failed: exit status 1.
    Failed(String),
    /// Stopped by a signal (Ctrl-C) after finishing cleanly: exit status 130, as a shell reports SIGINT.
    Interrupted(String),
}

impl CliError {
    pub fn status(&self) -> u8 {
        match self {
            CliError::BadInput(_) => 2,
            CliError::Failed(_) => 1,
            CliError::Interrupted(_) => 130,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::BadInput(m) | CliError::Failed(m) | CliError::Interrupted(m) => f.write_str(m),
        }
    }
}

/// Bad input, from anything printable.
pub fn bad(e: impl fmt::Display) -> CliError {
    CliError::BadInput(e.to_string())
}

/// Print a clap error as clap renders it: help and version whole; a usage error with what was wrong (the
/// missing argument named, the nearest valid name), the subcommand's usage line and where its help is. A usage
/// error exits 2, as every bad input does.
pub fn clap_exit(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    let _ = e.print();
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => ExitCode::SUCCESS,
        _ => ExitCode::from(2),
    }
}

/// A clap usage error as bad input with one line: clap's first (the rest is the usage line and the help hint),
/// for callers that show one line (the Python package's exceptions).
pub fn usage_error(e: clap::Error) -> CliError {
    let text = e.to_string();
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("invalid arguments");
    CliError::BadInput(first.trim_start_matches("error: ").to_string())
}
