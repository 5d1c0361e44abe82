//! One module per subcommand.

mod experiment;
mod policies;
mod sim;
mod sweep;
mod validate;

use crate::cli::{Cli, Command};
use crate::error::{bad, CliError};
use iosched_core::policy::Policy;
use iosched_core::registry;

pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Policies { json } => policies::run(json),
        Command::Sim(args) => sim::run(&args),
        Command::Validate(args) => validate::run(&args),
        Command::Experiment(args) => experiment::run(&args),
        Command::Sweep(args) => sweep::run(&args),
        Command::Demo { json, html } => {
            experiment::run_loaded(&experiment::load("geom-sched")?, None, None, json, html.as_deref())
        }
    }
}

/// A policy by name with `key=value` tunables applied.
pub fn policy_with(name: &str, settings: &[String]) -> Result<Box<dyn Policy>, CliError> {
    let pairs = settings
        .iter()
        .map(|s| {
            let (key, value) = s.split_once('=').ok_or_else(|| bad(format!("--set expects KEY=VALUE, found '{s}'")))?;
            Ok((key.trim(), value.trim()))
        })
        .collect::<Result<Vec<_>, CliError>>()?;
    registry::create_with(name, pairs).map_err(bad)
}
