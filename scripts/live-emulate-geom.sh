#!/usr/bin/env bash
# Issue 9's second figure: the geom-sched experiment's dd-read+cvs case run live on an emulated 2008 disk,
# against the same case simulated. `iosched run --emulate hdd:sata7200,queue_depth=1` performs every request on a
# sparse file as large as the disk (reads of its holes cost the real device almost nothing) and completes each
# when the disk model says, on the real clock (a real I/O slower than the model stalls the emulated clock). Prints dd's MB/s live and simulated for each policy, their ratio,
# and how many requests the real I/O made late; exits non-zero if dd live is not within 20 % of simulated.
#
#   scripts/live-emulate-geom.sh [DIR] [SECONDS] [POLICIES]     (default: ./target/live-emulate, 20 s, "noop rr")
set -euo pipefail
dir=${1:-target/live-emulate}
seconds=${2:-20}
policies=${3:-noop rr}
cargo build --release -q -p iosched
bin=$PWD/target/release/iosched
jobs=(experiments/geom-sched/dd-read.fio experiments/geom-sched/cvs.fio)
device=hdd:sata7200,queue_depth=1
mkdir -p "$dir"
disk=$dir/disk.img
# Sparse: larger than the model (250 GB), so the emulated device is the whole model and the jobs' regions (cvs at
# 33 % of the disk) are where the simulation puts them.
truncate -s 300G "$disk"
status=0
for policy in $policies; do
    sim=$("$bin" sim "${jobs[@]}" --device "$device" --policy "$policy" --runtime "$seconds" --json)
    live=$("$bin" run "${jobs[@]}" --target "$disk" --emulate "$device" --policy "$policy" --runtime "$seconds" --json)
    python3 - "$policy" "$sim" "$live" <<'PY' || status=1
import json, sys
policy, sim, live = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
def job(run, name):
    return next(j for j in run["jobs"] if j["jobname"] == name)
mbs = lambda run: job(run, "dd")["read"]["bw_bytes"] / 1e6
ops = lambda run: job(run, "cvs")["read"]["iops"]
stats = live["iosched"]["device"]
ratio = mbs(live) / mbs(sim)
ok = abs(ratio - 1) <= 0.20
print(f"{policy:5} dd live {mbs(live):6.2f} MB/s, simulated {mbs(sim):6.2f} MB/s ({ratio:.1%}); "
      f"cvs live {ops(live):5.1f}/s, simulated {ops(sim):5.1f}/s; late {stats['late_requests']} of "
      f"{stats['completed']} (mean {stats['late_mean_us']:.0f} us, stalling the emulated clock {stats['stall_ms']:.0f} ms "
      f"in all), wake lag mean {stats['wake_lag_mean_us']:.0f} us"
      f"{'' if ok else '  <- dd more than 20 % off'}")
sys.exit(0 if ok else 1)
PY
done
exit $status
