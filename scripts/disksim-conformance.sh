#!/usr/bin/env bash
# iosched's disk model against DiskSim itself, request by request, on every drive DiskSim was validated on.
#
# Builds DiskSim from ../shared/peers (once, into $PEERS_BUILD), then for each drive file runs
#   iosched validate --disksim DRIVE.parv,conform=C --synthetic N --runs R --against-disksim DISKSIM --json
# (R traces of N requests made up to exercise the model: random and sequential reads and writes of 1 block to a
# segment, re-reads, reads of written data, no, short and long think times; each on a fresh drive and a fresh
# DiskSim) and prints, per drive, the share of requests within 0.05 ms of DiskSim and the demerit between the two
# simulators; with -v, the same per kind of request.
# Traces are kept short because DiskSim's rotational position drifts: its fixed-point angle loses up to 2^-24 of a
# turn at each sector it passes, tens of microseconds over a few thousand requests.
#
# Usage: scripts/disksim-conformance.sh [-v] [-l] [-n REQUESTS] [-s RUNS] [-c disksim|refined] [DRIVE...]
#   -n  requests per trace (default 300)    -s  traces per drive (default 10)    -c  conform= (default disksim)
#   -l  reads larger than a segment instead (--large-reads; use short traces, as -n 8 -s 40, for the drift)
#   DRIVE  names in ../shared/peers/disksim/valid (default: the ten drives of DiskSim's runvalid)
# Environment: IOSCHED (the binary; default target/release/iosched, built if missing), IOSCHED_TEST_PEERS (default
# ../shared/peers), PEERS_BUILD (default /tmp/iosched-peers).
set -euo pipefail
cd "$(dirname "$0")/.."
verbose=0 n=300 seeds=10 conform=disksim large=()
while getopts "vln:s:c:" opt; do
    case $opt in
        v) verbose=1 ;;
        l) large=(--large-reads) ;;
        n) n=$OPTARG ;;
        s) seeds=$OPTARG ;;
        c) conform=$OPTARG ;;
        *) sed -n '2,17p' "$0" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
peers="${IOSCHED_TEST_PEERS:-../shared/peers}"
build="${PEERS_BUILD:-/tmp/iosched-peers}"
valid="$peers/disksim/valid"
[ -d "$valid" ] || { echo "error: $valid not found (set IOSCHED_TEST_PEERS)" >&2; exit 1; }
"$peers/build.sh" "$build" >/dev/null
disksim="$build/disksim/src/disksim"
iosched="${IOSCHED:-target/release/iosched}"
[ -x "$iosched" ] || cargo build --release --quiet -p iosched
drives=("$@")
[ ${#drives[@]} -gt 0 ] || drives=(atlas_III barracuda cheetah4LP cheetah9LP ibm18es atlas10k hp_c2247a hp_c3323a hp_c2490a dec_rz26)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for d in "${drives[@]}"; do
    "$iosched" validate --disksim "$valid/$d.parv,conform=$conform" --synthetic "$n" --runs "$seeds" \
        "${large[@]}" --against-disksim "$disksim" --json >"$out/$d.json" 2>"$out/$d.err" ||
        { echo "$d: $(tail -1 "$out/$d.err")" >&2; rm -f "$out/$d.json"; }
done
python3 - "$out" "$verbose" "${drives[@]}" <<'EOF'
import json, sys
out, verbose, drives = sys.argv[1], sys.argv[2] == "1", sys.argv[3:]
print(f"{'drive':<12} {'requests':>8} {'within 0.05 ms':>15} {'demerit ms':>11}  DiskSim stopped early")
for d in drives:
    try:
        r = json.load(open(f"{out}/{d}.json"))["disksim"]
    except FileNotFoundError:
        print(f"{d:<12} (no run)")
        continue
    failures = r["failures"]
    stopped = f"{len(failures)} runs" if failures else ""
    print(f"{d:<12} {r['requests']:>8} {100 * r['share_within']:>14.1f}% {r['rms_ms']:>11.4f}  {stopped}")
    if verbose:
        for g in r["groups"]:
            print(f"    {g['name']:<30} {g['requests']:>6} {100 * g['within'] / g['requests']:>6.1f}%  "
                  f"mean diff {g['mean_difference_ms']:+.4f} ms")
EOF
