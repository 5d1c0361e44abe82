#!/usr/bin/env bash
# Run every job file of fio's examples/ folder through `iosched sim` and sort the outcomes: simulated, refused as
# not block I/O (the engine is named), refused for a device kind iosched does not have (zoned), written for a
# larger device than the default, refused by fio itself (`fio --parse-only`, the oracle), or block I/O refused
# (what iosched still owes). Prints one line per file and the counts.
#
#   scripts/fio-examples.sh [EXAMPLES_DIR | sid]
#
# Without EXAMPLES_DIR, the examples of the installed fio's own source package are used (fetched once with
# `apt-get source`, which needs a deb-src entry: one is added for Debian's archive when missing). `sid` fetches
# the newest fio release's source from Debian unstable instead (with a private apt configuration, nothing is
# installed) into target/fio-source-sid; its HOWTO.rst is then at hand for the fio_options test
# (IOSCHED_FIO_HOWTO=target/fio-source-sid/fio-*/HOWTO.rst), and that release is built (a couple of minutes) to be
# the oracle, so that a file is listed as refused by fio only when that fio refuses it.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${1:-}
if [ "$dir" = sid ]; then
    cache=$PWD/target/fio-source-sid
    dir=$(ls -d "$cache"/fio-*/examples 2>/dev/null | head -1 || true)
    if [ -z "$dir" ]; then
        mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache"
        printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: sid\nComponents: main\nSigned-By: %s\n' \
            /usr/share/keyrings/debian-archive-keyring.gpg > "$cache/apt/sid.sources"
        apt_opts=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$cache/apt"
            -o Dir::State::Lists="$cache/apt/lists" -o Dir::Cache="$cache/apt/cache")
        apt-get "${apt_opts[@]}" update -qq
        # Only the upstream tarball is needed (Debian's packaging may be missing from the mirror).
        (cd "$cache" && apt-get "${apt_opts[@]}" source -qq --download-only fio >/dev/null 2>&1 || true)
        tar xzf "$(ls "$cache"/fio_*.orig.tar.* | head -1)" -C "$cache"
        dir=$(ls -d "$cache"/fio-*/examples | head -1)
    fi
    src=$(dirname "$dir")
    if [ ! -x "$src/fio" ]; then
        echo "building $(basename "$src") to be the oracle" >&2
        (cd "$src" && ./configure --disable-native >/dev/null && make -s -j"$(nproc)" fio >/dev/null)
    fi
    oracle=$src/fio
fi
oracle=${oracle:-fio}
if [ -z "$dir" ]; then
    command -v fio >/dev/null || apt-get install -y -qq fio >/dev/null
    version=$(fio --version | sed 's/^fio-//')
    cache=target/fio-source
    dir=$(ls -d "$cache"/fio-"$version"*/examples 2>/dev/null | head -1 || true)
    if [ -z "$dir" ]; then
        if ! grep -rqs '^Types: deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
            src=/etc/apt/sources.list.d/debian.sources
            [ -f "$src" ] || { echo "no deb-src entry and no $src to copy one from" >&2; exit 1; }
            sed 's/^Types: deb$/Types: deb-src/' "$src" > /etc/apt/sources.list.d/iosched-deb-src.sources
            apt-get update -qq
        fi
        mkdir -p "$cache"
        (cd "$cache" && apt-get source -qq --download-only fio >/dev/null 2>&1 && tar xzf fio_*.orig.tar.gz)
        dir=$(ls -d "$cache"/fio-*/examples | head -1)
    fi
fi
[ -d "$dir" ] || { echo "no examples folder at '$dir'" >&2; exit 1; }

cargo build --release -q -p iosched
bin=target/release/iosched
declare -A count
for f in "$dir"/*.fio; do
    name=$(basename "$f")
    # --runtime only bounds time_based jobs (an hour of simulated time is not what this checks).
    if err=$(cd "$(dirname "$f")" && timeout 120 "$OLDPWD/$bin" sim "$name" --runtime 0.2 2>&1 >/dev/null); then
        outcome="simulates"
    elif grep -q "^iosched: error: job '.*' failed with error" <<<"$err"; then
        # Simulated; a job failed (a check, rate_min, max_latency) and the run exits 1, as fio's would.
        outcome="simulates, a job failed"
    elif grep -q "does not do block I/O\|non-block I/O engine" <<<"$err"; then
        outcome="not block I/O"
    elif grep -q "zoned device model" <<<"$err"; then
        outcome="needs a zoned device"
    elif grep -q "written for a larger device" <<<"$err"; then
        outcome="needs a larger device"
    elif ! (cd "$(dirname "$f")" && "$oracle" --parse-only "$name" >/dev/null 2>&1); then
        outcome="refused by fio too"
    else
        outcome="BLOCK I/O REFUSED"
    fi
    count[$outcome]=$(( ${count[$outcome]:-0} + 1 ))
    reason=$(grep -v '^iosched: warning' <<<"$err" | head -1 | sed 's/^iosched: error: //' | cut -c1-160)
    printf '%-34s %-22s %s\n' "$name" "$outcome" "$([ "$outcome" = simulates ] || echo "$reason")"
done
echo
total=0
for k in "${!count[@]}"; do total=$(( total + count[$k] )); done
echo "$total job files in $dir (oracle $("$oracle" --version)):"
for k in "simulates" "not block I/O" "needs a zoned device" "needs a larger device" "refused by fio too" \
    "BLOCK I/O REFUSED"; do
    printf '  %-22s %d\n' "$k" "${count[$k]:-0}"
done
