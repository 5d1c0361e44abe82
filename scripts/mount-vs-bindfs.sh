#!/usr/bin/env bash
# Issue 10's second figure: a scheduling mount (iosched create, noop) against bindfs, another FUSE passthrough, on
# the same directory and machine, side by side. Three fio workloads, all O_DIRECT through the mount (so the page
# cache does not answer for either): 4 KiB random reads (libaio, queue depth 16), 128 KiB sequential reads and
# 128 KiB sequential writes (psync). Rounds alternate bindfs and iosched so that a noisy machine's drift hits both;
# prints each round and the median ratio iosched / bindfs per workload.
#
#   scripts/mount-vs-bindfs.sh [DIR] [ROUNDS] [SECONDS]     (default: ./target/mount-bench, 3 rounds of 5 s)
set -euo pipefail
dir=$(realpath -m "${1:-target/mount-bench}")
rounds=${2:-3}
seconds=${3:-5}
for tool in fio bindfs; do
    command -v $tool >/dev/null || { echo "installing $tool" >&2; apt-get install -y $tool fuse3 >/dev/null; }
done
cargo build --release -q -p iosched
bin=$PWD/target/release/iosched
src=$dir/src
mkdir -p "$src" "$dir/bindfs" "$dir/iosched"
cleanup() {
    "$bin" destroy "$dir/iosched" >/dev/null 2>&1 || true
    fusermount3 -u "$dir/bindfs" 2>/dev/null || umount "$dir/bindfs" 2>/dev/null || true
}
trap cleanup EXIT
job() { # name rw bs extra
    cat <<JOB
[global]
filename=bench.dat
size=1g
direct=1
runtime=$seconds
time_based
[$1]
rw=$2
bs=$3
$4
JOB
}
job randread randread 4k $'ioengine=libaio\niodepth=16' > "$dir/randread.fio"
job seqread read 128k ioengine=psync > "$dir/seqread.fio"
job seqwrite write 128k ioengine=psync > "$dir/seqwrite.fio"
# Lay the file out once, underneath.
(cd "$src" && fio "$dir/seqread.fio" --runtime=1 --output-format=terse >/dev/null)
bindfs "$src" "$dir/bindfs"
"$bin" create "$src" "$dir/iosched" --policy noop 2>/dev/null
rate() { # workload mountpoint -> IOPS (reads: read side; writes: write side)
    (cd "$2" && fio "$dir/$1.fio" --output-format=json) | python3 -c '
import json, sys
j = json.load(sys.stdin)["jobs"][0]
print(round(j["write" if sys.argv[1] == "seqwrite" else "read"]["iops"]))' "$1"
}
results=()
for r in $(seq "$rounds"); do
    line="round $r:"
    for w in randread seqread seqwrite; do
        b=$(rate $w "$dir/bindfs")
        i=$(rate $w "$dir/iosched")
        results+=("$w $b $i")
        line="$line  $w bindfs $b iosched $i IOPS"
    done
    echo "$line"
done
printf '%s\n' "${results[@]}" | python3 -c '
import statistics, sys
by = {}
for line in sys.stdin:
    w, b, i = line.split()
    by.setdefault(w, []).append((int(b), int(i)))
worst = None
for w, pairs in by.items():
    ratio = statistics.median(i / b for b, i in pairs)
    size = 4096 if w == "randread" else 131072
    b_med = statistics.median(b for b, _ in pairs)
    i_med = statistics.median(i for _, i in pairs)
    print(f"{w}: bindfs {b_med:.0f} IOPS ({b_med*size/1e6:.0f} MB/s), iosched {i_med:.0f} IOPS ({i_med*size/1e6:.0f} MB/s): "
          f"iosched/bindfs {ratio:.3f}")
    worst = ratio if worst is None else min(worst, ratio)
sys.exit(0 if worst >= 0.95 else 1)'
