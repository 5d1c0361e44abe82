#!/usr/bin/env bash
# Issue 10's fourth figure: the geom-sched effect with real programs. A directory holds a large file and 400 small
# ones; `iosched insert DIR --emulate hdd:sata7200,queue_depth=1 --cache direct` puts a scheduler and a 2008 disk's
# timing under it. A real `dd` reads the large file while a real program (python) reads whole small files at
# random, for SECONDS, under each policy. geom_sched's rr keeps the disk on dd's stream (anticipation) where noop
# lets every small read seek it away. Prints dd's and the reader's throughput per policy (from the mount's own
# report) and the ratio rr / noop for dd; exits non-zero if it is below 3.
#
#   scripts/mount-emulate-geom.sh [DIR] [SECONDS]     (default: ./target/mount-geom, 15 s)
set -euo pipefail
dir=$(realpath -m "${1:-target/mount-geom}")
seconds=${2:-15}
cargo build --release -q -p iosched
bin=$PWD/target/release/iosched
mkdir -p "$dir/small"
# The large file is sparse (reading its holes costs the real disk nothing: the model sets the time).
truncate -s 8G "$dir/big.dat"
for i in $(seq 0 399); do
    [ -e "$dir/small/f$i" ] || head -c 16384 /dev/urandom > "$dir/small/f$i"
done
trap '"$bin" destroy "$dir" >/dev/null 2>&1 || true' EXIT
declare -A dd_mbs
for policy in noop rr; do
    "$bin" insert "$dir" --policy "$policy" --emulate hdd:sata7200,queue_depth=1 --cache direct 2>/dev/null
    dd if="$dir/big.dat" of=/dev/null bs=64k 2>/dev/null &
    ddpid=$!
    python3 - "$dir/small" "$seconds" <<'PY' &
import os, random, sys, time
d, seconds = sys.argv[1], float(sys.argv[2])
rng = random.Random(1)
end = time.monotonic() + seconds
while time.monotonic() < end:
    with open(os.path.join(d, f"f{rng.randrange(400)}"), "rb") as f:
        f.read()
PY
    reader=$!
    wait $reader
    report=$("$bin" stats "$dir" --json)
    kill $ddpid 2>/dev/null || true
    wait $ddpid 2>/dev/null || true
    "$bin" destroy "$dir" >/dev/null 2>&1
    line=$(python3 - "$report" <<'PY'
import json, sys
run = json.loads(sys.argv[1])
def mbs(command):
    jobs = [j for j in run["jobs"] if j["jobname"].endswith(f"({command})")]
    b = sum(j["read"]["io_bytes"] for j in jobs)
    ms = max((j["read"]["runtime"] for j in jobs), default=0)
    return b / 1e6 / (ms / 1e3) if ms else 0.0
print(f"{mbs('dd'):.2f} {mbs('python3'):.3f}")
PY
)
    read -r dd reader_mbs <<<"$line"
    dd_mbs[$policy]=$dd
    echo "$policy: dd $dd MB/s, small-file reader $reader_mbs MB/s"
done
python3 - "${dd_mbs[noop]}" "${dd_mbs[rr]}" <<'PY'
import sys
noop, rr = float(sys.argv[1]), float(sys.argv[2])
ratio = rr / noop if noop else float("inf")
print(f"dd under rr / dd under noop: {ratio:.2f} (geom_sched's claim: several times; required >= 3)")
sys.exit(0 if ratio >= 3 else 1)
PY
