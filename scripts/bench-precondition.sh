#!/usr/bin/env bash
# Time steady-state preconditioning of an SSD (sequential fill, then two drive-writes of random overwrites with
# greedy cleaning) in two iosched binaries, alternating runs so that both see the same machine, and print each
# run and the ratio of the sums. After the preconditioning the job writes IO_SIZE of random 4 KiB writes over the
# whole drive through the drive model: by default only 4 MiB, so that the time is the preconditioning's.
#
# Usage: scripts/bench-precondition.sh BASELINE_BINARY [BINARY] [RUNS] [DEVICE] [IO_SIZE]
#   BINARY  default target/release/iosched        RUNS  default 3
#   DEVICE  default ssd:nvme,capacity_gib=64,op=0.07,precondition=steady        IO_SIZE  default 4m
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '2,10p' "$0" >&2; exit 2; }
base=$1 new=${2:-target/release/iosched} runs=${3:-3}
device=${4:-ssd:nvme,capacity_gib=64,op=0.07,precondition=steady} io_size=${5:-4m}
for b in "$base" "$new"; do [ -x "$b" ] || { echo "error: $b is not an executable" >&2; exit 1; }; done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '[overwrite]\nrw=randwrite\nbs=4k\nioengine=libaio\niodepth=32\nsize=100%%\nio_size=%s\nnorandommap\n' \
    "$io_size" >"$dir/job.fio"
millis() {
    local s
    s=$(date +%s%N)
    "$1" sim "$dir/job.fio" --device "$device" --json >"$dir/out.json"
    echo $((($(date +%s%N) - s) / 1000000))
}
sum_base=0 sum_new=0
for i in $(seq "$runs"); do
    tb=$(millis "$base")
    tn=$(millis "$new")
    echo "run $i: baseline $tb ms, new $tn ms"
    sum_base=$((sum_base + tb)) sum_new=$((sum_new + tn))
done
awk -v d="$device" -v n="$sum_new" -v b="$sum_base" 'BEGIN { printf "%s: new / baseline = %.2f\n", d, n / b }'
