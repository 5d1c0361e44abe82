#!/usr/bin/env bash
# The seed experiments' figures over the job-file parameters the seeds do not give: bfq-startup's application
# think time (app.fio: 15 ms after every 8 reads) and geom-sched's cvs random share (cvs.fio: 10 %). Each value
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
echo "geom-sched, dd-read + cvs: dd's rate under rr against noop (the seed: 30 against 6 MB/s), cvs's rate, by cvs's random share"
for random_percent in 10 25 50 75 100; do
    sed -i "s/^percentage_random=.*/percentage_random=${random_percent}/" "$work/gs/cvs.fio"
    "$bin" experiment "$work/gs" --json --policies noop,rr | python3 -c "
import json, sys
d = json.load(sys.stdin)
r = {x['policy']: x for x in d['results'] if x['case'] == 'dd-read+cvs'}
print('  random %3d %%: dd rr %.1f / noop %.1f MB/s = %.1fx; cvs rr %.1f, noop %.1f ops/s' % ($random_percent,
      r['rr']['dd_mb_per_s'], r['noop']['dd_mb_per_s'], r['rr']['dd_mb_per_s'] / r['noop']['dd_mb_per_s'],
      r['rr']['cvs_ops_per_s'], r['noop']['cvs_ops_per_s']))"
done
