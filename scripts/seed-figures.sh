#!/usr/bin/env bash
# Every figure the seeds give, beside iosched's, as a Markdown table (README's "How the experiments compare with
# their seeds"): runs each built-in experiment once (`iosched experiment NAME --json`) and prints one row per
# [[case.figure]] of its experiment.toml.
# Usage: scripts/seed-figures.sh [IOSCHED_BINARY]
set -euo pipefail
bin="${1:-$(cd "$(dirname "$0")/.." && pwd)/target/release/iosched}"
echo "| experiment | case | the seed says | its range | iosched | verdict |"
echo "|---|---|---|---|---|---|"
for e in geom-sched netflix-fill bfq-startup dbload; do
    "$bin" experiment "$e" --json | python3 -c "
import json, sys
for f in json.load(sys.stdin)['seed_figures']:
    lo, hi = f.get('low'), f.get('high')
    span = f'{lo:g} to {hi:g}' if lo is not None and hi is not None else (f'at least {lo:g}' if lo is not None else f'at most {hi:g}')
    if f.get('relative_to'):
        span += f' ({f[\"policy\"]} / {f[\"relative_to\"]})'
    mine = '-' if f['iosched'] is None else f'{f[\"iosched\"]:.3g}'
    verdict = 'not run' if f['holds'] is None else ('holds' if f['holds'] else 'does not hold')
    print(f'| $e | {f[\"case\"]} | {f[\"says\"]} | {span} | {mine} | {verdict} |')
"
done
