//! MQSim's workload file (`workload.xml`, `MQSim_IO_Scenarios`) as iosched workloads: each `IO_Scenario` is
//! one run on a fresh drive; each flow in it a source.
//!
//! What MQSim's code does with a flow (../shared/peers/mqsim/src/host, utils/Logical_Address_Partitioning_Unit),
//! and what iosched makes of it:
//! - The flows of a scenario that share the device split its logical space into consecutive ranges, in order:
//!   equal ones when every flow uses all of the flash; on an MQSim device file, each flow's the logical space
//!   of the planes its Channel_IDs, Chip_IDs, Die_IDs and Plane_IDs name, shared with the flows that name them
//!   too, and its pages placed on those planes only (iosched-device's ssd/ftl/pool_map.rs); a flow's
//!   `Initial_Occupancy_Percentage` of its range is written before the run.
//! - A synthetic flow draws addresses in the first `Working_Set_Percentage` of its range: RANDOM_UNIFORM,
//!   RANDOM_HOTCOLD (the first `Percentage_of_Hot_Region` of it takes the rest of the traffic: 100 - p of it),
//!   or STREAMING (sequential from a random start); aligned down to `Address_Alignment_Unit` sectors when
//!   `Generated_Aligned_Addresses`. QUEUE_DEPTH keeps `Average_No_of_Reqs_in_Queue` requests outstanding;
//!   BANDWIDTH issues at exponentially spaced times at `Bandwidth` bytes/s (MQSim reads no `Intensity` tag:
//!   the shipped file's is ignored by both). It stops at `Stop_Time` ns or after `Total_Requests_To_Generate`.
//!   It becomes a fio job (sizes and alignments in bytes), so iosched's generators, reports and logs apply.
//! - A trace flow replays an MQSim trace at its times, in nanoseconds as MQSim reads them whatever the flow's
//!   `Time_Unit` says (MQSim never uses the unit; a warning says so), its addresses wrapped into the flow's
//!   range as MQSim does, `Percentage_To_Be_Executed` of its requests when it is replayed once and all of them
//!   when `Relay_Count` is more, each round starting the trace's first time after the last request of the one
//!   before (MQSim replays the file's own times from there).
//! - NORMAL request sizes (mean Average_Request_Size, standard deviation Variance_Request_Size) are MQSim's own
//!   draws on an MQSim device file; on other devices the flow is a fio job, which has no such sizes: every
//!   request is the mean size, and a warning says so.
//! - A flow's `Device_Level_Data_Caching_Mode` (Data_Cache_Manager_Flash_Advanced.cpp): with the write cache
//!   (WRITE_CACHE, WRITE_READ_CACHE) its writes complete once in the drive's DRAM; without it (TURNED_OFF,
//!   READ_CACHE) they go to flash before completing, and with TURNED_OFF its reads go to flash whatever the
//!   cache holds (iosched: forced unit access). Reads with the cache on are served from it when it holds their
//!   page; MQSim's READ_CACHE and WRITE_READ_CACHE also keep the pages read from flash, which iosched does not
//!   (a warning says so).

use std::path::{Path, PathBuf};

/// One flow of a scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Flow {
    /// MQSim's name for it (Host.IO_Flow.Synth.No_N or Host.IO_Flow.Trace.PATH).
    pub name: String,
    pub occupancy_percent: f64,
    pub priority: Priority,
    pub caching: Caching,
    /// The flash resources the flow's data is placed on (its Channel_IDs, Chip_IDs, Die_IDs and Plane_IDs, each
    /// sorted without repeats as MQSim keeps them); None for a list not given: all of them.
    pub resources: [Option<Vec<u32>>; 4],
    pub kind: FlowKind,
}

/// A flow's resource lists, in the order of [`Flow::resources`].
pub const RESOURCE_TAGS: [&str; 4] = ["Channel_IDs", "Chip_IDs", "Die_IDs", "Plane_IDs"];

/// MQSim's `Device_Level_Data_Caching_Mode` of a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caching {
    TurnedOff,
    ReadCache,
    WriteCache,
    WriteReadCache,
}

impl Caching {
    /// Whether the flow's reads and writes bypass the drive's data cache (forced unit access): [read, write].
    pub fn bypass(self) -> [bool; 2] {
        match self {
            Caching::TurnedOff => [true, true],
            Caching::ReadCache => [false, true],
            Caching::WriteCache | Caching::WriteReadCache => [false, false],
        }
    }
}

/// MQSim's flow priority classes. URGENT is served first on every chip (iosched: the real-time I/O class);
/// HIGH, MEDIUM and LOW share by weighted round robin in MQSim, which iosched approximates by best-effort
/// levels 0, 4 and 7 (its SSD serves those in arrival order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    Urgent,
    High,
    Medium,
    Low,
}

impl Priority {
    /// fio's prioclass and prio for it.
    pub fn fio(self) -> (u32, u8) {
        match self {
            Priority::Urgent => (1, 0),
            Priority::High => (2, 0),
            Priority::Medium => (2, 4),
            Priority::Low => (2, 7),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum FlowKind {
    Synthetic(Synthetic),
    /// Times in the file are nanoseconds (MQSim's reading, whatever the flow's Time_Unit says).
    Trace {
        path: PathBuf,
        percent: u32,
        relay_count: u32,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Synthetic {
    pub read_percent: u32,
    pub address: Address,
    /// Alignment of addresses in sectors (1: none).
    pub align_sectors: u64,
    pub size_sectors: u64,
    /// Request_Size_Distribution NORMAL: the sizes' standard deviation in sectors (Variance_Request_Size, which
    /// MQSim takes as one); `size_sectors` is their mean.
    pub normal_size_sd_sectors: Option<u64>,
    pub seed: u64,
    pub generator: Generator,
    pub stop_time_ns: u64,
    pub total_requests: u64,
    pub working_set_percent: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Address {
    Uniform,
    /// The hot region's share of the working set, percent (it takes 100 minus that of the traffic).
    HotCold(f64),
    Streaming,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Generator {
    QueueDepth(u32),
    BandwidthBytesPerS(u64),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub flows: Vec<Flow>,
}

/// A workload file read: its scenarios and what iosched does differently from MQSim with them.
#[derive(Clone, Debug)]
pub struct MqsimWorkload {
    pub scenarios: Vec<Scenario>,
    pub warnings: Vec<String>,
}

/// Read `path`; trace paths are taken relative to the file's folder, as MQSim (run from that folder) does.
pub fn load(path: &Path) -> Result<MqsimWorkload, String> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read MQSim workload file {file}: {e}"))?;
    parse(&text, &file, path.parent().unwrap_or(Path::new(".")))
}

struct Fields<'a, 'input> {
    file: &'a str,
    doc: &'a roxmltree::Document<'input>,
    node: roxmltree::Node<'a, 'input>,
}

impl Fields<'_, '_> {
    fn line(&self, node: roxmltree::Node) -> u32 {
        self.doc.text_pos_at(node.range().start).row
    }

    fn text(&self, tag: &str) -> Result<(String, u32), String> {
        match self.node.children().find(|n| n.has_tag_name(tag)) {
            Some(n) => Ok((n.text().unwrap_or("").trim().to_string(), self.line(n))),
            None => Err(format!("{}:{}: this flow has no <{tag}>", self.file, self.line(self.node))),
        }
    }

    fn optional(&self, tag: &str) -> Option<(String, u32)> {
        self.node
            .children()
            .find(|n| n.has_tag_name(tag))
            .map(|n| (n.text().unwrap_or("").trim().to_string(), self.line(n)))
    }

    fn number(&self, tag: &str, min: f64, max: f64) -> Result<f64, String> {
        let (v, line) = self.text(tag)?;
        match v.parse::<f64>() {
            Ok(x) if x.is_finite() && x >= min && x <= max => Ok(x),
            _ => Err(format!("{}:{line}: <{tag}>: expected a number from {min} to {max}, found '{v}'", self.file)),
        }
    }

    fn int(&self, tag: &str, min: u64, max: u64) -> Result<u64, String> {
        let (v, line) = self.text(tag)?;
        match v.parse::<u64>() {
            Ok(x) if x >= min && x <= max => Ok(x),
            _ => Err(format!("{}:{line}: <{tag}>: expected an integer from {min} to {max}, found '{v}'", self.file)),
        }
    }

    fn word(&self, tag: &str, options: &[&str]) -> Result<String, String> {
        let (v, line) = self.text(tag)?;
        let upper = v.to_ascii_uppercase();
        if options.contains(&upper.as_str()) {
            Ok(upper)
        } else {
            Err(format!("{}:{line}: <{tag}>: expected one of {}, found '{v}'", self.file, options.join(", ")))
        }
    }
}

/// Parse a workload file's text; `file` names it in errors and `folder` is where its trace paths start.
pub fn parse(text: &str, file: &str, folder: &Path) -> Result<MqsimWorkload, String> {
    let doc = roxmltree::Document::parse(text).map_err(|e| format!("{file}: not XML: {e}"))?;
    let root = doc.root_element();
    let line_of = |n: roxmltree::Node| doc.text_pos_at(n.range().start).row;
    if root.tag_name().name() != "MQSim_IO_Scenarios" {
        return Err(format!(
            "{file}:{}: expected MQSim's <MQSim_IO_Scenarios> (a workload file such as workload.xml), found <{}>",
            line_of(root),
            root.tag_name().name()
        ));
    }
    let mut scenarios = Vec::new();
    let mut warnings = Vec::new();
    for scenario in root.children().filter(|n| n.is_element()) {
        if !scenario.has_tag_name("IO_Scenario") {
            return Err(format!(
                "{file}:{}: expected <IO_Scenario>, found <{}>",
                line_of(scenario),
                scenario.tag_name().name()
            ));
        }
        let mut flows = Vec::new();
        for (index, node) in scenario.children().filter(|n| n.is_element()).enumerate() {
            let f = Fields { file, doc: &doc, node };
            let occupancy_percent = f.number("Initial_Occupancy_Percentage", 0.0, 100.0)?;
            let priority = match f.optional("Priority_Class") {
                None => Priority::High,
                Some(_) => match f.word("Priority_Class", &["URGENT", "HIGH", "MEDIUM", "LOW"])?.as_str() {
                    "URGENT" => Priority::Urgent,
                    "MEDIUM" => Priority::Medium,
                    "LOW" => Priority::Low,
                    _ => Priority::High,
                },
            };
            // MQSim leaves the mode unset when the tag is absent; the shipped file's WRITE_CACHE is taken then.
            let caching = match f.optional("Device_Level_Data_Caching_Mode") {
                None => Caching::WriteCache,
                Some((_, line)) => {
                    let mode = f.word(
                        "Device_Level_Data_Caching_Mode",
                        &["TURNED_OFF", "READ_CACHE", "WRITE_CACHE", "WRITE_READ_CACHE"],
                    )?;
                    if mode.contains("READ_CACHE") {
                        warnings.push(format!(
                            "{file}:{line}: {mode}: pages read from flash are not kept in the data cache (MQSim \
                             keeps them); reads are served from it only when it holds data written"
                        ));
                    }
                    match mode.as_str() {
                        "TURNED_OFF" => Caching::TurnedOff,
                        "READ_CACHE" => Caching::ReadCache,
                        "WRITE_READ_CACHE" => Caching::WriteReadCache,
                        _ => Caching::WriteCache,
                    }
                }
            };
            let mut resources: [Option<Vec<u32>>; 4] = Default::default();
            for (slot, tag) in resources.iter_mut().zip(RESOURCE_TAGS) {
                if let Some((v, line)) = f.optional(tag) {
                    let mut ids = v
                        .split(',')
                        .map(|id| id.trim().parse::<u32>().ok().filter(|&id| id < 1 << 16))
                        .collect::<Option<Vec<u32>>>()
                        .filter(|ids| !ids.is_empty())
                        .ok_or_else(|| {
                            format!("{file}:{line}: <{tag}>: expected numbers separated by commas, found '{v}'")
                        })?;
                    ids.sort_unstable();
                    ids.dedup();
                    *slot = Some(ids);
                }
            }
            let kind = match node.tag_name().name() {
                "IO_Flow_Parameter_Set_Synthetic" => FlowKind::Synthetic(synthetic(&f)?),
                "IO_Flow_Parameter_Set_Trace_Based" => {
                    let (path, _) = f.text("File_Path")?;
                    // MQSim stores Time_Unit but IO_Flow_Trace_Based never uses it: a trace's times are nanoseconds
                    // whatever it says. iosched reads them as MQSim does, and says so when the tag says otherwise.
                    let unit = f.word("Time_Unit", &["PICOSECOND", "NANOSECOND", "MICROSECOND"])?;
                    if unit != "NANOSECOND" {
                        let (_, line) = f.text("Time_Unit")?;
                        warnings.push(format!(
                            "{file}:{line}: Time_Unit {unit}: MQSim reads a trace's times as nanoseconds whatever \
                             this says (its IO_Flow_Trace_Based never uses the unit); so does iosched"
                        ));
                    }
                    FlowKind::Trace {
                        path: folder.join(&path),
                        percent: f.int("Percentage_To_Be_Executed", 0, 100)? as u32,
                        relay_count: f.int("Relay_Count", 1, 1000)? as u32,
                    }
                }
                other => {
                    return Err(format!(
                        "{file}:{}: expected IO_Flow_Parameter_Set_Synthetic or IO_Flow_Parameter_Set_Trace_Based, \
                         found <{other}>",
                        line_of(node)
                    ))
                }
            };
            let name = match &kind {
                FlowKind::Synthetic(_) => format!("Host.IO_Flow.Synth.No_{index}"),
                FlowKind::Trace { .. } => format!("Host.IO_Flow.Trace.{}", f.text("File_Path")?.0),
            };
            flows.push(Flow { name, occupancy_percent, priority, caching, resources, kind });
        }
        if flows.is_empty() {
            return Err(format!("{file}:{}: a scenario with no flows", line_of(scenario)));
        }
        scenarios.push(Scenario { flows });
    }
    if scenarios.is_empty() {
        return Err(format!("{file}: no <IO_Scenario>"));
    }
    Ok(MqsimWorkload { scenarios, warnings })
}

fn synthetic(f: &Fields) -> Result<Synthetic, String> {
    let address = match f.word("Address_Distribution", &["RANDOM_UNIFORM", "RANDOM_HOTCOLD", "STREAMING"])?.as_str() {
        "RANDOM_UNIFORM" => Address::Uniform,
        "RANDOM_HOTCOLD" => Address::HotCold(f.number("Percentage_of_Hot_Region", 0.0, 100.0)?),
        _ => Address::Streaming,
    };
    let aligned = f.word("Generated_Aligned_Addresses", &["TRUE", "FALSE"])? == "TRUE";
    let align_sectors = if aligned { f.int("Address_Alignment_Unit", 1, 1 << 30)? } else { 1 };
    let size_sectors = f.int("Average_Request_Size", 1, 1 << 24)?;
    let normal_size_sd_sectors = match f.word("Request_Size_Distribution", &["FIXED", "NORMAL"])?.as_str() {
        "NORMAL" => Some(f.int("Variance_Request_Size", 0, i32::MAX as u64)?),
        _ => None,
    };
    let generator = match f.word("Synthetic_Generator_Type", &["QUEUE_DEPTH", "BANDWIDTH"])?.as_str() {
        "QUEUE_DEPTH" => Generator::QueueDepth(f.int("Average_No_of_Reqs_in_Queue", 1, 65535)? as u32),
        _ => Generator::BandwidthBytesPerS(f.int("Bandwidth", 1, u64::MAX >> 1)?),
    };
    let stop_time_ns = f.int("Stop_Time", 0, u64::MAX >> 1)?;
    let total_requests = f.int("Total_Requests_To_Generate", 0, u64::MAX >> 1)?;
    if stop_time_ns == 0 && total_requests == 0 {
        let (_, line) = f.text("Stop_Time")?;
        return Err(format!("{}:{line}: a synthetic flow needs a Stop_Time or a Total_Requests_To_Generate", f.file));
    }
    Ok(Synthetic {
        read_percent: f.int("Read_Percentage", 0, 100)? as u32,
        address,
        align_sectors,
        size_sectors,
        normal_size_sd_sectors,
        seed: f.int("Seed", 0, u32::MAX as u64)?,
        generator,
        stop_time_ns,
        total_requests,
        working_set_percent: f.number("Working_Set_Percentage", 0.0, 100.0)?,
    })
}

impl Flow {
    /// Where MQSim's preconditioning (`Enabled_Preconditioning`) puts this flow's occupied pages, as shares of
    /// the flow's own range: (the part it picks them from, starting at the range's first page; how many).
    /// MQSim's FTL.cpp (Perform_precondition, step 1) picks `Initial_Occupancy_Percentage` of the range among
    /// the working set's addresses, but when the working set holds fewer than 1.1 times that (uniform traffic,
    /// or hot/cold traffic whose hot share is over 30 %, which it treats as uniform) it picks from the whole
    /// range, and when even that is too few it takes 90 % of the range; a streaming flow takes at most its
    /// range; hot/cold traffic otherwise picks from its working set widened to the whole range when short.
    /// A trace flow is taken as uniform traffic over its range (MQSim picks the trace's own addresses first).
    pub fn preconditioned_share(&self) -> (f64, f64) {
        let occupancy = self.occupancy_percent / 100.0;
        let (address, working_set) = match &self.kind {
            FlowKind::Synthetic(s) => (s.address, s.working_set_percent / 100.0),
            FlowKind::Trace { .. } => (Address::Uniform, 1.0),
        };
        // MQSim treats hot/cold traffic whose hot share is over 30 % as uniform.
        let uniform = match address {
            Address::Uniform => true,
            Address::HotCold(hot) => hot > 30.0,
            Address::Streaming => false,
        };
        if !uniform {
            let range = if working_set < occupancy { 1.0 } else { working_set };
            (range, occupancy.min(range))
        } else if working_set >= 1.1 * occupancy {
            (working_set, occupancy)
        } else if 1.0 >= 1.1 * occupancy {
            (1.0, occupancy)
        } else {
            (1.0, 0.9)
        }
    }
}

/// A synthetic flow as fio job text over the byte range `start..start + len` of the device.
pub fn fio_job(
    name: &str,
    s: &Synthetic,
    priority: Priority,
    caching: Caching,
    start_bytes: u64,
    len_bytes: u64,
) -> String {
    const SECTOR: u64 = 512;
    let working = ((len_bytes as f64 * s.working_set_percent / 100.0) as u64 / SECTOR).max(s.size_sectors) * SECTOR;
    let bs = s.size_sectors * SECTOR;
    let mut job = format!(
        "[{name}]\nioengine=libaio\ndirect=1\nbs={bs}\noffset={start_bytes}\nsize={working}\nrandseed={}\n",
        s.seed
    );
    let read = s.read_percent;
    let (class, level) = priority.fio();
    job += &format!("prioclass={class}\nprio={level}\n");
    let [read_fua, write_fua] = caching.bypass();
    job += &format!("readfua={}\nwritefua={}\n", read_fua as u8, write_fua as u8);
    match s.address {
        Address::Streaming => job += &format!("rw=rw\nrwmixread={read}\n"),
        Address::Uniform | Address::HotCold(_) => {
            job += &format!("rw=randrw\nrwmixread={read}\nnorandommap=1\nblockalign={}\n", s.align_sectors * SECTOR)
        }
    }
    if let Address::HotCold(hot) = s.address {
        job += &format!("random_distribution=zoned:{}/{hot}:{hot}/{}\n", 100.0 - hot, 100.0 - hot);
    }
    match s.generator {
        Generator::QueueDepth(depth) => job += &format!("iodepth={depth}\n"),
        Generator::BandwidthBytesPerS(rate) => {
            job += &format!("iodepth=65535\nrate_iops={}\nrate_process=poisson\n", (rate / bs).max(1))
        }
    }
    if s.stop_time_ns > 0 {
        job += &format!("runtime={}us\ntime_based=1\n", s.stop_time_ns.div_ceil(1000));
    }
    if s.total_requests > 0 {
        job += &format!("number_ios={}\n", s.total_requests);
    }
    job
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHIPPED: &str = include_str!("../tests/data/mqsim-workload.xml");

    #[test]
    fn the_shipped_file_gives_three_scenarios() {
        let w = parse(SHIPPED, "workload.xml", Path::new("/x")).unwrap();
        assert_eq!(w.scenarios.len(), 3);
        let first = &w.scenarios[0].flows;
        assert_eq!(first.len(), 2);
        assert_eq!(first[1].name, "Host.IO_Flow.Synth.No_1");
        let FlowKind::Synthetic(s) = &first[0].kind else { panic!("synthetic") };
        assert_eq!((s.read_percent, s.size_sectors, s.align_sectors, s.seed), (0, 8, 16, 798));
        assert_eq!(s.generator, Generator::QueueDepth(16));
        assert_eq!(s.stop_time_ns, 10_000_000_000);
        let FlowKind::Trace { path, percent, .. } = &w.scenarios[2].flows[0].kind else { panic!("trace") };
        assert_eq!((path.as_path(), *percent), (Path::new("/x/traces/tpcc-small.trace"), 100));
        assert_eq!(w.scenarios[2].flows[0].occupancy_percent, 70.0);
    }

    #[test]
    fn a_flows_caching_mode_decides_what_bypasses_the_cache() {
        let w = parse(SHIPPED, "workload.xml", Path::new("/x")).unwrap();
        assert!(w.scenarios.iter().flat_map(|s| &s.flows).all(|f| f.caching == Caching::WriteCache));
        assert!(w.warnings.is_empty(), "{:?}", w.warnings);
        let off = parse(&SHIPPED.replace(">WRITE_CACHE<", ">turned_off<"), "w.xml", Path::new("/x")).unwrap();
        let flow = &off.scenarios[0].flows[0];
        assert_eq!(flow.caching, Caching::TurnedOff);
        let FlowKind::Synthetic(s) = &flow.kind else { panic!("synthetic") };
        let text = fio_job("f", s, flow.priority, flow.caching, 0, 1 << 30);
        assert!(text.contains("readfua=1\nwritefua=1\n"), "{text}");
        let text = fio_job("f", s, flow.priority, Caching::ReadCache, 0, 1 << 30);
        assert!(text.contains("readfua=0\nwritefua=1\n"), "{text}");
        // Read caching is not modelled: said.
        let rc = parse(&SHIPPED.replacen(">WRITE_CACHE<", ">WRITE_READ_CACHE<", 1), "w.xml", Path::new("/x")).unwrap();
        assert!(rc.warnings.iter().any(|w| w.starts_with("w.xml:") && w.contains("not kept")), "{:?}", rc.warnings);
        let e = parse(&SHIPPED.replacen(">WRITE_CACHE<", ">SOMETIMES<", 1), "w.xml", Path::new("/x")).unwrap_err();
        assert!(e.contains("Device_Level_Data_Caching_Mode") && e.contains("TURNED_OFF"), "{e}");
    }

    #[test]
    fn a_traces_times_are_nanoseconds_whatever_its_time_unit_says_as_in_mqsim() {
        let us = SHIPPED.replace(">NANOSECOND<", ">MICROSECOND<");
        let w = parse(&us, "w.xml", Path::new("/x")).unwrap();
        // (That the times are read as nanoseconds is shown through `iosched sim`, in the test
        // a_traces_time_unit_changes_nothing_as_in_mqsim.)
        assert!(matches!(w.scenarios[2].flows[0].kind, FlowKind::Trace { .. }));
        let line: usize = w.warnings[0].split(':').nth(1).unwrap().parse().unwrap();
        assert!(us.lines().nth(line - 1).unwrap().contains("Time_Unit"), "{:?}", w.warnings);
        assert!(parse(SHIPPED, "w.xml", Path::new("/x")).unwrap().warnings.is_empty());
    }

    #[test]
    fn preconditioning_occupies_what_mqsims_ftl_picks() {
        let w = parse(SHIPPED, "workload.xml", Path::new("/x")).unwrap();
        let mut flow = w.scenarios[0].flows[0].clone();
        let FlowKind::Synthetic(s) = &mut flow.kind else { panic!("synthetic") };
        s.address = Address::Uniform;
        s.working_set_percent = 100.0;
        flow.occupancy_percent = 95.0;
        // A whole range short of 1.1 x 95 %: MQSim takes 90 % of it.
        assert_eq!(flow.preconditioned_share(), (1.0, 0.9));
        flow.occupancy_percent = 50.0;
        assert_eq!(flow.preconditioned_share(), (1.0, 0.5));
        // A working set of 60 % holds 1.1 x 50 %: the pages are picked there.
        let FlowKind::Synthetic(s) = &mut flow.kind else { panic!("synthetic") };
        s.working_set_percent = 60.0;
        assert_eq!(flow.preconditioned_share(), (0.6, 0.5));
        // A streaming flow takes its occupancy, from the whole range when its working set is smaller.
        let FlowKind::Synthetic(s) = &mut flow.kind else { panic!("synthetic") };
        s.address = Address::Streaming;
        s.working_set_percent = 40.0;
        assert_eq!(flow.preconditioned_share(), (1.0, 0.5));
    }

    #[test]
    fn bad_values_name_the_file_and_line() {
        let bad = SHIPPED.replacen("<Read_Percentage>0<", "<Read_Percentage>half<", 1);
        let e = parse(&bad, "w.xml", Path::new(".")).unwrap_err();
        let line: usize = e.split(':').nth(1).unwrap().parse().unwrap();
        assert!(bad.lines().nth(line - 1).unwrap().contains("Read_Percentage"), "{e}");
        assert!(e.contains("'half'"), "{e}");
        let e = parse("<MQSim_IO_Scenarios></MQSim_IO_Scenarios>", "w.xml", Path::new(".")).unwrap_err();
        assert!(e.contains("no <IO_Scenario>"), "{e}");
    }

    #[test]
    fn non_finite_negative_and_huge_numbers_are_refused_with_the_line() {
        for (tag, value) in [
            ("Initial_Occupancy_Percentage", "nan"),
            ("Working_Set_Percentage", "inf"),
            ("Read_Percentage", "-1"),
            ("Average_Request_Size", "0"),
            ("Average_No_of_Reqs_in_Queue", "99999999999999999999"),
            ("Stop_Time", "1e3"),
        ] {
            let open = format!("<{tag}>");
            let start = SHIPPED.find(&open).unwrap() + open.len();
            let end = start + SHIPPED[start..].find('<').unwrap();
            let bad = format!("{}{value}{}", &SHIPPED[..start], &SHIPPED[end..]);
            let e = parse(&bad, "w.xml", Path::new(".")).unwrap_err();
            assert!(e.starts_with("w.xml:") && e.contains(tag) && e.contains(value), "{tag}={value}: {e}");
        }
    }

    #[test]
    fn a_synthetic_flow_is_a_fio_job() {
        let w = parse(SHIPPED, "workload.xml", Path::new(".")).unwrap();
        let FlowKind::Synthetic(s) = &w.scenarios[1].flows[0].kind else { panic!("synthetic") };
        let text = fio_job("f", s, Priority::Urgent, Caching::WriteCache, 1 << 30, 1 << 30);
        for line in
            ["prioclass=1", "rw=randrw", "rwmixread=100", "bs=4096", "blockalign=8192", "iodepth=16", "size=536870912"]
        {
            assert!(text.lines().any(|l| l == line), "{line} in {text}");
        }
        let jobs = crate::fio::parse_str(&text, "f.fio").unwrap();
        assert_eq!(jobs[0].iodepth, 16);
    }
}
