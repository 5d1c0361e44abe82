//! The SSD model against MQSim on MQSim's own inputs, through the user's path: `iosched sim --mqsim-workload
//! workload.xml --device mqsim:ssdconfig.xml`, scenario by scenario and flow by flow, beside MQSim itself
//! built from ../shared/peers (its build.sh) into this test's scratch folder. The comparison is
//! scripts/mqsim-conformance.py (the same script a user runs); this test holds its figures to issue 27's bounds:
//! per flow, mean device response time within 15 % of MQSim's; flash reads, programs and erases within 10 %
//! (counts under 100 are too few to hold to a share). Also on two variants of the device file (another
//! over-provisioning, and a smaller data cache and mapping cache), and on MQSim's other shipped trace
//! (wsrch-small) in place of tpcc-small. The test skips, saying so, only where the
//! peers are absent; .ci/run insists that they are there.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn iosched() -> &'static str {
    env!("CARGO_BIN_EXE_iosched")
}

/// MQSim built from the peers folder, or None (said on stderr) where the peers are absent; built once per
/// test process.
fn mqsim() -> Option<PathBuf> {
    static BUILT: OnceLock<Option<PathBuf>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dest = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("peers");
            Some(iosched_test_data::build_peers("mqsim", &dest)?.join("mqsim/MQSim"))
        })
        .clone()
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `iosched sim` on MQSim's shipped workload and device files, with `extra` arguments.
fn run_shipped(peers: &Path, extra: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(iosched())
        .args(["sim", "--mqsim-workload"])
        .arg(peers.join("workload.xml"))
        .arg("--device")
        .arg(format!("mqsim:{}", peers.join("ssdconfig.xml").display()))
        .args(extra)
        .output()
        .expect("iosched runs")
}

#[test]
fn mqsims_shipped_files_run_unchanged_every_scenario() {
    let Some(peers) = iosched_test_data::peer("mqsim") else { return };
    let out = run_shipped(&peers, &["--json".as_ref()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    assert_eq!(lines.len(), 3, "one line per scenario");
    let names: Vec<Vec<&str>> = lines
        .iter()
        .map(|l| l["flows"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect())
        .collect();
    assert_eq!(names[0], ["Host.IO_Flow.Synth.No_0", "Host.IO_Flow.Synth.No_1"]);
    assert_eq!(names[2], ["Host.IO_Flow.Trace.traces/tpcc-small.trace"]);
    for l in &lines {
        for f in l["flows"].as_array().unwrap() {
            assert!(f["requests"].as_u64().unwrap() > 0, "{f}");
        }
    }
    // The trace's requests all complete: tpcc-small has 6999.
    assert_eq!(lines[2]["flows"][0]["requests"], 6999);
    // Every setting of the shipped files is modelled, or changes nothing in MQSim either: no warning.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("warning"), "{stderr}");
}

#[test]
fn a_synthetic_flow_issues_the_requests_mqsims_flow_issues() {
    // The shipped workload's first scenario: two flows of 4 KiB writes (seeds 798 and 6533, queue depths 16 and
    // 2) over half their ranges. MQSim's requests, in the order they arrived (the same moment ordered by
    // address), as a print of each request added to a local build of MQSim 2.0 from the peers folder gave
    // them: iosched's flows issue the very same addresses, because they draw MQSim's random numbers.
    let Some(peers) = iosched_test_data::peer("mqsim") else { return };
    let csv = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("shipped-per-request.csv");
    let out = run_shipped(&peers, &["--per-request".as_ref(), csv.as_os_str()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&csv).unwrap();
    for (flow, mqsims) in [
        ("Host.IO_Flow.Synth.No_0", [23_985_472u64, 26_166_464, 27_286_128, 35_925_120]),
        ("Host.IO_Flow.Synth.No_1", [629_706_128, 678_955_488, 596_702_000, 582_906_528]),
    ] {
        // scenario,flow,op,offset_bytes,len_bytes,arrival_ns,response_ns
        let mut ours: Vec<(u64, u64)> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|f| f[0] == "1" && f[1] == flow)
            .map(|f| (f[5].parse().unwrap(), f[3].parse::<u64>().unwrap() / 512))
            .collect();
        assert!(ours.len() > 1000, "{flow}: {} requests", ours.len());
        ours.sort();
        let first: Vec<u64> = ours.iter().take(4).map(|&(_, sector)| sector).collect();
        assert_eq!(first, mqsims, "{flow}: the first requests' sectors");
    }
}

/// scripts/mqsim-conformance.py's rows for `args`.
fn conformance_rows(mqsim: &Path, args: &[&str]) -> Vec<Value> {
    let out = Command::new("python3")
        .arg(repo().join("scripts/mqsim-conformance.py"))
        .arg("--mqsim")
        .arg(mqsim)
        .arg("--iosched")
        .arg(iosched())
        .args(args)
        .arg("--json")
        .output()
        .expect("python3 runs the script");
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.lines().last().unwrap_or("[]"))
        .unwrap_or_else(|e| panic!("{e}: {stdout}{}", String::from_utf8_lossy(&out.stderr)))
}

/// Rows outside issue 27's bounds, each said; the number of flows compared.
fn outside_bounds(rows: &[Value]) -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut flows = 0;
    for r in rows {
        let at = format!("{} scenario {}", r["variant"], r["scenario"]);
        if let Some(flow) = r["flow"].as_str() {
            flows += 1;
            let off = r["response_off"].as_f64().unwrap();
            eprintln!("{at} {flow}: response {} vs MQSim ({:+.1} %)", r["response_us"], 100.0 * off);
            if off.abs() > 0.15 {
                failures.push(format!("{at} {flow}: mean response {:+.1} % off MQSim's", 100.0 * off));
            }
        } else {
            for kind in ["reads", "programs", "erases"] {
                let pair = &r["flash"][kind];
                let (ours, theirs) = (pair[0].as_f64().unwrap(), pair[1].as_f64().unwrap());
                let off = r["flash_off"][kind].as_f64().unwrap();
                eprintln!("{at}: flash {kind} {ours} vs {theirs} ({:+.1} %)", 100.0 * off);
                if ours.max(theirs) >= 100.0 && off.abs() > 0.10 {
                    failures.push(format!("{at}: flash {kind} {ours} vs MQSim's {theirs}"));
                }
            }
        }
    }
    (failures, flows)
}

/// Each flow's request count within 1 % of MQSim's (the flows issue MQSim's own requests, so a count that drifts
/// means a request of a different size, or a different pace).
fn assert_request_counts_within_1_percent(rows: &[Value]) {
    for r in rows.iter().filter(|r| r["flow"].is_string()) {
        let (ours, theirs) = (r["requests"][0].as_f64().unwrap(), r["requests"][1].as_f64().unwrap());
        assert!((ours / theirs - 1.0).abs() < 0.01, "{}: {ours} requests against MQSim's {theirs}", r["flow"]);
    }
}

/// Run scripts/mqsim-conformance.py with `args` and hold every one of its rows to issue 27's bounds; it must
/// compare `flows` flows. Returns the rows.
fn assert_agrees_with_mqsim(mqsim: &Path, args: &[&str], flows: usize) -> Vec<Value> {
    let rows = conformance_rows(mqsim, args);
    let (failures, compared) = outside_bounds(&rows);
    assert_eq!(compared, flows, "flows compared");
    assert!(failures.is_empty(), "{failures:#?}");
    rows
}

#[test]
fn the_ssd_model_agrees_with_mqsim_on_the_wsrch_trace() {
    let Some(mqsim) = mqsim() else { return };
    // MQSim's workload with its trace scenario on the other trace it ships.
    let (workload, config) =
        edited_workload("mqsim-wsrch", |w| w.replace("traces/tpcc-small.trace", "traces/wsrch-small.trace"));
    assert_agrees_with_mqsim(
        &mqsim,
        &["--workload", workload.to_str().unwrap(), "--config", config.to_str().unwrap(), "--scenario", "3"],
        1,
    );
}

#[test]
fn the_ssd_model_agrees_with_mqsim_on_every_shipped_scenario_and_three_variants() {
    let Some(mqsim) = mqsim() else { return };
    // Every flow of the three scenarios: MQSim's shipped files as they are (10 s of each synthetic scenario),
    // then three device variants on the shipped workload cut to 2 s a scenario.
    assert_agrees_with_mqsim(&mqsim, &["--jobs", "2"], 5);
    let (short, config) = shipped_workload_cut_to_2_s("mqsim-short-variants");
    assert_agrees_with_mqsim(
        &mqsim,
        &on_workload(
            &short,
            &config,
            &[
                "--set",
                "Overprovisioning_Ratio=0.07",
                "--set",
                "Overprovisioning_Ratio=0.25",
                "--set",
                "Data_Cache_Capacity=33554432,CMT_Capacity=1048576",
                "--jobs",
                "2",
            ],
        ),
        3 * 5,
    );
}

#[test]
fn caches_partitioned_per_flow_agree_with_mqsim() {
    // MQSim's other sharing modes, on the shipped device file: Data_Cache_Sharing_Mode EQUAL_PARTITIONING gives
    // each flow its own data cache of an equal share, with a back-pressure bound of its own (so a flow at queue
    // depth 2 beside one at 16 no longer waits for the other's write-backs), and CMT_Sharing_Mode
    // EQUAL_PARTITIONING each flow a mapping cache of an equal share. iosched had read both and modelled
    // neither: the two writers of scenario 1 answered 40 % faster and 386 % slower than in MQSim, and its
    // flash read 52 % more translation pages. Scenarios 1 and 2 (two flows each; the trace scenario has one).
    let Some(mqsim) = mqsim() else { return };
    // both flows of both scenarios, 2 s each.
    let (short, config) = shipped_workload_cut_to_2_s("mqsim-short-partitioned");
    assert_agrees_with_mqsim(
        &mqsim,
        &on_workload(
            &short,
            &config,
            &[
                "--scenario",
                "1",
                "--scenario",
                "2",
                "--set",
                "Data_Cache_Sharing_Mode=EQUAL_PARTITIONING,CMT_Sharing_Mode=EQUAL_PARTITIONING",
                "--jobs",
                "2",
            ],
        ),
        4,
    );
}

#[test]
fn the_tpcc_trace_on_slower_flash_agrees_with_mqsim() {
    // MQSim's tpcc trace (6,999 requests in 136 ms) on the shipped drive with slower flash: programs of 1.25 ms,
    // and MLC pages of two types (LSB programs 0.5 ms, MSB 2 ms and reads 125 us). Its writes then arrive faster
    // than the drive programs them and back up, and MQSim's NVMe interface fetches a flow's commands only while
    // fewer than Queue_Fetch_Size (512) are in the drive, so reads queue behind the backed-up writes. iosched
    // had taken every command at once (reads 1.6 ms against MQSim's 13.9 ms): 27 % and 30 % under MQSim's mean
    // response; and it had charged every page the types' mean.
    let Some(mqsim) = mqsim() else { return };
    // the trace's flow on each device file.
    assert_agrees_with_mqsim(
        &mqsim,
        &[
            "--scenario",
            "3",
            "--set",
            "Page_Program_Latency_LSB=1250000,Page_Program_Latency_MSB=1250000",
            "--set",
            "Page_Read_Latency_MSB=125000,Page_Program_Latency_LSB=500000,Page_Program_Latency_MSB=2000000",
            "--jobs",
            "2",
        ],
        2,
    );
}

#[test]
fn flows_without_the_write_cache_agree_with_mqsim() {
    // MQSim's workload with every flow's Device_Level_Data_Caching_Mode TURNED_OFF: writes go to flash before they
    // complete and reads to flash whatever the cache holds. iosched had read no caching mode and written through
    // the cache: scenario 1's writers answered 59 % faster than MQSim's and the tpcc trace 45 %. Scenarios 1
    // (two writers) and 3 (the trace).
    let Some(mqsim) = mqsim() else { return };
    let (workload, config) = edited_workload("mqsim-no-cache", |w| w.replace(">WRITE_CACHE<", ">TURNED_OFF<"));
    assert_agrees_with_mqsim(
        &mqsim,
        &on_workload(&workload, &config, &["--scenario", "1", "--scenario", "3", "--jobs", "2"]),
        3,
    );
}

/// MQSim's shipped workload, changed by `edit`, written into this test's scratch folder `name` with its traces.
fn edited_workload(name: &str, edit: impl Fn(&str) -> String) -> (PathBuf, PathBuf) {
    let peers = iosched_test_data::peer("mqsim").expect("built from it");
    let folder = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&folder).unwrap();
    let shipped = std::fs::read_to_string(peers.join("workload.xml")).unwrap();
    let edited = edit(&shipped);
    assert_ne!(edited, shipped, "the edit changes the shipped workload");
    let workload = folder.join("workload.xml");
    std::fs::write(&workload, edited).unwrap();
    let traces = folder.join("traces");
    if !traces.exists() {
        std::os::unix::fs::symlink(peers.join("traces"), &traces).unwrap();
    }
    (workload, peers.join("ssdconfig.xml"))
}

/// MQSim's shipped workload with its two synthetic scenarios stopped after 2 s of simulated time instead of 10,
/// in this test's scratch folder `name`. Device variants run on it: 2 s of scenario 2's readers is over 200,000
/// requests, and its 10 s cost 36 s of MQSim's CPU a run.
fn shipped_workload_cut_to_2_s(name: &str) -> (PathBuf, PathBuf) {
    edited_workload(name, |w| w.replace("<Stop_Time>10000000000<", "<Stop_Time>2000000000<"))
}

/// The script's arguments for `workload` on device file `config`, then `rest`.
fn on_workload<'a>(workload: &'a Path, config: &'a Path, rest: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["--workload", workload.to_str().unwrap(), "--config", config.to_str().unwrap()];
    args.extend_from_slice(rest);
    args
}

#[test]
fn flows_on_their_own_channels_and_other_allocation_orders_agree_with_mqsim() {
    // Scenario 1's two writers on channels 0-3 and 4-7 (their Channel_IDs): each flow's pages on its own flash,
    // each flow's range its planes' logical space (Logical_Address_Partitioning_Unit). iosched had put every
    // flow on every channel: 42 % under MQSim's response.
    let Some(mqsim) = mqsim() else { return };
    let all = "<Channel_IDs>0,1,2,3,4,5,6,7</Channel_IDs>";
    let (split, config) = edited_workload("mqsim-split-channels", |w| {
        w.replacen(all, "<Channel_IDs>0,1,2,3</Channel_IDs>", 1).replacen(all, "<Channel_IDs>4,5,6,7</Channel_IDs>", 1)
    });
    assert_agrees_with_mqsim(
        &mqsim,
        &["--workload", split.to_str().unwrap(), "--config", config.to_str().unwrap(), "--scenario", "1"],
        2,
    );
    // Sequential 32 KiB reads (scenario 1's flows as streams of reads at queue depth 4, 2 s) under the WCPD
    // allocation (a flow's consecutive pages over the chips of a channel first) and PDWC (over the planes and
    // dies of one chip first, so a request's four pages are two multi-plane reads): iosched had placed every
    // page by CWDP, 31 % and 54 % under MQSim; then, placing them, read a chip's pages one at a time as they
    // were queued (PDWC 22 % over).
    let (stream, config) = edited_workload("mqsim-stream-reads", |w| {
        let end = w.find("</IO_Scenario>").unwrap() + "</IO_Scenario>".len();
        let mut first = w[..end].to_string();
        for (a, b) in [
            ("RANDOM_UNIFORM", "STREAMING"),
            ("<Read_Percentage>0<", "<Read_Percentage>100<"),
            ("<Average_Request_Size>8<", "<Average_Request_Size>64<"),
            ("<Average_No_of_Reqs_in_Queue>16<", "<Average_No_of_Reqs_in_Queue>4<"),
            ("<Average_No_of_Reqs_in_Queue>2<", "<Average_No_of_Reqs_in_Queue>4<"),
            ("<Stop_Time>10000000000<", "<Stop_Time>2000000000<"),
        ] {
            first = first.replace(a, b);
        }
        first + "\n</MQSim_IO_Scenarios>\n"
    });
    assert_agrees_with_mqsim(
        &mqsim,
        &on_workload(
            &stream,
            &config,
            &["--set", "Plane_Allocation_Scheme=WCPD", "--set", "Plane_Allocation_Scheme=PDWC", "--jobs", "2"],
        ),
        4,
    );
    // The shipped drive with four planes a die (and half the blocks a plane): the shipped workload's flows list
    // Plane_IDs 0,1, so MQSim puts their pages on half of the planes and gives each flow a quarter of the
    // logical space. Scenarios 1 (writers) and 2 (URGENT and HIGH readers), 2 s each.
    let (short, config) = shipped_workload_cut_to_2_s("mqsim-short-four-planes");
    assert_agrees_with_mqsim(
        &mqsim,
        &on_workload(
            &short,
            &config,
            &[
                "--scenario",
                "1",
                "--scenario",
                "2",
                "--set",
                "Plane_No_Per_Die=4,Block_No_Per_Plane=1024",
                "--jobs",
                "2",
            ],
        ),
        4,
    );
}

#[test]
fn flows_that_could_overfill_a_plane_are_refused_not_run() {
    // A flow on chip 0 only beside one on every chip: MQSim gives the first half of chip 0's planes and the
    // second the rest, whose pages then spread over every plane, so chip 0's planes would hold 1.375 times their
    // logical space. MQSim runs it until a plane fills; iosched refuses it with a reason.
    if iosched_test_data::peer("mqsim").is_none() {
        return;
    }
    let (workload, config) = edited_workload("mqsim-overlapping", |w| {
        w.replacen("<Chip_IDs>0,1,2,3</Chip_IDs>", "<Chip_IDs>0</Chip_IDs>", 1)
    });
    let out = Command::new(iosched())
        .args(["sim", "--mqsim-workload"])
        .arg(&workload)
        .arg("--device")
        .arg(format!("mqsim:{}", config.display()))
        .args(["--scenario", "1"])
        .output()
        .expect("iosched runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("logical pages on plane") && !stderr.contains("panicked"), "{stderr}");
}

#[test]
fn without_priority_scheduling_urgent_reads_wait_their_turn_as_in_mqsim() {
    // Transaction_Scheduling_Policy OUT_OF_ORDER (MQSim's default when the file does not say): TSU_OutofOrder
    // ignores the flows' priority classes, so scenario 2's URGENT and HIGH readers get the same service. iosched
    // had served URGENT reads first whatever the policy: 15 % under and 24 % over MQSim's responses.
    // Scenario 2 for 2 s.
    let Some(mqsim) = mqsim() else { return };
    let (short, config) = shipped_workload_cut_to_2_s("mqsim-short-out-of-order");
    assert_agrees_with_mqsim(
        &mqsim,
        &on_workload(&short, &config, &["--scenario", "2", "--set", "Transaction_Scheduling_Policy=OUT_OF_ORDER"]),
        2,
    );
}

#[test]
fn priority_classes_share_the_flash_four_two_one_as_in_mqsim() {
    // Scenario 2's two random 4 KiB flows (queue depth 16 each, here for 2 s) as HIGH and LOW readers, as HIGH
    // and MEDIUM readers, and as HIGH and LOW flows of half reads, half writes. TSU_Priority_OutOfOrder queues
    // a chip's user reads and writes by class and serves HIGH, MEDIUM and LOW by weighted round robin (4, 2,
    // 1), taking a turn at each visit of its scheduler, also to a busy chip; where a look at the reads passes
    // over every class with work, the writes go. iosched had only put URGENT first and served the rest in
    // arrival order: the readers +5.7 / -5.3 % and +3.4 / -2.7 %, the half-read flows +17.2 / -31.3 % (MQSim
    // 444 and 758 us). A build (not committed) with the round robin but turns taken only when a die was free
    // to start a command left the half-read flows at +10.4 / -25.3 %. Each flow is held within 3 % here.
    let Some(mqsim) = mqsim() else { return };
    for (lower, read_percentage, name) in [
        ("LOW", 100, "mqsim-high-and-low"),
        ("MEDIUM", 100, "mqsim-high-and-medium"),
        ("LOW", 50, "mqsim-high-and-low-mixed"),
    ] {
        let (workload, config) = edited_workload(name, |w| {
            // Scenario 2 is the one with the URGENT flow (made HIGH); its next flow is its HIGH one.
            let urgent = w.find("<Priority_Class>URGENT<").expect("scenario 2's first flow");
            let end = urgent + w[urgent..].find("</IO_Scenario>").expect("scenario 2's end");
            let flows = w[urgent + "<Priority_Class>URGENT<".len()..end]
                .replacen("<Priority_Class>HIGH<", &format!("<Priority_Class>{lower}<"), 1)
                .replace("<Stop_Time>10000000000<", "<Stop_Time>2000000000<")
                .replace("<Read_Percentage>100<", &format!("<Read_Percentage>{read_percentage}<"));
            format!("{}<Priority_Class>HIGH<{flows}{}", &w[..urgent], &w[end..])
        });
        let rows = assert_agrees_with_mqsim(&mqsim, &on_workload(&workload, &config, &["--scenario", "2"]), 2);
        let flows: Vec<&Value> = rows.iter().filter(|r| r["flow"].is_string()).collect();
        for r in &flows {
            let off = r["response_off"].as_f64().unwrap();
            assert!(off.abs() <= 0.03, "{name} {}: mean response {:+.1} % off MQSim's", r["flow"], 100.0 * off);
        }
        let theirs = |k: usize| flows[k]["response_us"][1].as_f64().unwrap();
        assert!(theirs(1) > 1.05 * theirs(0), "{name}: MQSim's {lower} flow waits longer than its HIGH flow");
    }
}

#[test]
fn each_flow_has_a_fetch_window_of_its_own_as_in_mqsim() {
    // The tpcc trace beside the wsrch trace, on flash whose programs take 1.25 ms: tpcc's writes come faster
    // than the drive programs them and its commands back up past Queue_Fetch_Size, while wsrch's reads come a
    // few a millisecond. MQSim's NVMe interface fetches each flow's commands while fewer than Queue_Fetch_Size
    // of that flow's are in the drive (Input_Stream_Manager_NVMe), so wsrch's reads do not wait behind tpcc's.
    // iosched had one window of Queue_Fetch_Size x flows that the flows shared: tpcc -25.6 % (its commands
    // took wsrch's share), and with a window of 64, wsrch's reads +52.8 % (they waited behind tpcc's).
    let Some(mqsim) = mqsim() else { return };
    let (workload, config) = edited_workload("mqsim-two-traces", |w| {
        let start = w.find("<IO_Flow_Parameter_Set_Trace_Based>").expect("the shipped trace flow");
        let end = w.find("</IO_Flow_Parameter_Set_Trace_Based>").expect("its end")
            + "</IO_Flow_Parameter_Set_Trace_Based>".len();
        let wsrch = w[start..end].replace("traces/tpcc-small.trace", "traces/wsrch-small.trace");
        format!("{}\n{wsrch}{}", &w[..end], &w[end..])
    });
    let slow = "Page_Program_Latency_LSB=1250000,Page_Program_Latency_MSB=1250000";
    assert_agrees_with_mqsim(
        &mqsim,
        &on_workload(
            &workload,
            &config,
            &["--scenario", "3", "--set", slow, "--set", &format!("{slow},Queue_Fetch_Size=64"), "--jobs", "2"],
        ),
        4,
    );
}

#[test]
fn a_trace_starts_at_its_own_first_time_beside_other_flows_as_in_mqsim() {
    // The tpcc trace beside a synthetic reader (scenario 2's second flow: random 4 KiB reads at queue depth 4,
    // here for 300 ms), programs of 1.25 ms. MQSim registers each trace request at its time in the file, so
    // tpcc's first request comes at 938 ms, after the reader has finished; iosched had started the trace at 0,
    // where its backed-up writes held the reader's chips: the reader 646 us against MQSim's 175 (+269 %).
    // Then tpcc was +13.7 %: MQSim keeps a write frontier per flow in each plane (Flash_Block_Manager's Data_wf
    // per stream), and the reader's first reads of unwritten pages are mapped at the reader's own frontier;
    // with one frontier per plane they took pages of tpcc's blocks, and fewer of tpcc's writes met at the
    // same page of a die's planes to program together. Each flow is held within 5 % here.
    let Some(mqsim) = mqsim() else { return };
    let (workload, config) = edited_workload("mqsim-trace-beside-reader", |w| {
        let reader_start = w.rfind("<IO_Flow_Parameter_Set_Synthetic>").expect("scenario 2's second flow");
        let reader_end =
            w.rfind("</IO_Flow_Parameter_Set_Synthetic>").unwrap() + "</IO_Flow_Parameter_Set_Synthetic>".len();
        let reader = w[reader_start..reader_end]
            .replace("<Stop_Time>10000000000<", "<Stop_Time>300000000<")
            .replace("<Average_No_of_Reqs_in_Queue>16<", "<Average_No_of_Reqs_in_Queue>4<");
        let trace_end = w.find("</IO_Flow_Parameter_Set_Trace_Based>").expect("the shipped trace flow")
            + "</IO_Flow_Parameter_Set_Trace_Based>".len();
        format!("{}\n{reader}{}", &w[..trace_end], &w[trace_end..])
    });
    let rows = assert_agrees_with_mqsim(
        &mqsim,
        &on_workload(
            &workload,
            &config,
            &["--scenario", "3", "--set", "Page_Program_Latency_LSB=1250000,Page_Program_Latency_MSB=1250000"],
        ),
        2,
    );
    for r in rows.iter().filter(|r| r["flow"].is_string()) {
        let off = r["response_off"].as_f64().unwrap();
        assert!(off.abs() <= 0.05, "{}: mean response {:+.1} % off MQSim's", r["flow"], 100.0 * off);
    }
}

#[test]
fn a_sata_drive_and_its_host_adapter_agree_with_mqsim() {
    // HostInterface_Type=SATA: MQSim's SATA_HBA takes SATA_Processing_Delay (400 us in the shipped file) to hand
    // each command to the drive and again each completion back, one at a time (iosched-device's sata_hba.rs);
    // the interface has one stream, so every flow's commands have no priority class (queued as HIGH), share one
    // mapping table and take the first flow's caching mode. iosched had run SATA as NVMe: at 400 us, 433,494
    // requests in scenario 1 against MQSim's 22,236 (the adapter sets the pace: 2,500 a second) and scenario 3's
    // trace +254 % (MQSim's device response) or -99.7 % (its end-to-end delay, which the script compares with
    // SATA); with the adapter but not the one stream, at 5 us, scenario 1's mapping reads were +9.9 % and
    // scenario 2's HIGH reader +28 %.
    let Some(mqsim) = mqsim() else { return };
    let rows = assert_agrees_with_mqsim(&mqsim, &["--set", "HostInterface_Type=SATA", "--jobs", "2"], 5);
    assert_request_counts_within_1_percent(&rows);
    // At 5 us the adapter no longer sets the pace: scenarios 1 and 2 for 2 s each.
    let (short, config) = shipped_workload_cut_to_2_s("mqsim-short-sata");
    assert_agrees_with_mqsim(
        &mqsim,
        &on_workload(
            &short,
            &config,
            &[
                "--set",
                "HostInterface_Type=SATA,SATA_Processing_Delay=5000",
                "--scenario",
                "1",
                "--scenario",
                "2",
                "--jobs",
                "2",
            ],
        ),
        4,
    );
}

#[test]
fn a_traces_time_unit_changes_nothing_as_in_mqsim() {
    // MQSim stores a trace flow's Time_Unit and never uses it: its times are nanoseconds. Through `iosched sim`,
    // the trace scenario with MICROSECOND issues every request at the time NANOSECOND gives it.
    if iosched_test_data::peer("mqsim").is_none() {
        return;
    }
    let per_request = |name: &str, unit: &'static str| {
        let (workload, config) = edited_workload(name, move |w| w.replace(">NANOSECOND<", unit));
        let csv = workload.with_extension("csv");
        let out = Command::new(iosched())
            .args(["sim", "--mqsim-workload"])
            .arg(&workload)
            .arg("--device")
            .arg(format!("mqsim:{}", config.display()))
            .args(["--scenario", "3", "--per-request"])
            .arg(&csv)
            .output()
            .expect("iosched runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (std::fs::read_to_string(csv).unwrap(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (us, warned) = per_request("mqsim-time-us", ">MICROSECOND<");
    let (ps, _) = per_request("mqsim-time-ps", ">PICOSECOND<");
    assert_eq!(us, ps, "the same requests at the same times whatever the unit");
    assert!(us.lines().count() > 6999 && warned.contains("Time_Unit MICROSECOND"), "{warned}");
}

#[test]
fn a_trace_replayed_twice_agrees_with_mqsim() {
    // The tpcc trace flow with Relay_Count 2 and Percentage_To_Be_Executed 50. MQSim's IO_Flow_Trace_Based runs
    // the percentage only for a single round (so here the whole trace, twice), and starts a round the trace's
    // first time after the last request of the one before (its times are the file's own, 938 ms on). iosched
    // had run half the trace and started round 2 at once, so the rewrites of round 2 found their pages still
    // hot in the data cache: half MQSim's requests and programs, 58 % under its response.
    let Some(mqsim) = mqsim() else { return };
    let (workload, config) = edited_workload("mqsim-relay", |w| {
        w.replace("<Relay_Count>1<", "<Relay_Count>2<")
            .replace("<Percentage_To_Be_Executed>100<", "<Percentage_To_Be_Executed>50<")
    });
    let rows = assert_agrees_with_mqsim(
        &mqsim,
        &["--workload", workload.to_str().unwrap(), "--config", config.to_str().unwrap(), "--scenario", "3"],
        1,
    );
    let requests = rows.iter().find_map(|r| r["requests"].as_array().cloned()).expect("the flow's row");
    assert_eq!(requests[0], requests[1], "requests (iosched, MQSim): the whole trace twice");
}

#[test]
fn on_a_preconditioned_drive_the_ssd_model_cleans_at_mqsims_pace() {
    // MQSim's drive scaled down to 256 blocks a plane (64 GiB) with 12 % over-provisioning and its
    // preconditioning on (Enabled_Preconditioning: the occupied pages laid out in a steady state, so cleaning
    // starts with the first writes), 95 % full; 128 KiB random writes at queue depth 1 and 32. Before iosched
    // aged the occupied range, it wrote into free blocks for the whole run and answered 91 % faster than MQSim;
    // aged by writing, it programmed 16-22 % more pages than MQSim. Laid out as MQSim lays it out, cleaning per
    // plane as MQSim cleans (RGA, its trigger, copies read out and written back, multi-plane commands, cleaning
    // before user I/O) and writing the same requests, it agrees on both. Held to issue 27's bounds: response
    // 15 %, flash reads and programs 10 %.
    let Some(mqsim) = mqsim() else { return };
    let rows = conformance_rows(
        &mqsim,
        &[
            "--random",
            "0,256,1,95",
            "--random",
            "0,256,32,95",
            "--set",
            "Block_No_Per_Plane=256,Overprovisioning_Ratio=0.12,Enabled_Preconditioning=true",
            "--jobs",
            "2",
        ],
    );
    let mut flows = 0;
    for r in &rows {
        if r["flow"].is_string() {
            flows += 1;
            let off = r["response_off"].as_f64().unwrap();
            eprintln!("scenario {}: response {} vs MQSim ({:+.1} %)", r["scenario"], r["response_us"], 100.0 * off);
            assert!(off.abs() <= 0.15, "scenario {}: mean response {:+.1} % off MQSim's", r["scenario"], 100.0 * off);
        } else {
            // Both clean: hundreds of blocks erased in the 10 s.
            let flash = &r["flash"];
            eprintln!("scenario {}: flash {}", r["scenario"], flash);
            let erases = &flash["erases"];
            assert!(erases[0].as_f64().unwrap() >= 100.0 && erases[1].as_f64().unwrap() >= 100.0, "{flash}");
            for kind in ["reads", "programs"] {
                let (ours, theirs) = (flash[kind][0].as_f64().unwrap(), flash[kind][1].as_f64().unwrap());
                let off = ours / theirs - 1.0;
                assert!(
                    off.abs() <= 0.10,
                    "scenario {}: flash {kind} {:+.1} % off MQSim's",
                    r["scenario"],
                    100.0 * off
                );
            }
        }
    }
    assert_eq!(flows, 2);
}

#[test]
fn without_preconditioning_a_small_drive_holds_only_what_the_run_writes_as_mqsims_does() {
    // MQSim's drive scaled down to 64 blocks a plane (16 GiB) with 12 % over-provisioning, preconditioning off
    // as shipped: MQSim writes nothing before the run (a page is mapped when first written or read), so 10 s of
    // random writes at 128 KiB and 1 MiB, queue depth 1, fit in its free blocks and nothing is cleaned. iosched
    // had filled the flows' occupancy (95 %) first, so it cleaned where MQSim did not (287 and 672 erases) and
    // answered 73 % and 64 % slower. Held to issue 27's bounds, flash counts included.
    let Some(mqsim) = mqsim() else { return };
    let rows = assert_agrees_with_mqsim(
        &mqsim,
        &[
            "--random",
            "0,256,1,95",
            "--random",
            "0,2048,1,95",
            "--set",
            "Block_No_Per_Plane=64,Overprovisioning_Ratio=0.12",
        ],
        2,
    );
    for r in rows.iter().filter(|r| r["flow"].is_null()) {
        assert_eq!(r["flash"]["erases"][0], 0, "iosched cleaned: {}", r["flash"]);
    }
}

#[test]
fn a_small_drive_filled_by_its_run_cleans_as_much_as_mqsims() {
    // MQSim's drive scaled down to 32 blocks a plane (8 GiB) with 12 % over-provisioning, preconditioning off:
    // 8 KiB random writes at queue depth 16 fill its planes in about 26 s, and then every plane cleans. Two
    // mechanisms of MQSim's code decide how much: each cleaning copy gets its page when its read is done
    // (Allocate_new_page_for_gc), and user reads and writes join a cleaning command on the planes it leaves
    // free (issue_command_to_chip's second source queue), so a chip that cleans still serves the host now and
    // then. Without them iosched erased 19 % fewer blocks than MQSim (311 against 384 in 40 s). Held to issue
    // 27's bounds, flash counts included.
    let Some(mqsim) = mqsim() else { return };
    let rows = assert_agrees_with_mqsim(
        &mqsim,
        &["--random", "0,16,16,0,40", "--set", "Block_No_Per_Plane=32,Overprovisioning_Ratio=0.12"],
        1,
    );
    for r in rows.iter().filter(|r| r["flow"].is_null()) {
        let erases = &r["flash"]["erases"];
        assert!(erases[0].as_f64().unwrap() >= 100.0 && erases[1].as_f64().unwrap() >= 100.0, "{}", r["flash"]);
    }
}

#[test]
fn large_random_reads_at_depth_go_at_mqsims_pace() {
    // MQSim's flash interface sends a chip its next command only once the channel is idle, read data waiting
    // going first; before iosched's dies waited for that, 128 KiB random reads at depth 32 went 40 % faster than
    // in MQSim (its channels' limit against MQSim's half of it) and 1 MiB at depth 1 27 % faster. Reads over MQSim's
    // drive scaled down as in the test above (nothing written before the run: a first read maps the page).
    let Some(mqsim) = mqsim() else { return };
    assert_agrees_with_mqsim(
        &mqsim,
        &[
            "--random",
            "100,256,32,95",
            "--random",
            "100,2048,1,95",
            "--set",
            "Block_No_Per_Plane=64,Overprovisioning_Ratio=0.12",
        ],
        2,
    );
}

#[test]
fn normal_request_sizes_are_mqsims_draws() {
    // Scenarios 1 and 2 with NORMAL request sizes (mean 10 sectors, Variance_Request_Size 2, which MQSim takes
    // as the standard deviation), 1 s each: MQSim draws each size from a generator of its own (Box-Muller over
    // its random numbers, a ceiling), so a request covers one, two or three 4 KiB pages. iosched had issued
    // every request at the mean: its request counts 1.3 % over MQSim's in scenario 1 and its flash reads 1.3 %.
    // A size under 1 sector has no defined conversion in MQSim, so the spread here keeps every draw positive.
    let Some(mqsim) = mqsim() else { return };
    let (workload, config) = edited_workload("mqsim-normal-sizes", |w| {
        w.replace("<Request_Size_Distribution>FIXED<", "<Request_Size_Distribution>NORMAL<")
            .replace("<Average_Request_Size>8<", "<Average_Request_Size>10<")
            .replace("<Variance_Request_Size>0<", "<Variance_Request_Size>2<")
            .replace("<Stop_Time>10000000000<", "<Stop_Time>1000000000<")
    });
    let rows = assert_agrees_with_mqsim(
        &mqsim,
        &on_workload(&workload, &config, &["--scenario", "1", "--scenario", "2", "--jobs", "2"]),
        4,
    );
    assert_request_counts_within_1_percent(&rows);
    for r in rows.iter().filter(|r| r["flow"].is_null()) {
        let off = r["flash_off"]["reads"].as_f64().unwrap();
        assert!(off.abs() < 0.01, "scenario {}: flash reads {:+.1} % off MQSim's", r["scenario"], 100.0 * off);
    }
}
