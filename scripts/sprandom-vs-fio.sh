#!/usr/bin/env bash
# fio's sprandom against iosched's: the same job (randwrite, bs=4k, norandommap, size=512m, spr_op=0.15,
# spr_num_regions=100) written out as an iolog by fio (the release `scripts/fio-examples.sh sid` fetched and
# built) and by `iosched sim --write-iolog`; for each, the writes, the blocks written, and over regions 0-4,
# 48-52 and 95-99 the share of writes whose block is written again later (the model: 0.244, 0.131, 0.005).
#
#   scripts/sprandom-vs-fio.sh
set -euo pipefail
cd "$(dirname "$0")/.."

fio=$(ls target/fio-source-sid/fio-*/fio 2>/dev/null | head -1 || true)
[ -x "$fio" ] || bash scripts/fio-examples.sh sid >/dev/null
fio=$(ls target/fio-source-sid/fio-*/fio | head -1)
cargo build --release -q -p iosched
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
opts=(--rw=randwrite --bs=4k --blockalign=4k --norandommap=1 --size=512m --sprandom=1 --spr_op=0.15
    --spr_num_regions=100)
truncate -s 512m "$work/target.img"
"$fio" --name=spr --filename="$work/target.img" --ioengine=null "${opts[@]}" --write_iolog="$work/fio.iolog" \
    --output=/dev/null
printf '[spr]\nioengine=libaio\n%s\n' "$(printf '%s\n' "${opts[@]}" | sed 's/^--//')" > "$work/spr.fio"
./target/release/iosched sim "$work/spr.fio" --device simple,capacity_gib=1 --write-iolog "$work/iosched.iolog" \
    >/dev/null
python3 - "$($fio --version)" "$work/fio.iolog" "$work/iosched.iolog" <<'PY'
import sys
physical = 150733  # 131072 blocks x 1.15, rounded up: fio's size for the job
for name, path in [(sys.argv[1], sys.argv[2]), ("iosched", sys.argv[3])]:
    offsets = [int(l.split()[3]) for l in open(path) if len(l.split()) == 5 and l.split()[2] == "write"]
    later, rewritten = set(), [False] * len(offsets)
    for i in range(len(offsets) - 1, -1, -1):
        rewritten[i] = offsets[i] in later
        later.add(offsets[i])
    region = physical // 100
    def share(first, last):
        span = rewritten[first * region:last * region]
        return sum(span) / max(1, len(span))
    print(f"{name:10} writes {len(offsets):7} blocks {len(set(offsets)):7} rewritten: regions 0-4 {share(0, 5):.3f}"
          f" 48-52 {share(48, 53):.3f} 95-99 {share(95, 100):.3f}")
PY
