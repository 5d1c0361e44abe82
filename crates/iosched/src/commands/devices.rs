//! `iosched devices`: the kinds of device spec, their presets and keys (iosched-device's catalogue).

use crate::error::CliError;
use iosched_report::table::wrap;
use serde_json::json;

pub fn run(as_json: bool) -> Result<(), CliError> {
    let kinds = iosched_device::catalogue::kinds();
    if as_json {
        let list: Vec<_> = kinds
            .iter()
            .map(|k| {
                let keys: Vec<_> =
                    k.keys.iter().map(|(name, what)| json!({"name": name, "description": what})).collect();
                json!({"kind": k.kind, "form": k.form, "summary": k.summary, "presets": k.presets, "keys": keys})
            })
            .collect();
        outln!("{}", serde_json::to_string_pretty(&json!({ "devices": list })).expect("JSON serialises"));
        return Ok(());
    }
    for k in &kinds {
        outln!("{}", k.form);
        out!("{}", wrap(k.summary, "    ", "    "));
        if !k.presets.is_empty() {
            outln!("    presets: {}", k.presets.join(", "));
        }
        let width = k.keys.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
        let under = " ".repeat(4 + width + 2);
        for (name, what) in &k.keys {
            out!("{}", wrap(what, &format!("    {name:<width$}  "), &under));
        }
        outln!();
    }
    outln!("The default device is {}.", iosched_device::spec::DEFAULT_SPEC);
    Ok(())
}
