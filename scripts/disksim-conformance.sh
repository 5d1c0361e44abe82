#!/usr/bin/env bash
# iosched's disk model against DiskSim itself, request by request, on every drive DiskSim was validated on.
#
# Builds DiskSim from ../shared/peers (once, into $PEERS_BUILD), then for each drive file runs
#   iosched validate --disksim DRIVE.parv$SPEC --synthetic N --seed S --against-disksim DISKSIM --json
# (requests made up to exercise the model: random and sequential reads and writes of 1 to 256 blocks, re-reads,
# reads of written data, no, short and long think times) and prints, per drive, the share of requests within
# 0.05 ms of DiskSim and the demerit between the two simulators; with -v, the same per kind of request.
#
# Usage: scripts/disksim-conformance.sh [-v] [-n REQUESTS] [-s SEEDS] [-c disksim|refined] [DRIVE...]
#   -n  requests per trace (default 3000)    -s  seeds 1..S (default 1)    -c  conform= (default disksim)
#   DRIVE  names in ../shared/peers/disksim/valid (default: the ten drives of DiskSim's runvalid)
# Environment: IOSCHED (the binary; default target/release/iosched, built if missing), IOSCHED_TEST_PEERS (default
# ../shared/peers), PEERS_BUILD (default /tmp/iosched-peers).
set -euo pipefail
cd "$(dirname "$0")/.."
verbose=0 n=3000 seeds=1 conform=disksim
while getopts "vn:s:c:" opt; do
    case $opt in
        v) verbose=1 ;;
        n) n=$OPTARG ;;
        s) seeds=$OPTARG ;;
        c) conform=$OPTARG ;;
        *) sed -n '2,16p' "$0" >&2; exit 2 ;;
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
    for seed in $(seq 1 "$seeds"); do
        "$iosched" validate --disksim "$valid/$d.parv,conform=$conform" --synthetic "$n" --seed "$seed" \
            --against-disksim "$disksim" --json >"$out/$d.$seed.json" 2>"$out/$d.$seed.err" ||
            { echo "$d seed $seed: $(tail -1 "$out/$d.$seed.err")" >&2; continue; }
    done
done
python3 - "$out" "$verbose" "${drives[@]}" <<'EOF'
import glob, json, sys
out, verbose, drives = sys.argv[1], sys.argv[2] == "1", sys.argv[3:]
print(f"{'drive':<12} {'requests':>8} {'within 0.05 ms':>15} {'demerit ms':>11}  DiskSim stopped early")
for d in drives:
    runs = [json.load(open(p))["disksim"] for p in sorted(glob.glob(f"{out}/{d}.*.json"))]
    if not runs:
        print(f"{d:<12} (no run)")
        continue
    req = sum(r["requests"] for r in runs)
    within = sum(r["within"] for r in runs)
    rms = max(r["rms_ms"] for r in runs)
    failures = [r["failure"] for r in runs if r["failure"]]
    print(f"{d:<12} {req:>8} {100 * within / req:>14.1f}% {rms:>11.4f}  {failures[0][:60] if failures else ''}")
    if verbose:
        groups = {}
        for r in runs:
            for g in r["groups"]:
                a = groups.setdefault(g["name"], [0, 0, 0.0])
                a[0] += g["requests"]; a[1] += g["within"]; a[2] += g["mean_difference_ms"] * g["requests"]
        for name, (k, w, s) in sorted(groups.items()):
            print(f"    {name:<30} {k:>6} {100 * w / k:>6.1f}%  mean diff {s / k:+.4f} ms")
EOF
