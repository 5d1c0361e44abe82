//! `iosched fio-options`: how the fio reader takes each option of fio's HOWTO, from the reader's own lists
//! (iosched-workload's fio::catalogue), so that what it prints is what it does.

use crate::error::CliError;
use iosched_report::table::wrap;
use iosched_workload::fio::catalogue;
use serde_json::json;

pub fn run(as_json: bool) -> Result<(), CliError> {
    let named = |list: &[(&str, &str)]| -> Vec<serde_json::Value> {
        list.iter().map(|(name, why)| json!({ "option": name, "why": why })).collect()
    };
    let non_block: Vec<(&str, &str)> = catalogue::NON_BLOCK_OPTIONS
        .iter()
        .map(|name| (*name, "an option of an I/O engine that does not do block I/O"))
        .collect();
    let refused: Vec<(&str, &str)> = catalogue::REFUSED.iter().copied().chain(non_block).collect();
    if as_json {
        let out = json!({
            "modelled": catalogue::SUPPORTED,
            "accepted_without_effect": named(catalogue::ACCEPTED_WITHOUT_EFFECT),
            "refused": named(&refused),
            "engines": {
                "one_request_at_a_time": catalogue::SYNC_ENGINES,
                "iodepth_in_flight": catalogue::ASYNC_ENGINES,
                "refused_not_block_io": catalogue::NON_BLOCK_ENGINES,
            },
        });
        outln!("{}", serde_json::to_string_pretty(&out).expect("JSON serialises"));
        return Ok(());
    }
    outln!("Modelled: given their fio meaning ({} options)", catalogue::SUPPORTED.len());
    out!("{}", wrap(&catalogue::SUPPORTED.join(" "), "    ", "    "));
    let section = |title: &str, list: &[(&str, &str)]| {
        outln!("\n{title} ({} options)", list.len());
        let width = list.iter().map(|(name, _)| name.len()).max().unwrap_or(0).min(28);
        let under = " ".repeat(4 + width + 2);
        for (name, why) in list {
            out!("{}", wrap(why, &format!("    {name:<width$}  "), &under));
        }
    };
    section("Accepted without effect, and why", catalogue::ACCEPTED_WITHOUT_EFFECT);
    section("Refused, and why", &refused);
    outln!("\nEngines (ioengine=; the name is kept in reports)");
    out!("{}", wrap(&format!("one request at a time: {}", catalogue::SYNC_ENGINES.join(" ")), "    ", "      "));
    out!("{}", wrap(&format!("iodepth in flight: {}", catalogue::ASYNC_ENGINES.join(" ")), "    ", "      "));
    out!("{}", wrap(&format!("refused, not block I/O: {}", catalogue::NON_BLOCK_ENGINES.join(" ")), "    ", "      "));
    Ok(())
}
