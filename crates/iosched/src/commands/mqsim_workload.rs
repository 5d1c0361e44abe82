//! `iosched sim --mqsim-workload workload.xml`: MQSim's scenarios, each on a fresh drive holding its flows'
//! occupancy as the device file's preconditioning says (ssd/mqsim_file.rs: none written, written, or written
//! and aged), with results per flow as MQSim reports them (requests, mean device response time, IOPS) and the
//! drive's flash command counts (reads, programs, erases, mapping reads and programs).

use super::policy_with;
use crate::cli::SimArgs;
use crate::error::{bad, CliError};
use iosched_core::policy::StatValue;
use iosched_core::request::{IoClass, Op};
use iosched_device::spec::{load_spec_filled, Filled};
use iosched_device::ssd::ftl::mqsim_layout::MqsimFlowAddresses;
use iosched_device::ssd::params::Aging;
use iosched_sim::workload::TimedIo;
use iosched_sim::{simulate, SimConfig, Workload};
use iosched_workload::mqsim_random::MqsimDraws;
use iosched_workload::mqsim_workload::{self, Address, Flow, FlowKind, Generator, Scenario, Synthetic};
use iosched_workload::trace::{self, Format};
use serde_json::json;
use std::io::IsTerminal;
use std::time::Instant;

pub fn run(args: &SimArgs) -> Result<(), CliError> {
    let path = args.mqsim_workload.as_ref().expect("called with --mqsim-workload");
    let file = mqsim_workload::load(path).map_err(bad)?;
    let count = file.scenarios.len();
    let chosen: Vec<usize> = match args.scenario {
        Some(n) if (1..=count).contains(&n) => vec![n],
        Some(n) => return Err(bad(format!("--scenario: {} has scenarios 1 to {count}, found {n}", path.display()))),
        None => (1..=count).collect(),
    };
    for w in &file.warnings {
        eprintln!("iosched: warning: {w}");
    }
    let mut warned = false;
    let mut per_request = String::from("scenario,flow,op,offset_bytes,len_bytes,arrival_ns,response_ns\n");
    for number in chosen {
        let scenario = &file.scenarios[number - 1];
        let started = Instant::now();
        // Progress, for a person watching: building a drive can take a while (a large drive that MQSim's
        // preconditioning asks to age takes tens of seconds), then the run.
        if std::io::stderr().is_terminal() {
            eprintln!("scenario {number} of {count}: building the drive, then running it");
        }
        let Built { workload, device, warnings } = build(args, scenario)?;
        if !warned {
            for w in &warnings {
                eprintln!("iosched: warning: {w}");
            }
            warned = true;
        }
        let policy = policy_with(&args.policy, &args.set)?;
        let record_log = args.per_request.is_some();
        let out = simulate(&workload, policy, device, Vec::new(), &SimConfig { seed: args.seed, record_log })
            .map_err(super::sim_error)?;
        for e in &out.log {
            let r = &e.req;
            let flow = workload.sources.get(e.source as usize).map_or("", |s| s.name());
            per_request += &format!(
                "{number},{flow},{},{},{},{},{}\n",
                if r.op == Op::Read { "R" } else { "W" },
                r.offset_bytes,
                r.len_bytes,
                r.queued_ns,
                r.completed_ns.saturating_sub(r.queued_ns)
            );
        }
        let wall = started.elapsed().as_secs_f64();
        let r = &out.result;
        let flows: Vec<serde_json::Value> = scenario
            .flows
            .iter()
            .map(|flow| {
                let jobs: Vec<_> = r.jobs.iter().filter(|j| j.name == flow.name).collect();
                let (mut reads, mut writes, mut total_ns, mut count, mut min_ns, mut max_ns) =
                    (0u64, 0u64, 0f64, 0u64, u64::MAX, 0u64);
                let mut runtime_ns = 0;
                let mut by_direction = [(0f64, 0u64); 2];
                for j in &jobs {
                    runtime_ns = runtime_ns.max(j.runtime_ns);
                    for (d, dir) in j.directions.iter().enumerate().take(2) {
                        if d == 0 {
                            reads += dir.ios
                        } else {
                            writes += dir.ios
                        }
                        total_ns += dir.total.mean_ns * dir.total.count as f64;
                        by_direction[d].0 += dir.total.mean_ns * dir.total.count as f64;
                        by_direction[d].1 += dir.total.count;
                        count += dir.total.count;
                        if dir.total.count > 0 {
                            min_ns = min_ns.min(dir.total.min_ns);
                            max_ns = max_ns.max(dir.total.max_ns);
                        }
                    }
                }
                let seconds = runtime_ns as f64 / 1e9;
                json!({
                    "name": flow.name,
                    "requests": reads + writes,
                    "reads": reads,
                    "writes": writes,
                    // From arrival to completion at the host: MQSim's Device_Response_Time with NVMe (unless
                    // a submission queue fills); with SATA its End_to_End_Request_Delay, as its device response
                    // time leaves out the wait for the host adapter.
                    "device_response_time_us": if count > 0 { total_ns / count as f64 / 1000.0 } else { 0.0 },
                    "read_response_time_us": by_direction[0].0 / by_direction[0].1.max(1) as f64 / 1000.0,
                    "write_response_time_us": by_direction[1].0 / by_direction[1].1.max(1) as f64 / 1000.0,
                    "min_device_response_time_us": if count > 0 { min_ns as f64 / 1000.0 } else { 0.0 },
                    "max_device_response_time_us": max_ns as f64 / 1000.0,
                    "iops": if seconds > 0.0 { (reads + writes) as f64 / seconds } else { 0.0 },
                })
            })
            .collect();
        let stat = |name: &str| {
            r.device_stats.iter().find(|(k, _)| k == name).map_or(0.0, |(_, v)| match v {
                StatValue::Count(c) => *c as f64,
                StatValue::Value(x) => *x,
            })
        };
        let flash = json!({
            // As MQSim counts them: every page read, a cleaning copy's read (MQSim moves a valid page as a read
            // and a program, without copyback by default) and the mapping's own.
            "reads": stat("flash_page_reads") + stat("gc_copies") + stat("mapping_reads"),
            "mapping_reads": stat("mapping_reads"),
            "programs": stat("flash_page_programs") + stat("mapping_programs"),
            "mapping_programs": stat("mapping_programs"),
            "multi_page_programs": stat("multi_page_programs"),
            "erases": stat("gc_erases"),
            "write_amplification": stat("write_amplification"),
            "mapping_cache_hits": stat("mapping_cache_hits"),
            "mapping_cache_misses": stat("mapping_cache_misses"),
        });
        if args.json {
            // Every counter the drive keeps, beside the flash counts MQSim also reports.
            let device_stats: serde_json::Map<String, serde_json::Value> = r
                .device_stats
                .iter()
                .map(|(k, v)| {
                    let value = match v {
                        StatValue::Count(c) => json!(c),
                        StatValue::Value(x) => json!(x),
                    };
                    (k.clone(), value)
                })
                .collect();
            let line = json!({
                "scenario": number, "device": r.device, "policy": r.policy, "flows": flows, "flash": flash,
                "device_stats": device_stats, "simulated_s": r.elapsed_ns as f64 / 1e9, "wall_s": wall,
            });
            outln!("{line}");
        } else {
            outln!(
                "scenario {number} of {count}: {} requests in {:.3} s simulated ({wall:.2} s wall)",
                r.requests_completed,
                r.elapsed_ns as f64 / 1e9
            );
            outln!(
                "  {:<44} {:>9} {:>9} {:>9} {:>12} {:>10}",
                "flow",
                "requests",
                "reads",
                "writes",
                "mean resp us",
                "IOPS"
            );
            for f in &flows {
                outln!(
                    "  {:<44} {:>9} {:>9} {:>9} {:>12.1} {:>10.0}",
                    f["name"].as_str().unwrap_or(""),
                    f["requests"],
                    f["reads"],
                    f["writes"],
                    f["device_response_time_us"].as_f64().unwrap_or(0.0),
                    f["iops"].as_f64().unwrap_or(0.0)
                );
            }
            let n = |k: &str| flash[k].as_f64().unwrap_or(0.0) as u64;
            if r.device_stats.iter().any(|(k, _)| k == "flash_page_reads") {
                outln!(
                    "  flash: {} reads ({} for mapping), {} programs ({} for mapping), {} erases",
                    n("reads"),
                    n("mapping_reads"),
                    n("programs"),
                    n("mapping_programs"),
                    n("erases")
                );
            }
        }
    }
    if let Some(path) = &args.per_request {
        std::fs::write(path, per_request)
            .map_err(|e| CliError::Failed(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

/// MQSim's working set as a share: outside 1-100 % it takes 100 %.
fn working_set_share(s: &Synthetic) -> f64 {
    if (1.0..=100.0).contains(&s.working_set_percent) {
        s.working_set_percent / 100.0
    } else {
        1.0
    }
}

/// What MQSim's preconditioning needs to draw a flow's occupied pages itself, for a synthetic flow it draws
/// uniformly (uniform, or hot/cold with a hot region over 30 %) with a fixed request size; `(first, last)` is
/// the flow's part of the logical space in sectors. Other flows' pages are picked uniformly by iosched.
fn preconditioned_addresses(flow: &Flow, (first, last): (u64, u64)) -> Option<MqsimFlowAddresses> {
    let FlowKind::Synthetic(s) = &flow.kind else { return None };
    let uniform = match s.address {
        Address::Uniform => true,
        Address::HotCold(hot_percent) => hot_percent > 30.0,
        Address::Streaming => false,
    };
    if !uniform || s.normal_size_sd_sectors.is_some() {
        return None;
    }
    let working_set = working_set_share(s);
    Some(MqsimFlowAddresses {
        seed: s.seed as u32,
        first_sector: first,
        last_sector: first + ((last - first) as f64 * working_set) as u64,
        size_sectors: s.size_sectors,
        align_sectors: (s.align_sectors > 1).then_some(s.align_sectors),
        occupancy: flow.occupancy_percent / 100.0,
        working_set,
        flow_sectors: last - first + 1,
    })
}

/// The scenario's workload and its device: the flows split the logical space into equal ranges in order, each
/// range holding its flow's occupancy (written first unless the drive, as MQSim's without preconditioning,
/// maps pages only when the run writes or reads them).
fn build(args: &SimArgs, scenario: &Scenario) -> Result<Built, CliError> {
    let n = scenario.flows.len() as f64;
    // A device file that asks for preconditioning ages each flow's range as that flow's writes would: MQSim
    // derives the steady state from the flow's address distribution (streaming: blocks wholly valid or stale;
    // otherwise a mix of both). A trace flow is aged as uniform random writes (MQSim classifies the trace's
    // addresses first).
    // MQSim's own logical ranges of the flows, for flows that draw their addresses as MQSim's do.
    let resources: Vec<_> = scenario.flows.iter().map(|f| f.resources.clone()).collect();
    let mqsim = iosched_device::spec::mqsim_flow_sector_ranges(&args.device, &resources).map_err(bad)?;
    let mut extra_warnings = Vec::new();
    if mqsim.is_none() && resources.iter().any(|r| r.iter().any(Option::is_some)) {
        extra_warnings.push(format!(
            "{}: the flows' Channel_IDs, Chip_IDs, Die_IDs and Plane_IDs apply to MQSim device files only: every flow \
             uses the whole drive",
            args.device
        ));
    }
    let mqsim_ranges = mqsim.as_ref().map(|m| &m.ranges);
    // Flows on part of the flash have MQSim's ranges (their planes' logical space, shared with the flows on
    // them); otherwise each flow has an equal part of the logical space.
    let unequal = mqsim.as_ref().filter(|m| m.partial);
    // Each flow's first sector and sectors as shares of the logical space.
    let share = |i: usize| match unequal {
        Some(m) => {
            let (r, total) = (&m.ranges, m.sectors as f64);
            (r[i].0 as f64 / total, (r[i].1 - r[i].0 + 1) as f64 / total)
        }
        None => (i as f64 / n, 1.0 / n),
    };
    let filled: Vec<Filled> = scenario
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| (i, f, f.preconditioned_share()))
        .map(|(i, f, (precondition_range, precondition_len))| Filled {
            start: share(i).0,
            len: f.occupancy_percent / 100.0 * share(i).1,
            precondition_range: precondition_range * share(i).1,
            precondition_len: precondition_len * share(i).1,
            resources: f.resources.clone(),
            aging: match &f.kind {
                FlowKind::Synthetic(s) if s.address == Address::Streaming => Aging::Sequential,
                _ => Aging::Random,
            },
            mqsim_addresses: mqsim_ranges.as_ref().and_then(|ranges| preconditioned_addresses(f, ranges[i])),
        })
        .collect();
    let (device, mut warnings) = load_spec_filled(&args.device, &filled).map_err(bad)?;
    warnings.append(&mut extra_warnings);
    let capacity = device.capacity_bytes();
    let range_bytes = capacity / scenario.flows.len() as u64 / 512 * 512;
    let mut jobs = Vec::new();
    let mut timed = Vec::new();
    // Over SATA's one stream, every command is counted as the first flow's, its caching mode too.
    let one_stream = mqsim.as_ref().is_some_and(|m| m.one_stream);
    for (i, flow) in scenario.flows.iter().enumerate() {
        let caching = if one_stream { scenario.flows[0].caching } else { flow.caching };
        let (start, range_bytes) = match unequal {
            Some(m) => (m.ranges[i].0 * 512, (m.ranges[i].1 - m.ranges[i].0 + 1) * 512),
            None => (range_bytes * i as u64, range_bytes),
        };
        match &flow.kind {
            FlowKind::Synthetic(s) => {
                if let (Some(sd), None) = (s.normal_size_sd_sectors, &mqsim_ranges) {
                    warnings.push(format!(
                        "{}: NORMAL request sizes (mean {}, standard deviation {sd} sectors) are drawn as MQSim draws \
                         them on an MQSim device file only: on {} every request is {} sectors",
                        flow.name, s.size_sectors, args.device, s.size_sectors
                    ));
                }
                let text = mqsim_workload::fio_job(&flow.name, s, flow.priority, caching, start, range_bytes);
                let mut parsed = iosched_workload::fio::parse_str(&text, &flow.name)
                    .map_err(|e| CliError::Failed(format!("{}: as a fio job: {e}", flow.name)))?;
                // On an MQSim device file, the flow issues the requests MQSim's flow issues (the same random
                // numbers).
                if let Some(ranges) = &mqsim_ranges {
                    let (first, last) = ranges[i];
                    let ws = working_set_share(s) * 100.0;
                    for job in &mut parsed {
                        job.mqsim_draws = Some(MqsimDraws {
                            seed: s.seed as u32,
                            read_share: s.read_percent as f64 / 100.0,
                            first_sector: first,
                            last_sector: first + ((last - first) as f64 * (ws / 100.0)) as u64,
                            size_sectors: s.size_sectors,
                            align_sectors: (s.align_sectors > 1).then_some(s.align_sectors),
                            streaming: s.address == Address::Streaming,
                            hot_share: match s.address {
                                Address::HotCold(hot_percent) => Some(hot_percent / 100.0),
                                _ => None,
                            },
                            normal_size_sd_sectors: s.normal_size_sd_sectors,
                            // MQSim's mean time between requests, in its integer arithmetic.
                            mean_interarrival_ns: match s.generator {
                                Generator::BandwidthBytesPerS(rate) => {
                                    let per_s = (rate as u32 / 512) / s.size_sectors.max(1) as u32;
                                    Some(1_000_000_000 / per_s.max(1) as u64)
                                }
                                Generator::QueueDepth(_) => None,
                            },
                        });
                    }
                }
                jobs.append(&mut parsed);
            }
            FlowKind::Trace { path, percent, relay_count } => {
                let t = trace::read(path, Some(Format::Mqsim)).map_err(bad)?;
                // MQSim's IO_Flow_Trace_Based executes Percentage_To_Be_Executed of the trace only when it is
                // replayed once; replayed more, every request of every round.
                let percent = if *relay_count > 1 { 100 } else { *percent };
                let kept = (t.records.len() as u64 * percent as u64 / 100) as usize;
                let records = &t.records[..kept];
                let too_long =
                    || bad(format!("{}: its times x {relay_count} relays do not fit in u64 ns", path.display()));
                // MQSim replays the file's own times (IO_Flow_Trace_Based registers each request at its time in
                // the file, not from the first), so a trace that starts late starts late beside the other flows;
                // and each round is offset by the time of the last request of the round before (its
                // time_offset), so a round spans the last request's time in the file.
                let span_ns = records.last().map_or(Some(0), |r| t.origin.checked_add(r.at_ns)).ok_or_else(too_long)?;
                span_ns.checked_mul(*relay_count as u64).ok_or_else(too_long)?;
                let range_sectors = range_bytes / 512;
                let mut requests = Vec::new();
                for relay in 0..*relay_count as u64 {
                    for r in records {
                        // MQSim's trace flow: an address past the flow's range wraps into it.
                        let lba = r.offset_bytes / 512;
                        let lba = if lba <= range_sectors { lba } else { lba % range_sectors.max(1) };
                        let len = r.len_bytes.min(range_bytes);
                        let offset = (start + lba * 512).min(start + range_bytes - len);
                        requests.push(TimedIo {
                            // The file's time, in its round. Checked above: the latest, the last round's last
                            // request, is the span times the rounds.
                            at_ns: relay * span_ns + t.origin + r.at_ns,
                            op: r.op,
                            offset_bytes: offset,
                            len_bytes: len,
                            stream: 0,
                            class: if flow.priority.fio().0 == 1 { IoClass::Rt } else { IoClass::Be },
                            level: flow.priority.fio().1,
                            sync: r.op == Op::Write,
                            fua: caching.bypass()[(r.op == Op::Write) as usize],
                        });
                    }
                }
                timed.push((flow.name.clone(), requests));
            }
        }
    }
    let mut workload = Workload::from_jobs(&jobs);
    for (name, requests) in timed {
        workload.add_timed(&name, requests);
    }
    if let Some(runtime) = &args.runtime {
        workload.override_runtime(super::parse_runtime_ns(runtime)?);
    }
    Ok(Built { workload, device, warnings })
}

/// A scenario ready to simulate.
struct Built {
    workload: Workload,
    device: Box<dyn iosched_device::Device>,
    warnings: Vec<String>,
}
