//! iosched's command line as a library: the `iosched` binary parses its arguments and calls [`commands::run`];
//! the Python package calls [`run_captured`] to run the same commands in-process and take their output.

#[macro_use]
pub mod output;
pub mod cli;
pub mod commands;
pub mod error;
pub mod sweep_table;

use clap::Parser;
use error::CliError;

/// The subcommands [`run_captured`] runs: those that compute and report. The live ones (run, mount, insert,
/// configure, ...) own terminals, signals and processes, which an embedding program does not hand over.
pub const CAPTURABLE: [&str; 7] = ["sim", "experiment", "validate", "policies", "devices", "sweep", "fio-options"];

/// Run `iosched ARGS...` (without the program name) and return what it printed on standard output. A usage error
/// is bad input with clap's first line as the message (the rest is the usage and help hint).
pub fn run_captured<S: AsRef<str>>(args: &[S]) -> Result<String, CliError> {
    let argv = std::iter::once("iosched").chain(args.iter().map(AsRef::as_ref));
    let cli = cli::Cli::try_parse_from(argv).map_err(error::usage_error)?;
    let name = args.first().map(AsRef::as_ref).unwrap_or_default();
    if !CAPTURABLE.contains(&name) {
        return Err(CliError::BadInput(format!("'{name}' cannot run embedded; these can: {}", CAPTURABLE.join(", "))));
    }
    let (result, text) = output::capture(|| commands::run(cli));
    result.map(|()| text)
}
