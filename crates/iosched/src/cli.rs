//! The arguments, as clap reads them.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "iosched",
    version,
    // Help wraps to the terminal, and to 100 columns at most (or when not on a terminal).
    max_term_width = 100,
    about = "Disk I/O scheduling in user space: pluggable policies, a deterministic simulator, fio-compatible reports",
    long_about = None,
    after_help = "Start with 'iosched demo' (the geom-sched experiment: every policy, a sequential stream against a \
                  random one) or 'iosched sim JOBFILE' (a fio job file through one policy)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List the scheduling policies and their tunables
    Policies {
        /// Print JSON: every policy with its tunables, defaults and descriptions
        #[arg(long)]
        json: bool,
    },
    /// List the device models (the kinds of --device spec), their presets and keys
    Devices {
        /// Print JSON: every kind with its form, presets and keys
        #[arg(long)]
        json: bool,
    },
    /// Simulate a fio job file or a block trace through a policy on a device model
    Sim(SimArgs),
    /// How iosched reads each fio job-file option: modelled, accepted without effect (and why), or refused
    /// (and why); and which I/O engines it takes
    FioOptions {
        /// Print JSON: the three lists and the engines
        #[arg(long)]
        json: bool,
    },
    /// Run a fio job file live: real I/O through io_uring to the file or block device it names, through a policy
    Run(RunArgs),
    /// Insert a scheduler in front of a directory: mount a FUSE passthrough over DIR itself, so that every
    /// program's reads and writes under it go through the policy
    Insert(InsertArgs),
    /// Mount a scheduling FUSE passthrough of SOURCE at a separate MOUNTPOINT
    Create(CreateArgs),
    /// Remove a mount made by insert or create: detach it, let every request in flight complete, then stop
    Destroy(DestroyArgs),
    /// Change the policy or tunables of a running live engine (iosched run, or a mount) on the fly
    Configure(ConfigureArgs),
    /// The report so far of a running live engine (iosched run, or a mount)
    Stats(StatsArgs),
    /// A live view of a running engine: throughput, IOPS, latency and queues per flow and per class
    Top(TopArgs),
    /// Replay a DiskSim validation trace on a DiskSim drive and report the demerit against the measured times
    Validate(ValidateArgs),
    /// Run a seed experiment (geom-sched, netflix-fill, bfq-startup, dbload) or a folder of the same shape
    Experiment(ExperimentArgs),
    /// Simulate a grid of policies x tunable values x devices x job files, in parallel
    Sweep(SweepArgs),
    /// Print a shell completion script: bash, zsh, fish, elvish or powershell
    #[command(after_help = "bash: iosched completions bash > ~/.local/share/bash-completion/completions/iosched\n\
zsh: iosched completions zsh > ~/.zfunc/_iosched (with fpath+=~/.zfunc before compinit)\n\
fish: iosched completions fish > ~/.config/fish/completions/iosched.fish")]
    Completions {
        /// The shell
        shell: clap_complete::Shell,
    },
    /// Print a man page (roff): iosched man > iosched.1; man ./iosched.1
    Man {
        /// A subcommand's own page (iosched-sim(1) for 'sim'), with all its options
        subcommand: Option<String>,
    },
    /// The geom-sched experiment: a sequential reader or writer against cvs on a 2008 SATA disk, every policy
    Demo {
        /// Print the experiment's JSON
        #[arg(long)]
        json: bool,
        /// Also write a self-contained HTML report with plots
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
    },
}

#[derive(Args, Debug)]
#[command(after_help = "Each experiment is a folder of fio job files and an experiment.toml (device, policies and \
their settings, cases, what to measure). 'iosched experiment geom-sched --export DIR' copies one to edit; \
'iosched experiment DIR' runs the copy.")]
pub struct ExperimentArgs {
    /// A built-in experiment's name, or a folder with an experiment.toml
    pub name: Option<String>,
    /// Print JSON: {"experiment": NAME, "results": [...]}
    #[arg(long)]
    pub json: bool,
    /// Also write a self-contained HTML report with SVG plots
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Only these policies (labels of the description, comma-separated)
    #[arg(long, value_name = "A,B,...")]
    pub policies: Option<String>,
    /// Simulations to run at once (default: the number of cores)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,
    /// List the built-in experiments
    #[arg(long)]
    pub list: bool,
    /// Copy the built-in experiment's files into this new folder instead of running it
    #[arg(long, value_name = "DIR")]
    pub export: Option<PathBuf>,
}

#[derive(Args, Debug)]
#[command(after_help = "Give fio job files, one or more --trace files, or both (they run together).\n\
Trace formats: blkparse, blktrace, msr, spc, alibaba, tencent, fiu, disksim, disksim-validate, mqsim, iolog2, iolog3.")]
pub struct SimArgs {
    /// fio job files (several run together, as if one file)
    pub jobfiles: Vec<PathBuf>,
    /// A block trace to replay (repeatable: each is its own source, for example blktrace's per-CPU files)
    #[arg(long = "trace", value_name = "FILE")]
    pub traces: Vec<PathBuf>,
    /// The traces' format (default: detected from the content)
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
    /// How to replay traces: open (at the recorded times), open:SCALE (times x SCALE), closed:N (N outstanding),
    /// afap (everything at once)
    #[arg(long, default_value = "open", value_name = "MODE")]
    pub replay: String,
    /// Device model: simple[,latency_us=N,bandwidth_mb_per_s=N,flush_us=N,queue_depth=N,capacity_gib=N],
    /// hdd:sata7200 (or hdd:FILE.toml), disksim:FILE.parv, ssd:nvme or ssd:netflix (keys such as capacity_gib, op,
    /// precondition=fresh|steady, trim=queued|nonqueued), mqsim:FILE.xml (MQSim's device file), volume:N:SPEC (N
    /// disks joined end to end, each with its own instance of the policy)
    #[arg(long, default_value = iosched_device::spec::DEFAULT_SPEC)]
    pub device: String,
    /// Scheduling policy (see 'iosched policies')
    #[arg(long, default_value = "noop")]
    pub policy: String,
    /// Set a policy tunable, for example --set batch=16 (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Switch to another policy at a simulated time, handing over every queued request, for example
    /// --switch-at 2s:deadline or --switch-at 500ms:elevator,batch=16 (repeatable)
    #[arg(long = "switch-at", value_name = "TIME:POLICY[,KEY=VALUE...]")]
    pub switch_at: Vec<String>,
    /// Override every job's runtime, in seconds
    #[arg(long, value_name = "SECONDS")]
    pub runtime: Option<String>,
    /// Run only the job section NAME of the job files, as fio's --section ([global] sections still apply;
    /// repeatable)
    #[arg(long = "section", value_name = "NAME")]
    pub sections: Vec<String>,
    /// Seed of the random streams: the same seed gives the same results
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print fio's JSON schema (plus an "iosched" object) instead of a table
    #[arg(long)]
    pub json: bool,
    /// As fio's --output-format: normal (the table), json (as --json), or json+ (JSON with each latency
    /// histogram in fio's buckets, which fio_jsonplus_clat2csv reads)
    #[arg(long, value_name = "FORMAT", value_parser = ["normal", "json", "json+"])]
    pub output_format: Option<String>,
    /// Write every request the run issued as a fio iolog (version 3), which 'fio --read_iolog' replays
    #[arg(long, value_name = "FILE")]
    pub write_iolog: Option<PathBuf>,
    /// The file name the iolog's requests go to, which 'fio --read_iolog' opens: by default the jobs' shared
    /// filename=, else iosched.dev (then replay with fio's --replay_redirect=PATH)
    #[arg(long, value_name = "NAME", requires = "write_iolog")]
    pub iolog_filename: Option<String>,
    /// Write every request the run issued as blkparse text (Q, D and C events)
    #[arg(long, value_name = "FILE")]
    pub write_blkparse: Option<PathBuf>,
    /// Run MQSim's workload file (MQSim_IO_Scenarios): each scenario on a fresh device, results per flow
    /// (use with --device mqsim:ssdconfig.xml to run MQSim's drive)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["jobfiles", "traces"])]
    pub mqsim_workload: Option<PathBuf>,
    /// With --mqsim-workload: run only this scenario (numbered from 1)
    #[arg(long, value_name = "N", requires = "mqsim_workload")]
    pub scenario: Option<usize>,
    /// With --mqsim-workload: write every request as CSV (scenario, flow, op, offset, bytes, arrival_ns,
    /// response_ns) to compare with MQSim request by request
    #[arg(long, value_name = "FILE", requires = "mqsim_workload")]
    pub per_request: Option<PathBuf>,
}

#[derive(Args, Debug)]
#[command(
    after_help = "Example: iosched sweep job.fio --policies noop,deadline,bfq --grid fifo_batch=1,16 \
--device hdd:sata7200 --device ssd:nvme --seeds 1-3 --parquet sweep.parquet\n\
On a cluster without Ray (a Slurm job array): 'iosched sweep ... --list' shows the points; each task runs \
'iosched sweep ... --shard K/N --out DIR' (point i goes to shard i mod N + 1, its seed tied to the point); \
'iosched sweep merge DIR' combines the shards into the table one run would give.",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct SweepArgs {
    #[command(subcommand)]
    pub command: Option<SweepCommand>,
    /// fio job files (each is one axis value)
    #[arg(required = true)]
    pub jobfiles: Vec<PathBuf>,
    /// Policies, comma-separated
    #[arg(long, default_value = "noop,deadline,bfq")]
    pub policies: String,
    /// A tunable and its values, KEY=V1,V2,... (repeatable); applied to the policies that have it
    #[arg(long = "grid", value_name = "KEY=V1,V2")]
    pub grid: Vec<String>,
    /// A device spec (repeatable; default: the simple device)
    #[arg(long = "device", value_name = "SPEC")]
    pub devices: Vec<String>,
    /// Override every job's runtime, in seconds
    #[arg(long, value_name = "SECONDS")]
    pub runtime: Option<String>,
    /// Run only the job section NAME of each job file, as fio's --section ([global] sections still apply;
    /// repeatable)
    #[arg(long = "section", value_name = "NAME")]
    pub sections: Vec<String>,
    /// Seed of the random streams
    #[arg(long, default_value_t = 1, conflicts_with = "seeds")]
    pub seed: u64,
    /// Several seeds, each point run once per seed: a list and ranges, for example 1-5 or 1,2,10-12
    #[arg(long, value_name = "LIST")]
    pub seeds: Option<String>,
    /// Simulations to run at once (default: the number of cores)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,
    /// Print one JSON object per point instead of a table (with --list: one per point to run)
    #[arg(long)]
    pub json: bool,
    /// Write the table (a row per point, job and direction, with its latency histogram) as Parquet
    #[arg(long, value_name = "FILE")]
    pub parquet: Option<PathBuf>,
    /// List the points (index, job file, device, policy, settings, seed) without running them
    #[arg(long)]
    pub list: bool,
    /// Run only shard K of N: the points whose index is K-1 modulo N
    #[arg(long, value_name = "K/N", requires = "out")]
    pub shard: Option<String>,
    /// With --shard: the folder the shard's table goes into (shard-K-of-N.parquet), for 'iosched sweep merge'
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum SweepCommand {
    /// Combine the shards of a sweep (the folders given to --out) into its table and summary
    Merge(SweepMergeArgs),
}

#[derive(Args, Debug)]
pub struct SweepMergeArgs {
    /// Folders of shard-K-of-N.parquet files, or the files themselves
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Write the merged table as Parquet
    #[arg(long, value_name = "FILE")]
    pub parquet: Option<PathBuf>,
    /// Print the summary as JSON lines instead of a table
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
#[command(after_help = "The demerit is computed as DiskSim's rms tool computes it: on the simulated and measured \
access-time distributions counted into the buckets of the statdefs file the .parv names ('Stat definition file', \
looked for next to the .parv; DiskSim's shipped buckets if it names none), interpolating between bucket bounds. \
That is the figure to compare with DiskSim's. The same distance between the requests' own times, not bucketed, is \
printed under it (rms_exact_ms in JSON).\n\
Example: iosched validate --disksim ../shared/data/disksim/hp_c2247a.parv --trace \
../shared/data/disksim/hp_c2247a.trace")]
pub struct ValidateArgs {
    /// The drive: a DiskSim .parv file (its .diskspecs, .model and .seek files are found beside it), optionally
    /// followed by the keys a disksim: device spec takes (FILE.parv,conform=disksim)
    #[arg(long, value_name = "FILE.parv[,key=value...]")]
    pub disksim: String,
    /// A trace in DiskSim's validate format: R|W action blkno bcount servtime_us nextinter_us
    #[arg(long, value_name = "FILE.trace", required_unless_present = "synthetic", conflicts_with = "synthetic")]
    pub trace: Option<PathBuf>,
    /// Instead of a trace: N requests made up to exercise the model (random and sequential reads and writes of 1
    /// to 256 blocks, re-reads, reads of written data, no, short and long think times), with no measured times;
    /// for comparing with DiskSim (--against-disksim)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub synthetic: Option<u64>,
    /// The seed of --synthetic
    #[arg(long, default_value_t = 1, requires = "synthetic")]
    pub seed: u64,
    /// With --synthetic: this many traces (seeds --seed, --seed + 1, ...), each replayed on a fresh drive (and by
    /// a fresh DiskSim), their results pooled
    #[arg(long, default_value_t = 1, requires = "synthetic", value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub runs: u64,
    /// With --synthetic: reads larger than the drive's cache segment instead (seven in ten of 1 to 8 segments,
    /// continuing, inside or overlapping the read before, or anywhere; reads only, as DiskSim itself fails on
    /// some writes that large)
    #[arg(long, requires = "synthetic")]
    pub large_reads: bool,
    /// Write the --synthetic trace to this file (in DiskSim's validate format, for running DiskSim on it by hand)
    #[arg(long, value_name = "OUT.trace", requires = "synthetic")]
    pub write_trace: Option<PathBuf>,
    /// Also run DiskSim (this binary; ../shared/peers/build.sh builds one) on the same drive and requests, and
    /// compare request by request: per kind of request, the share within --tolerance-ms of DiskSim's time
    #[arg(long, value_name = "DISKSIM")]
    pub against_disksim: Option<PathBuf>,
    /// What counts as agreeing with DiskSim, ms
    #[arg(long, default_value_t = 0.05, requires = "against_disksim")]
    pub tolerance_ms: f64,
    /// Replay the trace this many times over (for measuring the simulation rate)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10000))]
    pub repeat: u32,
    /// Print JSON: rms_ms (computed as DiskSim does), rms_exact_ms (not bucketed), statdefs, mean_sim_ms,
    /// mean_measured_ms, requests, requests_per_s
    #[arg(long)]
    pub json: bool,
    /// Write each request's simulated and measured access time to this CSV file
    #[arg(long, value_name = "OUT.csv")]
    pub per_request: Option<PathBuf>,
    /// Also replay with every think time moved by up to this many microseconds either way, once per seed, and
    /// report how the demerit spreads: how much of it is chance (where requests fall against the rotation)
    #[arg(long, value_name = "US")]
    pub jitter_us: Option<f64>,
    /// Seeds for --jitter-us
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(2..=1000), requires = "jitter_us")]
    pub seeds: u32,
}

#[derive(Args, Debug)]
#[command(after_help = "The target is the jobs' filename= (all jobs must name the same one) or --target. A missing \
or short regular file is laid out first (written in full, as fio does). direct=1 in the jobs opens it with O_DIRECT \
where the file system allows it. The output is the same table or fio JSON as 'iosched sim'.\n\
With --emulate SPEC every request is performed on the target and completes when the device model says (or when the \
real I/O finishes, if later: the device stats count those late_requests). A target smaller than the model emulates \
the model's first bytes; a sparse file as large as the model (truncate -s SIZE FILE) emulates all of it.\n\
Example: iosched run dd-read.fio cvs.fio --target disk.img --emulate hdd:sata7200,queue_depth=1 --policy rr")]
pub struct RunArgs {
    /// fio job files (several run together, as if one file)
    #[arg(required = true)]
    pub jobfiles: Vec<PathBuf>,
    /// Scheduling policy (see 'iosched policies')
    #[arg(long, default_value = "noop")]
    pub policy: String,
    /// Set a policy tunable, for example --set batch=16 (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// The file or block device to run against, instead of the jobs' filename=
    #[arg(long, value_name = "PATH")]
    pub target: Option<PathBuf>,
    /// Requests the engine keeps at the target at most (default: the sum of the jobs' iodepth, at most the
    /// target's nr_requests as the kernel gives it, else 256)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096), conflicts_with = "emulate")]
    pub queue_depth: Option<u32>,
    /// Tell policies the target is rotational (1) or not (0); by default the kernel's queue/rotational of the
    /// block device the target is or sits on (non-rotational when there is none)
    #[arg(long, value_name = "0|1", value_parser = clap::builder::BoolishValueParser::new(), conflicts_with = "emulate")]
    pub rotational: Option<bool>,
    /// Complete each request when this device model says (any 'iosched sim --device' spec; its queue_depth is the
    /// queue depth), performing the real I/O as well
    #[arg(long, value_name = "SPEC")]
    pub emulate: Option<String>,
    /// Switch to another policy after this much real time, handing over every queued request, for example
    /// --switch-at 2s:deadline (repeatable)
    #[arg(long = "switch-at", value_name = "TIME:POLICY[,KEY=VALUE...]")]
    pub switch_at: Vec<String>,
    /// Override every job's runtime, in seconds
    #[arg(long)]
    pub runtime: Option<String>,
    /// Run only the job section NAME of the job files, as fio's --section ([global] sections still apply;
    /// repeatable)
    #[arg(long = "section", value_name = "NAME")]
    pub sections: Vec<String>,
    /// Seed of the random streams (offsets, sizes)
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print fio's JSON schema (plus an "iosched" object) instead of a table
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
#[command(after_help = "TARGET is what the engine runs against: the file or block device of 'iosched run', or a \
mount's directory. A new policy takes over every queued request, as --switch-at does.\n\
Example: iosched configure /data/test.img --policy bfq --set slice_idle=0")]
pub struct ConfigureArgs {
    /// The running engine's target
    pub target: PathBuf,
    /// Switch to this policy
    #[arg(long)]
    pub policy: Option<String>,
    /// Set a tunable (of the new policy, or of the running one without --policy), for example --set batch=16
    /// (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

#[derive(Args, Debug)]
#[command(after_help = "TARGET is what the engine runs against: the file or block device of 'iosched run', or a \
mount's directory. For a mount, each process using it is a job.")]
pub struct StatsArgs {
    /// The running engine's target
    pub target: PathBuf,
    /// Print fio's JSON schema (plus an "iosched" object) instead of a table
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
#[command(after_help = "TARGET is what the engine runs against: the file or block device of 'iosched run', or a \
mount's directory. Each screen covers the last interval: MB/s and IOPS of the requests that completed in it, their \
mean latency (arrival to completion), and each flow's requests queued in the policy and in flight at the device \
now. On a terminal the screen is redrawn and q quits; otherwise screens follow one another. Ctrl-C stops.\n\
Example: iosched top /srv/video --interval 2")]
pub struct TopArgs {
    /// The running engine's target
    pub target: PathBuf,
    /// Seconds between screens
    #[arg(long, default_value_t = 1.0, value_name = "SECONDS")]
    pub interval: f64,
    /// Stop after this many screens (default: until Ctrl-C or the engine ends)
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
}

/// How a mount uses the kernel's page cache.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheArg {
    /// The page cache serves reads, dropped at each open (as other passthrough file systems do)
    Auto,
    /// Bypass the page cache: every read and write reaches the policy at its own size (for experiments)
    Direct,
    /// Keep cached data across opens (normal use, when nothing else changes the files underneath)
    Kernel,
}

#[derive(Args, Debug)]
pub struct MountArgs {
    /// The scheduling policy ('iosched policies' lists them)
    #[arg(long, default_value = "noop")]
    pub policy: String,
    /// Set one of the policy's tunables, for example --set quantum=8 (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Complete each request when this device model says (any 'iosched sim --device' spec, for example
    /// hdd:sata7200), performing the real I/O as well
    #[arg(long, value_name = "SPEC")]
    pub emulate: Option<String>,
    /// How the kernel's page cache is used
    #[arg(long, value_enum, default_value = "auto")]
    pub cache: CacheArg,
    /// Most requests in flight to the files underneath (default 64, or the emulated device's queue depth)
    #[arg(long)]
    pub queue_depth: Option<u32>,
    /// Tell policies the files underneath are on a rotational device (1) or not (0); by default the kernel's
    /// queue/rotational of the block device under the directory
    #[arg(long, value_name = "0|1", value_parser = clap::builder::BoolishValueParser::new(), conflicts_with = "emulate")]
    pub rotational: Option<bool>,
    /// Stay attached: serve until Ctrl-C or 'iosched destroy', then print the report
    #[arg(long)]
    pub foreground: bool,
    /// Seed of the policies' random choices
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Serve Prometheus metrics (GET /metrics) on this loopback address, for example 127.0.0.1:9464 (port 0:
    /// any free port, which is printed)
    #[arg(long, value_name = "ADDR:PORT")]
    pub metrics: Option<std::net::SocketAddr>,
}

#[derive(Args, Debug)]
#[command(after_help = "The directory is opened before the mount covers it, so the daemon serves every path under \
DIR from the directory underneath. Files opened before the insert keep using the directory underneath; new opens \
go through the scheduler. The daemon runs in the background (its log is next to its control socket) until \
'iosched destroy DIR'.\n\
Example: iosched insert /srv/video --policy rr --emulate hdd:sata7200")]
pub struct InsertArgs {
    /// The directory to schedule (it stays where it is: the mount covers it)
    pub dir: PathBuf,
    #[command(flatten)]
    pub mount: MountArgs,
}

#[derive(Args, Debug)]
#[command(after_help = "Example: iosched create /data /mnt/scheduled --policy bfq --cache direct")]
pub struct CreateArgs {
    /// The directory whose files are served
    pub source: PathBuf,
    /// Where to mount them (an existing directory)
    pub mountpoint: PathBuf,
    #[command(flatten)]
    pub mount: MountArgs,
}

#[derive(Args, Debug)]
#[command(after_help = "New opens reach the directory underneath as soon as the mount is detached; requests in \
flight complete; files still open through the mount are served until they are closed, then the daemon exits. A \
mount whose daemon was killed is simply detached.")]
pub struct DestroyArgs {
    /// The mount's directory (DIR of insert, MOUNTPOINT of create)
    pub path: PathBuf,
    /// How long to wait for the daemon to finish, in seconds
    #[arg(long, default_value_t = 10.0)]
    pub wait: f64,
}
