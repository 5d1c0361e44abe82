//! `iosched configure`, `iosched stats` and `iosched top`: requests to a running live engine through its control
//! socket.

use super::signals::{catch_interrupts, STOP};
use crate::cli::{ConfigureArgs, StatsArgs, TopArgs};
use crate::error::{bad, CliError};
use iosched_core::snapshot::FlowsSnapshot;
use iosched_live::control_socket::{self, ControlError};
use iosched_report::top;
use serde_json::json;
use std::io::{IsTerminal, Write};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

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
    outln!("{}: policy {}{tunables}", args.target.display(), reply["policy"].as_str().unwrap_or("?"));
    Ok(())
}

pub fn stats(args: &StatsArgs) -> Result<(), CliError> {
    let reply = control_socket::request(&args.target, &json!({"command": "stats"})).map_err(cli_error)?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&reply["report"]).expect("a JSON value prints"));
    } else {
        out!("{}", reply["table"].as_str().unwrap_or_default());
    }
    Ok(())
}

pub fn top(args: &TopArgs) -> Result<(), CliError> {
    if !(args.interval.is_finite() && args.interval > 0.0 && args.interval <= 3600.0) {
        return Err(bad(format!("--interval {}: expected seconds between 0 and 3600", args.interval)));
    }
    if args.count == Some(0) {
        return Err(bad("--count 0: expected at least one screen"));
    }
    let target = args.target.display().to_string();
    let flows = || -> Result<FlowsSnapshot, CliError> {
        let reply = control_socket::request(&args.target, &json!({"command": "flows"})).map_err(cli_error)?;
        serde_json::from_value(reply["flows"].clone())
            .map_err(|e| CliError::Failed(format!("{target}: unreadable answer from the engine: {e}")))
    };
    catch_interrupts();
    let terminal = std::io::stdout().is_terminal();
    let mut before = flows()?;
    let keys = super::keys::Keys::new();
    let mut shown = 0u64;
    while args.count.is_none_or(|n| shown < n) {
        let wake = Instant::now() + Duration::from_secs_f64(args.interval);
        while Instant::now() < wake {
            if STOP.load(Ordering::Relaxed) || keys.quit_pressed() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(20).min(wake.saturating_duration_since(Instant::now())));
        }
        let now = match flows() {
            Ok(now) => now,
            // The engine ended (a destroyed mount, a finished run) after showing something: that is the end.
            Err(CliError::Failed(e) | CliError::BadInput(e)) if shown > 0 => {
                eprintln!("iosched top: {target}: the engine is gone ({e})");
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        let screen = match terminal.then(terminal_size).flatten() {
            Some((rows, columns)) => top::render_in(&target, Some(&before), &now, rows, columns),
            None => top::render(&target, Some(&before), &now),
        };
        let mut out = std::io::stdout().lock();
        let written = if terminal {
            write!(out, "\x1b[H\x1b[2J{screen}") // home, clear, draw
        } else {
            writeln!(out, "{}{screen}", if shown > 0 { "\n" } else { "" })
        };
        if written.and_then(|()| out.flush()).is_err() {
            return Ok(()); // the reader went away
        }
        before = now;
        shown += 1;
    }
    Ok(())
}

/// The height and width of the terminal on standard output, if it says.
fn terminal_size() -> Option<(usize, usize)> {
    // SAFETY: TIOCGWINSZ fills a winsize we own.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(1, libc::TIOCGWINSZ, &mut size) } == 0;
    (ok && size.ws_row > 0).then_some((size.ws_row as usize, (size.ws_col as usize).max(1)))
}

/// The engine refusing a request (an unknown policy or tunable), or no engine on the path given, is bad input;
/// failing to talk to a running one is a failure.
fn cli_error(e: ControlError) -> CliError {
    match e {
        ControlError::Refused(m) => bad(m),
        e @ ControlError::NotRunning { .. } => bad(e),
        other => CliError::Failed(other.to_string()),
    }
}
