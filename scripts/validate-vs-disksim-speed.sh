#!/usr/bin/env bash
# A whole `iosched validate` process against DiskSim on the same 2 million requests (cheetah9LP's validation
# trace 200 times over), trace reading included, both timed in this script (the machine is noisy: the ratio is
# the figure to keep). Western Digital's DiskSim build holds at most 200,000 requests a run (MAX_NUM_SIM_RESULTS),
# so DiskSim runs the trace as processes of 199,999 requests, one after the other, and their times are summed.
# Usage: scripts/validate-vs-disksim-speed.sh [REPEATS]   (the trace is REPEATS x 10,000 requests; default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
data="${IOSCHED_TEST_DATA:-../shared/data}"
peers="${IOSCHED_TEST_PEERS:-../shared/peers}"
build="${PEERS_BUILD:-/tmp/iosched-peers}"
repeats="${1:-200}"
"$peers/build.sh" "$build" >/dev/null
cargo build --release -q -p iosched
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for _ in $(seq "$repeats"); do cat "$data/disksim/cheetah9LP.trace"; done > "$tmp/big.trace"
lines=$(wc -l < "$tmp/big.trace")
split -l 199999 -d -a 3 "$tmp/big.trace" "$tmp/part."
now() { date +%s%N; }
# iosched: the best of three whole processes (a first one warms the page cache for both).
iosched_ns=
for _ in 1 2 3; do
    start=$(now)
    target/release/iosched validate --disksim "$data/disksim/cheetah9LP.parv" --trace "$tmp/big.trace" >/dev/null 2>&1
    t=$(( $(now) - start ))
    if [ -z "$iosched_ns" ] || [ "$t" -lt "$iosched_ns" ]; then iosched_ns=$t; fi
done
mkdir -p "$tmp/valid"
for f in "$peers"/disksim/valid/*; do ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$tmp/valid/"; done
start=$(now)
for part in "$tmp"/part.*; do
    (cd "$tmp/valid" && "$build/disksim/src/disksim" cheetah9LP.parv "$tmp/out.outv" validate "$part" 0 >/dev/null 2>&1)
done
disksim_ns=$(( $(now) - start ))
printf 'requests\tiosched validate (s)\tDiskSim (s)\tratio\n'
printf '%s\t%s\t%s\t%s\n' "$lines" "$(echo "scale=3; $iosched_ns / 1000000000" | bc)" \
    "$(echo "scale=2; $disksim_ns / 1000000000" | bc)" "$(echo "scale=0; $disksim_ns / $iosched_ns" | bc)"
