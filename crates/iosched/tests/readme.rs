//! README.md as a newcomer uses it: every command block runs as written (so its examples cannot rot), and its
//! prose carries no measured figure that no command checks (figures belong where a command regenerates them:
//! the commands' own output, BENCHMARKS.md).
//!
//! A block the test cannot run is preceded by `<!-- readme-test: not run (REASON) -->`, and REASON says which
//! other test runs its commands or why none can.

use std::path::{Path, PathBuf};
use std::process::Command;

fn readme() -> String {
    std::fs::read_to_string(repo().join("README.md")).expect("README.md")
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// A ```sh block: its first line's number, whether it is marked not run, and its commands (continuation lines
/// joined, comments dropped).
struct Block {
    line: usize,
    not_run: Option<String>,
    commands: Vec<String>,
}

fn blocks(text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "```sh" {
            i += 1;
            continue;
        }
        let marker = lines[..i].iter().rev().find(|l| !l.trim().is_empty()).copied().unwrap_or_default();
        let not_run = marker
            .trim()
            .strip_prefix("<!-- readme-test: not run (")
            .and_then(|r| r.strip_suffix(") -->"))
            .map(str::to_string);
        let start = i + 1;
        let mut commands = Vec::new();
        let mut current = String::new();
        i += 1;
        while i < lines.len() && lines[i].trim() != "```" {
            let line = lines[i];
            let code = match line.find(" #") {
                Some(at) => &line[..at],
                None => line,
            };
            let code = code.trim_end();
            match code.strip_suffix('\\') {
                Some(part) => current.push_str(part),
                None => {
                    current.push_str(code);
                    if !current.trim().is_empty() {
                        commands.push(current.split_whitespace().collect::<Vec<_>>().join(" "));
                    }
                    current.clear();
                }
            }
            i += 1;
        }
        assert!(i < lines.len(), "README.md:{start}: a ```sh block that is never closed");
        out.push(Block { line: start, not_run, commands });
        i += 1;
    }
    out
}

#[test]
fn every_command_block_runs_as_written() {
    let text = readme();
    let blocks = blocks(&text);
    assert!(blocks.len() >= 8, "README.md has {} command blocks", blocks.len());
    // The shared data and the reference simulators, which some examples read, as the other tests find them.
    let Some(data) = iosched_test_data::dir("disksim").map(|d| d.parent().unwrap().to_path_buf()) else { return };
    let Some(peers) = iosched_test_data::peer("mqsim").map(|d| d.parent().unwrap().to_path_buf()) else { return };
    // A scratch folder stands for the user's current directory and /tmp: what the examples write lands there.
    let scratch = iosched_test_data::scratch("readme");
    std::fs::create_dir_all(scratch.join("tmp")).unwrap();
    std::os::unix::fs::symlink(repo().join("experiments"), scratch.join("experiments")).unwrap();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_iosched")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let mut ran = 0;
    for block in &blocks {
        if let Some(reason) = &block.not_run {
            assert!(reason.len() > 10, "README.md:{}: say why the block is not run", block.line);
            continue;
        }
        for command in &block.commands {
            // iosched's commands, and the one shell command its live example needs.
            assert!(
                command.starts_with("iosched ") || command.starts_with("truncate -s "),
                "README.md:{}: '{command}' is not an iosched command; mark the block not run, with why",
                block.line
            );
            let shell = command
                .replace("../shared/data", data.to_str().unwrap())
                .replace("../shared/peers", peers.to_str().unwrap())
                .replace("/tmp/", &format!("{}/tmp/", scratch.display()));
            let started = std::time::Instant::now();
            let out = Command::new("bash")
                .args(["-c", &shell])
                .current_dir(&scratch)
                .env("PATH", &path)
                .env("HOME", &scratch)
                .output()
                .expect("bash runs");
            let err = String::from_utf8_lossy(&out.stderr);
            if err.contains("cannot set up io_uring") {
                iosched_test_data::skip(&format!("README.md:{}: io_uring is not available here", block.line));
                continue;
            }
            assert!(out.status.success(), "README.md:{}: '{command}' failed: {err}", block.line);
            assert!(!err.contains("error"), "README.md:{}: '{command}' printed an error: {err}", block.line);
            let quiet = command.starts_with("truncate ") || command.contains(" > ");
            assert!(quiet || !out.stdout.is_empty(), "README.md:{}: '{command}' printed nothing", block.line);
            eprintln!("README.md:{}: {command} ({:.1} s)", block.line, started.elapsed().as_secs_f64());
            ran += 1;
        }
    }
    assert!(ran >= 15, "only {ran} README commands ran");
}

/// A number followed by a unit of measure (MB/s, IOPS, ms, x, %, s) in README's prose: a figure.
fn figures(prose: &str) -> Vec<String> {
    let units = ["MB/s", "GB/s", "IOPS", "ops/s", "ms", "µs", "us", "%", "x", "s", "seconds", "minutes"];
    let chars: Vec<char> = prose.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts_number =
            chars[i].is_ascii_digit() && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '.'));
        if !starts_number {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == '.') {
            j += 1;
        }
        let after: String = chars[j..].iter().take(12).collect();
        let after = after.strip_prefix(' ').unwrap_or(&after);
        for unit in units {
            if let Some(rest) = after.strip_prefix(unit) {
                if !rest.starts_with(|c: char| c.is_alphanumeric() || c == '/') {
                    found.push(format!("{}{unit}", chars[i..j].iter().collect::<String>()));
                }
            }
        }
        i = j;
    }
    found
}

#[test]
fn readme_prose_has_no_figures_that_no_command_checks() {
    let text = readme();
    let mut prose = String::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    let found = figures(&prose);
    assert!(found.is_empty(), "README.md states figures no command checks (move them to BENCHMARKS.md): {found:?}");
    // The scanner sees figures.
    assert_eq!(
        figures("dd 55.0 MB/s, 4.17 s against 2.12 s, 40x and +0.8 %; 80x24; 2008"),
        ["55.0MB/s", "4.17s", "2.12s", "40x", "0.8%"]
    );
}
