//! One module per subcommand.

mod demo;
mod policies;
mod sim;
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
        Command::Demo { json, seed } => demo::run(json, seed),
    }
}

/// A policy by name with `key=value` tunables applied.
pub fn policy_with(name: &str, settings: &[String]) -> Result<Box<dyn Policy>, CliError> {
    let mut policy = registry::create(name).map_err(bad)?;
    for setting in settings {
        let (key, value) =
            setting.split_once('=').ok_or_else(|| bad(format!("--set expects KEY=VALUE, found '{setting}'")))?;
        policy.set_tunable(key.trim(), value.trim()).map_err(bad)?;
    }
    Ok(policy)
}
