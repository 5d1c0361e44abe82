#!/usr/bin/env bash
# The seed experiments' figures over the job-file parameters the seeds do not give: bfq-startup's application
# think time (app.fio: 15 ms after every 8 reads) and geom-sched's cvs locality (cvs.fio: a long seek every 128 reads). Each value
# runs an exported copy of the experiment with that one line changed; prints the figure the seed reports.
# Usage: scripts/experiment-sweeps.sh [IOSCHED_BINARY]
set -euo pipefail
bin="${1:-$(cd "$(dirname "$0")/.." && pwd)/target/release/iosched}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$bin" experiment bfq-startup --export "$work/bfq" >/dev/null
echo "bfq-startup: start-up time, cfq / bfq (the seed: bfq 5-14x faster), by the application's think time"
for think_ms in 1 3 5 7 10 15 20 30; do
    sed -i "s/^thinktime=.*/thinktime=${think_ms}ms/" "$work/bfq/app.fio"
    "$bin" experiment "$work/bfq" --json --policies bfq,cfq | python3 -c "
import json, sys
d = json.load(sys.stdin)
r = {(x['policy'], x['background']): x['startup_s'] for x in d['results']}
cases = sorted({b for _, b in r})
print('  think %2d ms: ' % $think_ms + ', '.join('%s %.2fx' % (b, r[('cfq', b)] / r[('bfq', b)]) for b in cases))"
done

"$bin" experiment geom-sched --export "$work/gs" >/dev/null
echo "geom-sched: dd's rate under rr (the seed: 30 MB/s read, 14 MB/s write) and how much slower cvs is than alone"
echo "(the seed: ok), by how many reads cvs makes between long seeks (cvs.fio: randread:128)"
for run in 8 32 64 128 256 1024; do
    sed -i "s/^rw=randread.*/rw=randread:${run}/" "$work/gs/cvs.fio"
    "$bin" experiment "$work/gs" --json --policies noop,rr | python3 -c "
import json, sys
d = json.load(sys.stdin)
r = {(x['policy'], x['case']): x for x in d['results']}
line = '  every %4d reads:' % $run
for case in ('dd-read+cvs', 'dd-write+cvs'):
    line += ' %s: rr dd %.1f MB/s, cvs %.1fx slower (noop: dd %.1f, cvs %.1fx);' % (case, r[('rr', case)]['dd_mb_per_s'],
        r[('rr', case)]['cvs_slowdown'], r[('noop', case)]['dd_mb_per_s'], r[('noop', case)]['cvs_slowdown'])
print(line)"
done
