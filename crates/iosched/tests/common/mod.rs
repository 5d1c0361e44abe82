//! What the command-line tests share: running the built binary, its output, and the shape of an error.

// Each test binary that includes this module uses part of it.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

pub fn iosched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iosched")).args(args).output().expect("run iosched")
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A job file in a fresh temporary directory.
pub fn job_file(name: &str, text: &str) -> PathBuf {
    let dir = iosched_test_data::scratch(&format!("cli-{name}"));
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A usage error as clap renders it: exit 2, the problem named, then the subcommand's usage line; no panic.
pub fn assert_usage_error(args: &[&str], wanted: &str, usage: &str) {
    let out = iosched(args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.starts_with("error: ") && err.contains(wanted), "{args:?}: wanted '{wanted}' in: {err}");
    // clap gives the usage line with errors of arguments (not with a bad value of one), and always where help is.
    assert!(usage.is_empty() || err.contains(&format!("Usage: {usage}")), "{args:?}: wanted '{usage}' in: {err}");
    assert!(err.contains("try '--help'"), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(stdout(&out).is_empty(), "{args:?}: printed to stdout on error");
}

/// Bad input: exit 2, exactly one line on stderr naming the problem, no panic.
pub fn assert_bad_input(args: &[&str], wanted: &str) {
    let out = iosched(args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line:\n{err}");
    assert!(err.contains(wanted), "{args:?}: wanted '{wanted}' in: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(stdout(&out).is_empty(), "{args:?}: printed to stdout on error");
}
