//! The job-file reader returns a job list or an error for any text; it never panics.

use iosched_workload::fio::parse_str;
use proptest::prelude::*;

fn line() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "rw",
        "bs",
        "size",
        "offset",
        "iodepth",
        "ioengine",
        "number_ios",
        "runtime",
        "time_based",
        "thinktime",
        "numjobs",
        "fsync",
        "rwmixread",
        "rwmixwrite",
        "prio",
        "prioclass",
        "io_size",
        "startdelay",
        "direct",
        "junk",
        "",
    ]);
    prop_oneof![
        (key, "[ -~]{0,12}").prop_map(|(k, v)| format!("{k}={v}")),
        "[ -~]{0,20}",
        "\\[[ -~]{0,8}\\]?",
        Just("[global]".to_string()),
        Just("[job]".to_string()),
    ]
}

proptest! {
    #[test]
    fn any_text_gives_jobs_or_an_error(lines in prop::collection::vec(line(), 0..20)) {
        let text = lines.join("\n");
        match parse_str(&text, "fuzz.fio") {
            Ok(jobs) => prop_assert!(!jobs.is_empty()),
            Err(e) => prop_assert!(e.to_string().starts_with("fuzz.fio:")),
        }
    }
}
