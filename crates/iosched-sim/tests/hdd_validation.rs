//! The hard-disk model against DiskSim's three validated drives (measured traces in the shared data), broken
//! copies of their files, and the hdd:sata7200 preset against the arithmetic of its data sheet.

use iosched_device::disksim::build;
use iosched_device::disksim::params::read_file;
use iosched_device::hdd::disk::Hdd;
use iosched_device::load_spec;
use iosched_sim::validate::{validate, AccessTimeBuckets, Validation};
use iosched_sim::{simulate, SimConfig, Workload};
use iosched_workload::fio::parse_str;
use iosched_workload::trace::disksim_validate;
use std::path::{Path, PathBuf};

/// A drive replayed on its trace, the demerit bucketed as the statdefs file its .parv names says.
fn validated(dir: &Path, drive: &str) -> Validation {
    let parv = dir.join(format!("{drive}.parv"));
    let file = read_file(&parv).unwrap_or_else(|e| panic!("{e}"));
    let built = build::build(&file, &parv).unwrap_or_else(|e| panic!("{e}"));
    let (buckets, _) =
        AccessTimeBuckets::named_in(&file).unwrap_or_else(|e| panic!("{e}")).expect("the drive names its statdefs");
    assert_eq!(buckets, AccessTimeBuckets::disksim(), "the shared statdefs has DiskSim's shipped buckets");
    let records = disksim_validate::read(&dir.join(format!("{drive}.trace"))).unwrap();
    let v = validate(&mut Hdd::new(built.params), &records, &buckets);
    assert_eq!(v.simulated_ms.len(), records.len());
    v
}

#[test]
fn demerit_on_the_three_validated_drives() {
    let Some(dir) = iosched_test_data::dir("disksim") else { return };
    // (drive, DiskSim 4.0's own demerit, and this model's regression bounds on the bucketed and unbucketed
    // demerits). DiskSim's figure comes from its rms tool, which compares the two distributions as DiskSim prints
    // them, counted into the statdefs buckets (100 us wide at 10 ms), so ours is computed the same way to be held
    // against it. The regression bounds are the figures reached (0.0986 / 0.0996, 0.0916 / 0.0923, 0.0876 /
    // 0.0912 ms) plus twice their noise, measured as the spread of the demerit when the trace's think times move
    // by up to 2 us (`iosched validate --jitter-us 2 --seeds 30`: 0.0005, 0.0005 and 0.0031 ms bucketed; 0.0004,
    // 0.0004 and 0.0019 not bucketed). hp_c2247a's figure hangs on a handful of whole-turn misses, hence its
    // wider spread.
    let drives = [
        ("cheetah9LP", 0.107, 0.0986 + 2.0 * 0.0005, 0.0996 + 2.0 * 0.0004),
        ("atlas10k", 0.268, 0.0916 + 2.0 * 0.0005, 0.0923 + 2.0 * 0.0004),
        ("hp_c2247a", 0.089, 0.0876 + 2.0 * 0.0031, 0.0912 + 2.0 * 0.0019),
    ];
    for (drive, disksim, bound, exact_bound) in drives {
        let v = validated(&dir, drive);
        eprintln!("{drive}: rms {:.4} ms (DiskSim {disksim} ms); not bucketed {:.4} ms", v.rms_ms, v.rms_exact_ms);
        assert!(v.rms_ms <= disksim, "{drive}: rms {:.4} ms above DiskSim's {disksim} ms", v.rms_ms);
        assert!(v.rms_ms <= bound, "{drive}: rms {:.4} ms above {bound:.4} ms, what was reached", v.rms_ms);
        assert!(v.rms_exact_ms <= exact_bound, "{drive}: rms {:.4} ms above {exact_bound:.4} ms", v.rms_exact_ms);
        // The two figures measure the same distance; bucketing moves it by a few microseconds, not more.
        assert!((v.rms_ms - v.rms_exact_ms).abs() < 0.006, "{drive}: {} against {}", v.rms_ms, v.rms_exact_ms);
    }
}

#[test]
fn conform_disksim_reproduces_disksims_own_figures_on_the_real_traces() {
    // DiskSim's published demerits on its three measured traces (valid/runvalid) come from its own model; iosched
    // with conform=disksim is that model, so it gives nearly the same figures (the rest: DiskSim's rotational
    // drift over 10,000 requests), while the default model, with its refinements, is closer to the drives.
    let Some(dir) = iosched_test_data::dir("disksim") else { return };
    // (drive, DiskSim's figure, the figure reached, its noise): the requirement is DiskSim's figure within 0.015
    // ms; the regression bound the figure reached plus twice its noise, the spread of the demerit over 30 seeds
    // with the think times moved by up to 2 us (`iosched validate --disksim DRIVE.parv,conform=disksim --trace
    // DRIVE.trace --jitter-us 2 --seeds 30`: 0.1099-0.1104, 0.2547-0.2559, 0.0880-0.0911 ms).
    let drives = [
        ("cheetah9LP", 0.107, 0.1103, 0.0005),
        ("atlas10k", 0.268, 0.2557, 0.0012),
        ("hp_c2247a", 0.089, 0.0893, 0.0031),
    ];
    for (drive, disksim, reached, noise) in drives {
        let parv = dir.join(format!("{drive}.parv"));
        let file = read_file(&parv).unwrap_or_else(|e| panic!("{e}"));
        let mut params = build::build(&file, &parv).unwrap_or_else(|e| panic!("{e}")).params;
        params.refinements = iosched_device::hdd::params::Refinements::DISKSIM;
        let (buckets, _) = AccessTimeBuckets::named_in(&file).unwrap().unwrap();
        let records = disksim_validate::read(&dir.join(format!("{drive}.trace"))).unwrap();
        let v = validate(&mut Hdd::new(params), &records, &buckets);
        eprintln!("{drive}: conform=disksim {:.4} ms, DiskSim {disksim} ms", v.rms_ms);
        assert!((v.rms_ms - disksim).abs() <= 0.015, "{drive}: {:.4} ms against DiskSim's {disksim}", v.rms_ms);
        assert!((v.rms_ms - reached).abs() <= 2.0 * noise, "{drive}: {:.4} ms, {reached} was reached", v.rms_ms);
    }
}

/// Copy a drive's files to a fresh folder, changing one file's text.
fn broken_copy(dir: &Path, drive: &str, file: &str, change: impl Fn(&str) -> String) -> PathBuf {
    // A folder per copy: tests running at once edit the same drive's files.
    static COPIES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let copy = COPIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = iosched_test_data::scratch(&format!("broken-{drive}-{file}-{copy}"));
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        if name.starts_with(drive) || name == "statdefs" {
            let text = std::fs::read_to_string(&p).unwrap();
            let text = if name == file { change(&text) } else { text };
            std::fs::write(out.join(&name), text).unwrap();
        }
    }
    out.join(format!("{drive}.parv"))
}

#[test]
fn broken_drive_files_give_clear_errors() {
    let Some(dir) = iosched_test_data::dir("disksim") else { return };
    type Edit = Box<dyn Fn(&str) -> String>;
    let cases: Vec<(&str, &str, Edit, &str)> = vec![
        (
            "cheetah9LP.diskspecs",
            "missing brace",
            Box::new(|t: &str| t.replacen("} # end of SEAGATE_ST39102LW_validate spec", "", 1)),
            "cheetah9LP.diskspecs:82: expected ',' or '}' after the value of 'Minimum seek delay', found the end of the file",
        ),
        (
            "cheetah9LP.model",
            "wrong type",
            Box::new(|t: &str| t.replacen("Number of data surfaces = 12", "Number of data surfaces = twelve", 1)),
            "cheetah9LP.model:2: Number of data surfaces: expected a number, found 'twelve'",
        ),
        (
            "cheetah9LP.model",
            "unknown seek type",
            Box::new(|t: &str| t.replacen("Seek type = extracted", "Seek type = teleport", 1)),
            "Seek type: expected constant, linear, curve, hpl, hplplus10 or extracted, found 'teleport'",
        ),
        (
            "cheetah9LP.seek",
            "truncated seek table",
            Box::new(|t: &str| t.lines().take(40).collect::<Vec<_>>().join("\n")),
            "seek table truncated: the header says 106 distances, found 39",
        ),
    ];
    for (file, what, change, want) in cases {
        let parv = broken_copy(&dir, "cheetah9LP", file, change);
        let err = build::load(&parv).err().unwrap_or_else(|| panic!("{what}: no error")).to_string();
        assert!(err.contains(want), "{what}: got {err}");
        // The error names a file and a line.
        assert!(
            err.contains(".parv:") || err.contains(".diskspecs:") || err.contains(".model:") || err.contains(".seek:"),
            "{err}"
        );
    }
}

#[test]
fn what_the_model_does_not_reproduce_is_said_and_watermark_keys_are_read() {
    let Some(dir) = iosched_test_data::dir("disksim") else { return };
    let faster = "faster than the media";
    let built = build::load(&dir.join("hp_c2247a.parv")).unwrap();
    assert!(!built.warnings.iter().any(|w| w.contains(faster)), "{:?}", built.warnings);
    assert!(built.params.read_watermark_of_request && built.params.read_watermark == 0.75);
    // A bus ten times faster than this drive's media: reads would catch up with the media.
    let parv = broken_copy(&dir, "hp_c2247a", "hp_c2247a.parv", |t| {
        t.replacen("Read block transfer time = 0.17010", "Read block transfer time = 0.01", 1)
    });
    let built = build::load(&parv).unwrap();
    let warning = built.warnings.iter().find(|w| w.contains(faster)).expect("a warning for the fast bus");
    // It names the line that sets the bus time in force: BUS1's, in the .parv.
    assert!(warning.contains("hp_c2247a.parv:") && warning.contains("not modelled"), "{warning}");
    // "Set watermark by reqsize" = 0: the water mark is a share of a segment, not dropped.
    let parv = broken_copy(&dir, "hp_c2247a", "hp_c2247a.diskspecs", |t| {
        t.replacen("Set watermark by reqsize = 1", "Set watermark by reqsize = 0", 1)
    });
    let p = build::load(&parv).unwrap().params;
    assert!(!p.read_watermark_of_request && p.read_watermark == 0.75);
}

/// The model serves the drive's own queue first come, first served, as every validated drive's file says; a
/// file whose drive queues several requests and reorders them is told so, naming the line, and a policy DiskSim
/// does not have is an error.
#[test]
fn a_drive_queue_the_model_does_not_reorder_is_said() {
    let Some(dir) = iosched_test_data::dir("disksim") else { return };
    let said = |w: &Vec<String>| w.iter().find(|w| w.contains("its reordering is not modelled")).cloned();
    assert_eq!(said(&build::load(&dir.join("cheetah9LP.parv")).unwrap().warnings), None);
    // Reordering with a queue of one request changes nothing.
    let parv = broken_copy(&dir, "cheetah9LP", "cheetah9LP.diskspecs", |t| {
        t.replacen("Scheduling policy = 1", "Scheduling policy = 4", 1)
    });
    assert_eq!(said(&build::load(&parv).unwrap().warnings), None);
    let parv = broken_copy(&dir, "cheetah9LP", "cheetah9LP.diskspecs", |t| {
        t.replacen("Scheduling policy = 1", "Scheduling policy = 4", 1)
            .replacen("Max queue length = 1", "Max queue length = 32", 1)
            .replacen("Scheduling timeout scheme = 0", "Scheduling timeout scheme = 1", 1)
    });
    let built = build::load(&parv).unwrap();
    assert_eq!(built.params.queue_depth, 32);
    let w = said(&built.warnings).expect("a warning for the reordered queue");
    assert!(w.contains("cheetah9LP.diskspecs:20") && w.contains("SSTF_LBN"), "{w}");
    assert!(
        built.warnings.iter().any(|w| w.contains("cheetah9LP.diskspecs:28") && w.contains("Scheduling timeout scheme")),
        "{:?}",
        built.warnings
    );
    let parv = broken_copy(&dir, "cheetah9LP", "cheetah9LP.diskspecs", |t| {
        t.replacen("Scheduling policy = 1", "Scheduling policy = 99", 1)
    });
    let e = build::load(&parv).err().expect("an unknown policy is an error").to_string();
    assert!(e.contains("cheetah9LP.diskspecs:20") && e.contains("Scheduling policy"), "{e}");
}

#[test]
fn any_drive_file_loads_without_special_cases() {
    let Some(dir) = iosched_test_data::dir("disksim") else { return };
    for drive in ["cheetah9LP", "atlas10k", "hp_c2247a"] {
        let built = build::load(&dir.join(format!("{drive}.parv"))).unwrap();
        let l = &built.params.layout;
        // Every block maps inside the drive's geometry.
        for lbn in (0..l.blocks()).step_by(9973) {
            let p = l.lbn_to_pbn(lbn);
            assert!(p.cylinder < l.cylinders && p.head < l.surfaces, "{drive} {lbn}: {p:?}");
            assert!(p.sector < l.sectors_per_track(p.cylinder, p.head));
        }
    }
}

#[test]
fn every_drive_file_disksim_reads_iosched_reads() {
    // Every .parv of DiskSim's validation folder that describes a disk (the validated drives, the synthetic
    // workloads' disks, the dual-seek example's track-by-track layout) builds, and maps every block inside the
    // geometry its layout gives. hp_c2490a's last zone ends at "Number of cylinders", which DiskSim accepts. The
    // simple disk (synthsimpledisk.parv) builds as DiskSim's fixed-access-time disk; the MEMS devices, which
    // DiskSim 4.0 itself does not read ("Unknown block type: memsmodel_mems"), are refused with an error that
    // names what they are.
    let Some(valid) = iosched_test_data::peer("disksim/valid") else { return };
    let mut parvs: Vec<PathBuf> = std::fs::read_dir(&valid)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "parv"))
        .chain([valid.join("dualseek_example/maxtor300g.parv")])
        .collect();
    parvs.sort();
    let (mut disks, mut simple_disks) = (0, 0);
    for parv in &parvs {
        let file = read_file(parv).unwrap_or_else(|e| panic!("{e}"));
        if file.blocks.iter().any(|b| b.type_name == "disksim_simpledisk") {
            simple_disks += 1;
            let drive = build::build_drive(&file, parv).unwrap_or_else(|e| panic!("{e}"));
            let (build::Drive::Simple(p), warnings) = drive else { panic!("{}: not a simple disk", parv.display()) };
            assert_eq!((p.blocks, p.access_ns, p.command_overhead_ns), (100_000, 9.5e6, 0.5e6), "{}", parv.display());
            assert!(warnings.is_empty(), "{warnings:?}");
            continue;
        }
        if !file.blocks.iter().any(|b| b.type_name == "disksim_disk") {
            let e = build::build_drive(&file, parv).expect_err("not a disk").to_string();
            assert!(e.contains("is not modelled") && e.contains("MEMS"), "{e}");
            continue;
        }
        disks += 1;
        let built = build::build(&file, parv).unwrap_or_else(|e| panic!("{}: {e}", parv.display()));
        let l = &built.params.layout;
        for lbn in (0..l.blocks()).step_by(7919).chain([l.blocks() - 1]) {
            let p = l.lbn_to_pbn(lbn);
            assert!(p.cylinder < l.cylinders && p.head < l.surfaces, "{}: {lbn}: {p:?}", parv.display());
            assert!(p.sector < l.sectors_per_track(p.cylinder, p.head), "{}: {lbn}: {p:?}", parv.display());
        }
    }
    assert!(disks >= 21, "only {disks} disk files in {}", valid.display());
    // A file of several disks is simulated as one drive, and says so (with what organises them).
    let several = |name: &str| -> Vec<String> {
        let built = build::load(&valid.join(name)).unwrap_or_else(|e| panic!("{e}"));
        built.warnings.into_iter().filter(|w| w.contains("the file instantiates")).collect()
    };
    let raid = several("synthraid5.parv");
    assert!(
        raid.len() == 1
            && raid[0].contains("synthraid5.parv:114: the file instantiates 9 disks")
            && raid[0].contains("Striped, Parity_rotated")
            && raid[0].contains("simulates one drive, disksim_disk HP_C3323A"),
        "{raid:?}"
    );
    let three = several("3disks.parv");
    assert!(three.len() == 1 && three[0].contains("instantiates 3 disks;"), "{three:?}");
    assert!(several("ascii.parv")[0].contains("instantiates 18 disks;"));
    assert!(several("synthcachedev.parv")[0].contains("instantiates 2 disks;"));
    assert!(several("cheetah9LP.parv").is_empty());
    assert_eq!(simple_disks, 1, "synthsimpledisk.parv");
    let built = build::load(&valid.join("hp_c2490a.parv")).unwrap();
    assert!(
        built.warnings.iter().any(|w| w.contains("hp_c2490a_validate.model:161") && w.contains("2630 cylinders")),
        "{:?}",
        built.warnings
    );
}

fn one_job(text: &str, device: &str) -> iosched_core::results::JobResult {
    let jobs = parse_str(text, "job.fio").unwrap();
    let (dev, _) = load_spec(device).unwrap();
    let out = simulate(
        &Workload::from_jobs(&jobs),
        iosched_core::registry::create("noop").unwrap(),
        dev,
        Vec::new(),
        &SimConfig { seed: 3, record_log: false },
    )
    .unwrap();
    out.result.jobs[0].clone()
}

#[test]
fn sata7200_streams_72_mb_per_s_from_the_start() {
    // 128 KiB reads, one at a time, from offset 0: the seed's dd of the raw disk.
    let job = one_job("[dd]\nrw=read\nbs=128k\nsize=1g\n", "hdd:sata7200");
    let mb_s = job.bw_bytes_per_s(0) / 1e6;
    assert!((mb_s / 72.0 - 1.0).abs() <= 0.05, "{mb_s} MB/s");
    // Regression: 72.10 MB/s was reached; a sequential read draws nothing at random (no noise), so 0.5 % only
    // allows for rounding in a change of the model.
    assert!((mb_s / 72.10 - 1.0).abs() <= 0.005, "{mb_s} MB/s, 72.10 was reached");
    // That takes the join_at_read_ahead_frontier refinement: the host reads faster than the media, so each read
    // starts at the block the read-ahead is about to read, which DiskSim counts a miss, stopping the read-ahead
    // and positioning again at the cost of most of a turn.
    let as_disksim = one_job("[dd]\nrw=read\nbs=128k\nsize=64m\n", "hdd:sata7200,conform=disksim");
    let disksim_mb_s = as_disksim.bw_bytes_per_s(0) / 1e6;
    assert!(disksim_mb_s < 0.5 * 72.0, "conform=disksim: {disksim_mb_s} MB/s");
}

#[test]
fn sata7200_streams_reads_larger_than_a_segment_at_the_media_rate() {
    // 1 MiB reads, one at a time, from offset 0: each is four of the drive's 512 KiB segments. The segment is a
    // ring (the media reads at most a segment ahead of the bus, which is faster), and each read takes over the
    // read-ahead the one before left running, so the stream goes at the media's 72 MB/s as 128 KiB reads do.
    // When a read larger than a segment could not join the read-ahead nor hit the segment, each one positioned
    // again and lost most of a turn: 43 MB/s. (DiskSim's own rules are held by disksim_conformance's
    // reads_larger_than_a_segment test.)
    let job = one_job("[dd]\nrw=read\nbs=1m\nsize=1g\n", "hdd:sata7200");
    let mb_s = job.bw_bytes_per_s(0) / 1e6;
    assert!((mb_s / 72.0 - 1.0).abs() <= 0.05, "{mb_s} MB/s");
}

#[test]
fn sata7200_sequential_writes_stream_at_the_media_rate() {
    // 128 KiB writes, one at a time, from offset 0, write cache on. The host sends data faster than the media
    // takes it, so once the cache is full the writes go at the media's pace: 1320 sectors a turn and a 160-sector
    // skew per track switch, 8.333 ms x (1 + 160/1320) = 9.34 ms a track, 72.3 MB/s. The skews are sized for a
    // head switch plus a write's settling (0.7 + 0.3 ms), so a write crossing a track loses no turn; when they
    // covered the head switch alone, each crossing cost a whole turn and this test failed.
    // That takes the write_stream refinement: under DiskSim's rule a write joins the destage only while the
    // segment has room for it, so once the destage lags a segment behind, the next write waits for all of it and
    // then misses its first sector by the time its first block takes to arrive: a turn lost every 1024 sectors.
    let job = one_job("[dd]\nrw=write\nbs=128k\nsize=1g\n", "hdd:sata7200");
    let mb_s = job.bw_bytes_per_s(1) / 1e6;
    assert!((mb_s / 72.3 - 1.0).abs() <= 0.05, "{mb_s} MB/s");
    // Regression: 72.14 MB/s was reached, without noise (as above).
    assert!((mb_s / 72.14 - 1.0).abs() <= 0.005, "{mb_s} MB/s, 72.14 was reached");
    let as_disksim = one_job("[dd]\nrw=write\nbs=128k\nsize=256m\n", "hdd:sata7200,conform=disksim");
    let disksim_mb_s = as_disksim.bw_bytes_per_s(1) / 1e6;
    assert!(disksim_mb_s < 0.6 * 72.3, "conform=disksim: {disksim_mb_s} MB/s");
}

#[test]
fn sata7200_random_reads_cost_a_seek_and_half_a_turn() {
    // Random 4 KiB reads at depth 1 over the whole disk. Each costs:
    //   read-miss overhead                0.15 ms
    // + seek over a random distance       E[seek] over random LBA pairs (measured on the layout below; the
    //                                      data sheet's 8.9 ms is over random cylinder pairs, and outer
    //                                      cylinders hold more blocks)
    // + rotational latency                8.333 / 2 = 4.167 ms
    // + one sector                        8.333 ms / ~1010 sectors = 0.008 ms, and 8 sectors over the bus at
    //                                      150 MB/s = 0.027 ms
    let preset = iosched_device::hdd::preset::load("sata7200").unwrap();
    let l = &preset.layout;
    let mut rng = iosched_core::rng::SimRng::new(7, 0);
    let samples = 200_000;
    let mut seek_ms = 0.0;
    for _ in 0..samples {
        let a = l.lbn_to_pbn(rng.below(l.blocks())).cylinder;
        let b = l.lbn_to_pbn(rng.below(l.blocks())).cylinder;
        seek_ms += preset.seek.ms(a.abs_diff(b));
    }
    seek_ms /= samples as f64;
    assert!((7.5..9.5).contains(&seek_ms), "E[seek] {seek_ms}");
    let expected_ms = 0.15 + seek_ms + 60_000.0 / 7200.0 / 2.0 + 0.008 + 0.027;
    let job = one_job("[r]\nrw=randread\nbs=4k\nnumber_ios=4000\n", "hdd:sata7200");
    let mean_ms = job.directions[0].total.mean_ns / 1e6;
    assert!((mean_ms / expected_ms - 1.0).abs() < 0.03, "mean {mean_ms} ms, expected {expected_ms} ms");
}
