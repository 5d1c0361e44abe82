#!/usr/bin/env bash
# Issue 9's first figure: `iosched run` against fio on the same job file, side by side in one script.
# 4 KiB random reads, queue depth 32, O_DIRECT, io_uring, on a 1 GiB file; rounds alternate fio, iosched noop and
# iosched bfq so that drift of a noisy machine hits all three alike. Prints each round and the median ratios.
#
#   scripts/live-vs-fio.sh [DIR] [ROUNDS] [SECONDS]     (default: ./target/live-bench, 5 rounds of 5 s)
set -euo pipefail
dir=${1:-target/live-bench}
rounds=${2:-5}
seconds=${3:-5}
command -v fio >/dev/null || { echo "installing fio" >&2; apt-get install -y fio >/dev/null; }
cargo build --release -q -p iosched
bin=$PWD/target/release/iosched
mkdir -p "$dir"
job=$dir/randread-4k-qd32.fio
cat > "$job" <<JOB
[global]
filename=$(realpath "$dir")/bench.dat
size=1g
direct=1
ioengine=io_uring
rw=randread
bs=4k
iodepth=32
runtime=$seconds
time_based
[randread]
JOB
# fio lays the file out (written in full) if needed; a short read-only warm-up run does it.
fio "$job" --runtime=1 --output-format=terse >/dev/null
iops() { python3 -c 'import json,sys; print(round(json.load(sys.stdin)["jobs"][0]["read"]["iops"]))'; }
declare -a f n b
for r in $(seq "$rounds"); do
    f+=("$(fio "$job" --output-format=json | iops)")
    n+=("$("$bin" run "$job" --policy noop --json | iops)")
    b+=("$("$bin" run "$job" --policy bfq --json | iops)")
    echo "round $r: fio ${f[-1]} IOPS, iosched noop ${n[-1]}, iosched bfq ${b[-1]}"
done
python3 - "${f[*]}" "${n[*]}" "${b[*]}" <<'PY'
import statistics, sys
f, n, b = ([int(x) for x in a.split()] for a in sys.argv[1:4])
mf, mn, mb = (statistics.median(x) for x in (f, n, b))
print(f"median: fio {mf:.0f} IOPS; iosched noop {mn:.0f} ({mn / mf:.1%} of fio), bfq {mb:.0f} ({mb / mf:.1%} of fio)")
PY
