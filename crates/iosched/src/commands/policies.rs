//! `iosched policies`: what policies exist and what can be tuned.

use crate::error::CliError;
use iosched_core::registry;
use iosched_core::tunable::TunableKind;
use iosched_report::table::wrap;
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
        outln!("{text}");
        return Ok(());
    }
    for info in registry::policies() {
        out!("{}", wrap(&format!("{}  {}", info.name, info.summary), "", "    "));
        out!("{}", wrap(&format!("from {}", info.source), "    ", "      "));
        let policy = (info.create)();
        let rows: Vec<[String; 3]> = policy
            .tunables()
            .iter()
            .map(|t| {
                let default = match t.kind {
                    TunableKind::Int { unit, .. } => format!("{} {unit}", t.default),
                    TunableKind::Bool | TunableKind::Choice { .. } => t.default.to_string(),
                };
                [t.name.to_string(), default, t.description.to_string()]
            })
            .collect();
        if rows.is_empty() {
            outln!("    (no tunables)");
        }
        let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0);
        let (name_width, default_width) = (width(0), width(1));
        // Each description wraps under itself when the line would pass 100 columns.
        let under = " ".repeat(4 + name_width + 2 + default_width + 2);
        for [name, default, description] in &rows {
            out!("{}", wrap(description, &format!("    {name:<name_width$}  {default:<default_width$}  "), &under));
        }
        outln!();
    }
    Ok(())
}
