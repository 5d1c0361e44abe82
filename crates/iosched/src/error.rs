//! Errors of the command line: one line each, with the exit status they mean.

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

/// Print a clap error as one line (help and version print whole) and give its exit status.
pub fn clap_exit(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            }
        }
        _ => {
            let rendered = e.render().to_string();
            let first = rendered.lines().next().unwrap_or("invalid arguments");
            let message = first.strip_prefix("error: ").unwrap_or(first);
            eprintln!("iosched: error: {message} (see 'iosched --help')");
            ExitCode::from(2)
        }
    }
}
