//! `iosched configure` and `iosched stats`: requests to a running live engine through its control socket.

use crate::cli::{ConfigureArgs, StatsArgs};
use crate::error::{bad, CliError};
use iosched_live::control_socket::{self, ControlError};
use serde_json::json;

pub fn configure(args: &ConfigureArgs) -> Result<(), CliError> {
    if args.policy.is_none() && args.set.is_empty() {
        return Err(bad("configure needs --policy, --set KEY=VALUE, or both"));
    }
    let set: Vec<_> = super::parse_settings(&args.set)?.into_iter().map(|(k, v)| json!([k, v])).collect();
    let mut request = json!({"command": "configure", "set": set});
    if let Some(p) = &args.policy {
        request["policy"] = json!(p);
    }
    let reply = control_socket::request(&args.target, &request).map_err(cli_error)?;
    let tunables = reply["tunables"].as_object().map_or_else(String::new, |m| {
        m.iter().map(|(k, v)| format!(" {k}={}", v.as_str().unwrap_or_default())).collect()
    });
    println!("{}: policy {}{tunables}", args.target.display(), reply["policy"].as_str().unwrap_or("?"));
    Ok(())
}

pub fn stats(args: &StatsArgs) -> Result<(), CliError> {
    let reply = control_socket::request(&args.target, &json!({"command": "stats"})).map_err(cli_error)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&reply["report"]).expect("a JSON value prints"));
    } else {
        print!("{}", reply["table"].as_str().unwrap_or_default());
    }
    Ok(())
}

/// The engine refusing a request (an unknown policy or tunable) is bad input; not reaching it is a failure.
fn cli_error(e: ControlError) -> CliError {
    match e {
        ControlError::Refused(m) => bad(m),
        other => CliError::Failed(other.to_string()),
    }
}
