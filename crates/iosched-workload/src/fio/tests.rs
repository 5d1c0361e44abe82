use super::*;
use iosched_core::request::IoClass;

#[test]
fn globals_are_inherited_and_overridden() {
    let text =
        "; comment\n[global]\nrw=randread\nbs=4k\nioengine=libaio\n\n[a]\niodepth=8\n[b]\nrw=write # tail\nbs=64k\n";
    let jobs = parse_str(text, "t.fio").unwrap();
    assert_eq!(jobs.len(), 2);
    assert_eq!(
        (jobs[0].name.as_str(), jobs[0].rw, jobs[0].random_percent, jobs[0].iodepth),
        ("a", RwMode::Read, 100, 8)
    );
    assert_eq!(jobs[0].effective_depth(), 8);
    assert_eq!((jobs[1].rw, jobs[1].random_percent), (RwMode::Write, 0));
    assert_eq!(jobs[1].block_sizes, [BlockSizes::Fixed(65536), BlockSizes::Fixed(65536), BlockSizes::Fixed(65536)]);
    assert_eq!(jobs[1].defined_at.line, 9);
}

#[test]
fn per_direction_block_sizes() {
    let jobs = parse_str("[j]\nbs=4k,64k\n", "t").unwrap();
    let fixed = |a, b, c| [BlockSizes::Fixed(a), BlockSizes::Fixed(b), BlockSizes::Fixed(c)];
    assert_eq!(jobs[0].block_sizes, fixed(4096, 65536, 65536));
    let jobs = parse_str("[j]\nbs=4k,,8k\n", "t").unwrap();
    assert_eq!(jobs[0].block_sizes, fixed(4096, 4096, 8192));
}

#[test]
fn times_flags_and_limits() {
    let text = "[j]\nruntime=2m\ntime_based\nthinktime=250\nnumber_ios=10\nnumjobs=3\nsize=50%\nrwmixwrite=30\n";
    let job = &parse_str(text, "t").unwrap()[0];
    assert_eq!(job.runtime_ns, Some(120_000_000_000));
    assert!(job.time_based);
    assert_eq!(job.thinktime_ns, 250_000);
    assert_eq!(job.io_limit, IoLimit::Ios(10));
    assert_eq!(job.numjobs, 3);
    assert_eq!(job.size, Some(SizeSpec::Percent(50)));
    assert_eq!(job.rwmix_read_percent, 70);
    assert!(job.engine.synchronous);
    assert_eq!(job.effective_depth(), 1);
}

#[test]
fn sizes_splits_and_distributions() {
    let text = "[j]\nbsrange=4k-16k,8k-8k\n[k]\nbssplit=4k/10:64k/50:32k\nrandom_distribution=zoned:60/10:40/90\n\
                [l]\nbssplit=4k/50:8k/50,16k/100\nrandom_distribution=zipf:1.2\nrw=randread:8\nrw_sequencer=identical\n";
    let jobs = parse_str(text, "t").unwrap();
    assert_eq!(jobs[0].block_sizes[0], BlockSizes::Range { min: 4096, max: 16384 });
    assert_eq!(jobs[0].block_sizes[1], BlockSizes::Fixed(8192));
    assert_eq!(jobs[1].block_sizes[0], BlockSizes::Split(vec![(4096, 10), (65536, 50), (32768, 40)]));
    assert_eq!(jobs[1].distribution, Distribution::Zoned(vec![(60.0, 10.0), (40.0, 90.0)]));
    assert_eq!(jobs[2].block_sizes[1], BlockSizes::Split(vec![(16384, 100)]));
    assert_eq!(jobs[2].distribution, Distribution::Zipf { theta: 1.2 });
    assert_eq!((jobs[2].random_percent, jobs[2].rw_suffix, jobs[2].sequencer_identical), (100, 8, true));
    let seq = &parse_str("[j]\nrw=write:64k\n", "t").unwrap()[0];
    assert_eq!((seq.random_percent, seq.rw_suffix), (0, 65536));
}

#[test]
fn rates_groups_priorities_and_latency_target() {
    let text = "[global]\ngroup_reporting\n[a]\nrate=1m,500k\nrate_process=poisson\nrate_min=100k\n\
                [b]\nstonewall\nrate_iops=50\ncmdprio_percentage=20\ncmdprio_class=1\ncmdprio=3\n\
                [c]\nnew_group\nlatency_target=2ms\nlatency_window=1s\nlatency_percentile=99.9\nio_size=50%\n\
                loops=3\nramp_time=2\nthinktime=100\nthinktime_blocks=4\nthinktime_spin=50\nsync=1\nfdatasync=8\n";
    let jobs = parse_str(text, "t").unwrap();
    assert_eq!(jobs[0].rate_bytes_per_s, [1 << 20, 500 << 10, 500 << 10]);
    assert_eq!(jobs[0].rate_process, RateProcess::Poisson);
    assert_eq!(jobs[0].rate_min_bytes_per_s[0], 100 << 10);
    assert!(jobs[0].group_reporting && !jobs[0].stonewall);
    assert!(jobs[1].stonewall);
    assert_eq!(jobs[1].rate_iops, [50; 3]);
    assert_eq!(
        (jobs[1].cmdprio_percent, jobs[1].cmdprio_class, jobs[1].cmdprio_level),
        ([20, 20], [IoClass::Rt; 2], [3, 3])
    );
    let c = &jobs[2];
    assert!(c.new_group);
    assert_eq!(
        c.latency_target,
        Some(LatencyTarget { target_ns: 2_000_000, window_ns: 1_000_000_000, percentile: 99.9 })
    );
    assert_eq!((c.io_limit, c.loops, c.ramp_ns), (IoLimit::RegionPercent(50), 3, 2_000_000_000));
    assert_eq!((c.thinktime_ns, c.thinktime_blocks, c.thinktime_spin_ns), (100_000, 4, 50_000));
    assert!(c.sync_writes && c.is_sync(iosched_core::request::Op::Write));
    assert_eq!(c.fsync_every_writes, 8);
}

#[test]
fn includes_read_in_place_relative_to_the_including_file() {
    let dir = iosched_test_data::scratch("include");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/common.fio"), "[global]\nbs=64k\n").unwrap();
    std::fs::write(dir.join("main.fio"), "include sub/common.fio\n[j]\nrw=read\n").unwrap();
    let jobs = parse_file(&dir.join("main.fio")).unwrap();
    assert_eq!(jobs[0].block_sizes[0], BlockSizes::Fixed(65536));
    std::fs::write(dir.join("loop.fio"), "include loop.fio\n").unwrap();
    let e = parse_file(&dir.join("loop.fio")).unwrap_err().to_string();
    assert!(e.contains("loop.fio:1: include nested more than 16 deep"), "{e}");
    std::fs::write(dir.join("missing.fio"), "[j]\ninclude nope.fio\n").unwrap();
    let e = parse_file(&dir.join("missing.fio")).unwrap_err().to_string();
    assert!(e.contains("missing.fio:2: include nope.fio: cannot read included job file"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn errors_name_file_line_and_what_was_expected() {
    let cases = [
        ("[j]\nbs=4q\n", "t.fio:2: bs: expected a size"),
        ("rw=read\n", "t.fio:1: option 'rw' before any [section]"),
        ("[j]\nrw=sideways\n", "t.fio:2: rw: expected read, write"),
        ("[j\n", "t.fio:1: expected a section header"),
        ("[j]\nhostname=x\n", "t.fio:2: option 'hostname' belongs to a non-block"),
        ("[j]\nioengine=net\n", "t.fio:2: ioengine=net does not do block I/O"),
        ("[j]\nverify_only\n", "t.fio:2: option 'verify_only' is not supported"),
        ("[j]\nsize=1k\nbs=4k\n", "t.fio:2: job 'j': size 1024 is smaller"),
        ("[global]\nbs=4k\n", "t.fio:2: no jobs"),
        ("[j]\niodepth=0\n", "t.fio:2: iodepth: expected an integer from 1"),
        ("[j]\nrw\n", "t.fio:2: option 'rw' needs a value"),
        ("[j]\nbssplit=4k/60:8k/60\n", "t.fio:2: bssplit: expected shares that add up to 100"),
        ("[j]\nbsrange=8k-4k\n", "t.fio:2: bsrange: expected a range with min <= max"),
        ("[j]\nrandom_distribution=zipf\n", "t.fio:2: random_distribution: expected zipf:theta"),
        ("[j]\nrandom_distribution=pareto:1.5\n", "t.fio:2: random_distribution: expected pareto:h"),
        ("[j]\nrate_process=bursty\n", "t.fio:2: rate_process: expected linear or poisson"),
        ("[j]\nrate=1m\nrate_iops=5\n", "t.fio:3: job 'j': rate and rate_iops are exclusive"),
        ("[j]\nlatency_target=1ms\n", "t.fio:2: job 'j': latency_target needs a latency_window"),
        ("[j]\nthinktime=10\nthinktime_spin=20\n", "t.fio:3: job 'j': thinktime_spin is longer"),
        ("[j]\nrw=randread:x\n", "t.fio:2: rw: expected an integer"),
    ];
    for (text, want) in cases {
        let got = parse_str(text, "t.fio").unwrap_err().to_string();
        assert!(got.starts_with(want), "for {text:?}\n got: {got}\nwant: {want}");
    }
}

#[test]
fn file_service_type_and_fsync_on_close_read_as_fio_reads_them() {
    let service = |v: &str| {
        parse_str(&format!("[j]\nnrfiles=4\nfile_service_type={v}\n"), "t").map(|j| j[0].file_service.clone())
    };
    assert_eq!(service("roundrobin").unwrap(), FileService::RoundRobin { per_pick: 1 });
    assert_eq!(service("random:8").unwrap(), FileService::Random { per_pick: 8 });
    assert_eq!(service("sequential").unwrap(), FileService::Sequential);
    // fio's defaults for the skewed ones: theta 1.1, h 0.2, and for gauss the twelve-draw mean's spread.
    assert_eq!(service("zipf").unwrap(), FileService::Skewed(Distribution::Zipf { theta: 1.1 }));
    assert_eq!(service("pareto:0.5").unwrap(), FileService::Skewed(Distribution::Pareto { h: 0.5 }));
    assert_eq!(service("gauss").unwrap(), FileService::Skewed(Distribution::Normal { sd_percent: 100.0 / 12.0 }));
    assert_eq!(parse_str("[j]\n", "t").unwrap()[0].file_service, FileService::RoundRobin { per_pick: 1 });
    for (bad, wanted) in [
        ("random:0", "random:N, an integer from 1"),
        ("zipf:1", "zipf:theta with theta > 0 and not 1"),
        ("normal:5:0.3", "a centre for the distribution is not modelled"),
        ("lottery", "roundrobin, random or sequential"),
    ] {
        let e = service(bad).unwrap_err().to_string();
        assert!(e.contains("t:3") && e.contains(wanted), "{bad}: {e}");
    }
    let job = &parse_str("[j]\nrw=write\nfsync_on_close=1\n", "t").unwrap()[0];
    assert!(job.fsync_on_close && job.flushes_at_end());
    let reader = &parse_str("[j]\nrw=read\nfsync_on_close=1\n", "t").unwrap()[0];
    assert!(!reader.flushes_at_end(), "a job that only reads leaves no dirty file to flush");
    let e = parse_str("[j]\nrw=write\nloops=2\nfsync_on_close=1\n", "t").unwrap_err().to_string();
    assert!(e.contains("t:4") && e.contains("fsync_on_close with loops=2"), "{e}");
}

#[test]
fn max_latency_reads_per_direction_in_microseconds_by_default() {
    let job = &parse_str("[j]\nmax_latency=250\n", "t").unwrap()[0];
    assert_eq!(job.max_latency_ns, [250_000; 3]);
    let job = &parse_str("[j]\nmax_latency=10ms,2s\n", "t").unwrap()[0];
    assert_eq!(job.max_latency_ns, [10_000_000, 2_000_000_000, 2_000_000_000]);
    let e = parse_str("[j]\nmax_latency=soon\n", "t").unwrap_err().to_string();
    assert!(e.contains("t:2") && e.contains("max_latency"), "{e}");
}
