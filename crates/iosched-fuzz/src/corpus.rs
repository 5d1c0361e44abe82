//! Valid inputs to start from: built-in samples of each format, and the shared test data when present.

use iosched_workload::trace::blktrace;

const JOB_FILES: &[&str] = &[
    "[global]\nbs=4k\nioengine=libaio\niodepth=8\n[a]\nrw=randread\nsize=64m\nnumber_ios=100\n[b]\nstonewall\nrw=write\nbs=64k\n",
    "[r]\nrw=randrw:4\nrwmixread=70\nbssplit=4k/50:64k/30:128k\nrandom_distribution=zoned:60/10:40/90\nrate_iops=500\nrate_process=poisson\nruntime=1\ntime_based\n",
    "[l]\nrw=randread\nlatency_target=2ms\nlatency_window=10ms\nlatency_percentile=99\niodepth=32\nioengine=io_uring\n",
    "[t]\nrw=trimwrite\nbsrange=4k-64k\nthinktime=100\nthinktime_blocks=4\nnrfiles=3\nfilesize=1m\nloops=2\nfsync=4\nend_fsync=1\n",
    "[f]\nrw=randwrite\nnrfiles=5\nfilesize=256k\nfile_service_type=random:3\nfsync_on_close=1\n[g]\nrw=read\nnrfiles=4\n\
     size=1m\nfile_service_type=zipf:1.2\n",
    "[z]\nrw=randread\nrandom_distribution=zipf:1.1\nnumjobs=3\noffset_increment=10%\nsize=5%\nramp_time=1ms\ngroup_reporting\ncmdprio_percentage=20\n",
    "[b]\nrw=read:-8k\nbs=4k\nsize=1m\nexitall\nexit_what=all\ngtod_reduce=1\nverify=0\nioengine=io_uring_cmd\ncmd_type=nvme\n[c]\nrw=write\nrate_cycle=100\nss=bw_slope:2%\nss_dur=3\nss_ramp=1\nwrite_hist_log=h\nlog_hist_msec=10\nflow=2\nflow_id=1\nflow_sleep=100\n",
    "[v]\nrw=randwrite\nbs=4k\nsize=1m\nverify=crc32c\nverify_backlog=16\nverify_backlog_batch=4\nnorandommap\nloops=2\n\
     random_distribution=zoned:50/5:30/15:20/\n[w]\nrw=read\nflow=-2\nflow_id=1\nthreads=1\nlog_prio=1\nfdp=1\nzonemode=strided\nzonesize=256k\nzoneskip=1m\n",
    "[global]\nrw=randrw\nbssplit=64k/40:1m/60,1m\niodepth=4\n[p]\ncmdprio_bssplit=64k/25/1/1:64k/75/3/2:1m/0,1m/0\n\
     cmdprio_class=1,3\ncmdprio=0,7\nreadfua=1\n[s]\nioengine=sg\nrw=write\nbs=512\nnumber_ios=20\n\
     sg_write_mode=verify_bytchk_01\nwritefua=1\n[q]\nrw=randread\nsize=48k\nrandom_sequence_stride=1\n\
     random_distribution=sequence:2,0,1\nratemin=1k\n",
    "[spr]\nrw=randwrite\nbs=4k\nblockalign=4k\nnorandommap=1\nsize=2m\nsprandom=1\nspr_op=0.3\nspr_num_regions=8\n",
    "[m]\nioengine=io_uring_cmd\ncmd_type=nvme\nrw=randtrim\nbssplit=4k/50:16k/50\nsize=1m\nnum_range=4\n",
    "[st]\nrw=randrw\niodepth=8\nsize=1m\niodepth_mode=stepped:10-130/40,1ms/4ms\ntime_based\nruntime=1\n",
];

const SMALL_MQSIM_DEVICE: &str = "<Execution_Parameter_Set><Host_Parameter_Set><PCIe_Lane_Bandwidth>1.0\
    </PCIe_Lane_Bandwidth><PCIe_Lane_Count>4</PCIe_Lane_Count></Host_Parameter_Set><Device_Parameter_Set>\
    <Memory_Type>FLASH</Memory_Type><IO_Queue_Depth>64</IO_Queue_Depth><Data_Cache_Capacity>1048576\
    </Data_Cache_Capacity><Data_Cache_DRAM_Row_Size>8192</Data_Cache_DRAM_Row_Size><Data_Cache_DRAM_Data_Rate>100\
    </Data_Cache_DRAM_Data_Rate><Data_Cache_DRAM_Data_Busrt_Size>1</Data_Cache_DRAM_Data_Busrt_Size>\
    <Data_Cache_DRAM_tRCD>13</Data_Cache_DRAM_tRCD><Data_Cache_DRAM_tCL>13</Data_Cache_DRAM_tCL>\
    <Data_Cache_DRAM_tRP>13</Data_Cache_DRAM_tRP><CMT_Capacity>65536</CMT_Capacity>\
    <Overprovisioning_Ratio>0.2</Overprovisioning_Ratio><GC_Exec_Threshold>0.1</GC_Exec_Threshold>\
    <Flash_Channel_Count>2</Flash_Channel_Count><Flash_Channel_Width>1</Flash_Channel_Width>\
    <Channel_Transfer_Rate>333</Channel_Transfer_Rate><Chip_No_Per_Channel>2</Chip_No_Per_Channel>\
    <Flash_Parameter_Set><Flash_Technology>TLC</Flash_Technology><Page_Read_Latency_LSB>50000\
    </Page_Read_Latency_LSB><Page_Read_Latency_CSB>75000</Page_Read_Latency_CSB><Page_Read_Latency_MSB>100000\
    </Page_Read_Latency_MSB><Page_Program_Latency_LSB>500000</Page_Program_Latency_LSB>\
    <Page_Program_Latency_CSB>750000</Page_Program_Latency_CSB><Page_Program_Latency_MSB>1000000\
    </Page_Program_Latency_MSB><Block_Erase_Latency>3000000</Block_Erase_Latency><Die_No_Per_Chip>2</Die_No_Per_Chip>\
    <Plane_No_Per_Die>2</Plane_No_Per_Die><Block_No_Per_Plane>64</Block_No_Per_Plane><Page_No_Per_Block>64\
    </Page_No_Per_Block><Page_Capacity>4096</Page_Capacity></Flash_Parameter_Set></Device_Parameter_Set>\
    </Execution_Parameter_Set>";

/// A small drive whose layout is given track by track: two heads, four cylinders, LBNs down one head and up the
/// other, two slips.
const G4_DRIVE: &str = r#"disksim_disk D {
  Model = dm_disk {
    Number of data surfaces = 2,
    Number of cylinders = 4,
    Block count = 66,
    Layout Model = dm_layout_g4 {
      TP = [ 0, 8, 10, 0, 7, 8 ],
      IDX = [
        [ 0, 3, 0.0, 9, 1, 0.25, 36, -4, TRACK, 0, 0,
          36, 0, 0.5, 8, 1, 0.125, 32, 4, TRACK, 1, 1 ],
        [ 0, 0, 0.0, 68, 4, 0.0, 68, 4, IDX, 0 ]
      ],
      Slips = [ 20, 1, 50, 1 ],
      Remaps = [ ]
    },
    Mechanical Model = dm_mech_g1 {
      Access time type = trackSwitchPlusRotation,
      Seek type = linear,
      Single cylinder seek time = 0.5,
      Average seek time = 4.0,
      Full strobe seek time = 8.0,
      Head switch time = 0.1,
      Rotation speed (in rpms) = 10000
    }
  },
  Max queue length = 1
}
instantiate [ disk0 ] as D
"#;

fn text_samples(target: &str) -> Vec<&'static str> {
    match target {
        "fio" => JOB_FILES.to_vec(),
        "blkparse" => vec!["  8,0  1  1  0.000000000  12  Q  R 100 + 8 [a]\n  8,0  1  2  0.000100000  12  D  R 100 + 8 [a]\n  8,0  1  3  0.000200000  13  Q  FWS [b]\n  8,0  1  4  0.1  13  Q  WS 50 + 16 [b]\nCPU0 (8,0):\n Reads Queued: 1\n"],
        "msr" => vec!["128166385295514663,hm,0,Write,9056014336,2048,2833\n128166385295524663,hm,1,Read,0,512,10\n"],
        "spc" => vec!["0,303567,3584,w,0.000000\n1,10,512,r,0.5\n"],
        "alibaba" => vec!["3,W,4096,8192,1577808000000010\n3,R,0,4096,1577808000000000\n"],
        "tencent" => vec!["1538323200,2048,8,1,1283\n1538323201,0,16,0,7\n"],
        "fiu" => vec!["89966527643045 4890 syslogd 904265560 8 W 6 0 531e\n89966527653045 12 bash 100 16 R 6 0 0\n"],
        "disksim" => vec!["0.000000 0 1000 8 1\n12.5 1 2000 16 0\n"],
        "disksim-validate" => vec!["R Hit 1975456 4 15362.0 56074.0\nW Miss 10 8 900 1000.5\n"],
        "mqsim" => vec!["11413000 0 657728 16 1\n11565000 1 31244784 64 0\n"],
        "iolog2" => vec!["fio version 2 iolog\n/dev/sda add\n/dev/sda open\n/dev/sda read 4096 4096\n/dev/sda wait 500 0\n/dev/sda sync 0 0\n"],
        "iolog3" => vec!["fio version 3 iolog\n0 f add\n10 f open\n20 f write 0 4096\n1020 f trim 0 4096\n"],
        // MQSim's shipped files, and a device small enough that the target builds and runs it.
        "mqsim-device" => vec![
            include_str!("../../iosched-device/tests/data/mqsim-ssdconfig.xml"),
            SMALL_MQSIM_DEVICE,
        ],
        "mqsim-workload" => vec![include_str!("../../iosched-workload/tests/data/mqsim-workload.xml")],
        // A start for when the shared data (and atlas10k.parv in it) is absent.
        // ... a whole drive in one file with a track-by-track (dm_layout_g4) layout, and DiskSim's
        // fixed-access-time disk.
        "disksim-drive" => vec![
            "disksim_global Global {\n  Init Seed = 42,\n  Real Seed = 42,\n}\n\nsource atlas10k.diskspecs\n",
            G4_DRIVE,
            SIMPLE_DISK,
        ],
        "cli" => crate::cli_target::STARTS.to_vec(),
        "hdd-preset" => vec![include_str!("../../iosched-device/presets/hdd/sata7200.toml")],
        "experiment" => vec![include_str!("../../../experiments/geom-sched/experiment.toml")],
        "statdefs" => vec!["Trace access time\nDistribution size: 20\nScale/Equals: 2/1\nStart 0  step 3  grow 0\n\n\
                            Physical access time\nDistribution size: 40\nScale/Equals: 1000/0\nStart 0  step 1  grow 1\n"],
        _ => Vec::new(),
    }
}

/// Files of the shared test data that belong to `target`.
fn data_files(target: &str) -> Vec<Vec<u8>> {
    let root = iosched_test_data::root();
    let (dir, ext) = match target {
        "fio" => ("fio-examples", "fio"),
        "mqsim" => ("mqsim", "trace"),
        "disksim-validate" => ("disksim", "trace"),
        "statdefs" => return std::fs::read(root.join("disksim/statdefs")).into_iter().collect(),
        "disksim-drive" => return std::fs::read(root.join("disksim/atlas10k.parv")).into_iter().collect(),
        _ => return Vec::new(),
    };
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else { return Vec::new() };
    let mut files: Vec<_> =
        entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == ext)).collect();
    files.sort();
    // Traces are long; their first 4 KiB carry the format.
    files
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .map(|mut b| {
            b.truncate(4096);
            b
        })
        .collect()
}

/// The starting inputs of a target.
pub fn for_target(target: &str) -> Vec<Vec<u8>> {
    let mut corpus: Vec<Vec<u8>> = match target {
        "blktrace" => {
            let mut b = blktrace::encode_le(1_000, 100, 4096, 1 | (0b1010 << 16), 42, &[]);
            b.extend(blktrace::encode_le(1_500, 100, 4096, 7 | (2 << 16), 42, &[1, 2, 3]));
            b.extend(blktrace::encode_le(2_000, 8, 512, 1 | (1 << 29), 7, &[]));
            vec![b]
        }
        "detect" => {
            let mut all: Vec<Vec<u8>> =
                ["blkparse", "msr", "spc", "alibaba", "tencent", "fiu", "disksim", "mqsim", "iolog3"]
                    .iter()
                    .flat_map(|t| text_samples(t))
                    .map(|s| s.as_bytes().to_vec())
                    .collect();
            all.push(blktrace::encode_le(1, 1, 512, 1, 1, &[]));
            all
        }
        t => text_samples(t).into_iter().map(|s| s.as_bytes().to_vec()).collect(),
    };
    corpus.extend(data_files(target));
    corpus
}

/// DiskSim's fixed-access-time disk behind a bus, as valid/synthsimpledisk.parv describes one.
const SIMPLE_DISK: &str = "disksim_bus BUS1 {\n  type = 1,\n  Arbitration type = 1,\n  Arbitration time = 0.0,\n  \
                           Read block transfer time = 0.01,\n  Write block transfer time = 0.02,\n}\n\n\
                           disksim_simpledisk SD0 {\n  Block count = 100000,\n  Access time = 9.5,\n  \
                           Command overhead = 0.5,\n  Bus transaction latency = 0.1,\n  \
                           Bulk sector transfer time = 0.0,\n  Never disconnect = 0,\n  Print stats = 1,\n  \
                           Max queue length = 4,\n  Scheduler = disksim_ioqueue {\n    Scheduling policy = 1\n  }\n}\n\n\
                           instantiate [ sd0 ] as SD0\ninstantiate [ bus1 ] as BUS1\n";
