#!/usr/bin/env python3
"""Which dependencies a package built on its own gets with other features than `cargo test --workspace` gives
them. Each such dependency, and everything above it, is compiled twice in CI: once for the tests and once when
the package is built alone (the fuzzer by `cargo run -p iosched-fuzz`, the Python module by maturin).
crates/iosched-workspace-hack turns those features on for the packages that depend on it.

Usage: scripts/feature-drift.py PACKAGE...   (for example: iosched-py iosched-fuzz)
Prints each difference and exits 1 if there is one; says so and exits 0 if there is none. Needs cargo.
"""
import subprocess
import sys


def features(args):
    """{package with version: set of feature lists} as `cargo tree` resolves them for `args`."""
    out = subprocess.run(
        ["cargo", "tree", "--prefix", "none", "-f", "{p} [{f}]"] + args,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = {}
    for line in out.splitlines():
        line = line.strip().replace(" (*)", "")
        if " [" not in line:
            continue
        name = line[: line.index(" [")]
        found.setdefault(name, set()).add(line[line.index(" [") + 2 : line.rindex("]")])
    return found


def main():
    packages = sys.argv[1:]
    if not packages or any(p.startswith("-") for p in packages):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    # The test build: every member with its dev-dependencies.
    tests = features(["--workspace", "-e", "normal,dev,build"])
    drift = 0
    for package in packages:
        alone = features(["-p", package, "-e", "normal,build"])
        for dep in sorted(alone):
            if dep in tests and alone[dep] != tests[dep]:
                drift += 1
                print(f"{package}: {dep} gets [{' | '.join(sorted(alone[dep]))}] alone, "
                      f"[{' | '.join(sorted(tests[dep]))}] in the test build")
    if drift:
        print(f"{drift} dependencies differ: add the test build's features to crates/iosched-workspace-hack/Cargo.toml",
              file=sys.stderr)
        return 1
    print(f"{', '.join(packages)}: every dependency has the test build's features")
    return 0


if __name__ == "__main__":
    sys.exit(main())
