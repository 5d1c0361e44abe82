#!/usr/bin/env bash
# Reading and replaying one trace in three formats: MQSim's wsrch-small as shipped, and the same requests as
# blkparse text (3 events per request) and as a fio iolog v3, both written by iosched itself. Each is replayed
# as fast as possible on the simple device; the wall time per run is reported, and its ratio to the MQSim run
# measured in the same script (the machine is noisy; the ratios are the figure to keep).
set -euo pipefail
cd "$(dirname "$0")/.."
data="${IOSCHED_TEST_DATA:-../shared/data}"
cargo build --release -q -p iosched
bin=target/release/iosched
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$bin sim --trace "$data/mqsim/wsrch-small.trace" --write-blkparse "$tmp/w.blk" --write-iolog "$tmp/w.iolog" >/dev/null 2>&1
runs=${RUNS:-20}
time_of() {
    local start end
    start=$(date +%s%N)
    for _ in $(seq "$runs"); do $bin sim --trace "$1" --replay afap >/dev/null 2>&1; done
    end=$(date +%s%N)
    echo $(( (end - start) / runs / 1000 ))
}
base=$(time_of "$data/mqsim/wsrch-small.trace")
blk=$(time_of "$tmp/w.blk")
iolog=$(time_of "$tmp/w.iolog")
printf 'format\tlines\twall per run (us)\tratio to mqsim\n'
printf 'mqsim\t%s\t%s\t1.00\n' "$(wc -l < "$data/mqsim/wsrch-small.trace")" "$base"
printf 'blkparse\t%s\t%s\t%s\n' "$(wc -l < "$tmp/w.blk")" "$blk" "$(echo "scale=2; $blk / $base" | bc)"
printf 'iolog3\t%s\t%s\t%s\n' "$(wc -l < "$tmp/w.iolog")" "$iolog" "$(echo "scale=2; $iolog / $base" | bc)"
