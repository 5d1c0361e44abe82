//! `iosched policies`: what policies exist and what can be tuned.

use crate::error::CliError;
use iosched_core::registry;
use iosched_report::table::columns;
use serde_json::json;

pub fn run(as_json: bool) -> Result<(), CliError> {
    if as_json {
        let list: Vec<_> = registry::policies()
            .iter()
            .map(|info| {
                let policy = (info.create)();
                json!({
                    "name": info.name,
                    "summary": info.summary,
                    "source": info.source,
                    "wait_bound": policy.wait_bound(),
                    "tunables": policy.tunables(),
                })
            })
            .collect();
        let text = serde_json::to_string_pretty(&json!({ "policies": list })).expect("JSON serialises");
        println!("{text}");
        return Ok(());
    }
    for info in registry::policies() {
        println!("{}  {}", info.name, info.summary);
        println!("    from {}", info.source);
        let policy = (info.create)();
        let mut rows = Vec::new();
        for t in policy.tunables() {
            rows.push(vec![format!("    {}", t.name), format!("default {}", t.default), t.description.to_string()]);
        }
        if rows.is_empty() {
            println!("    (no tunables)");
        } else {
            print!("{}", columns(&rows));
        }
        println!();
    }
    Ok(())
}
