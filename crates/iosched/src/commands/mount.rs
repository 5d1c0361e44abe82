//! `iosched insert`, `iosched create` and `iosched destroy`: a scheduling FUSE mount's daemon, started in the
//! background (or attached with --foreground), and its removal.
//!
//! Backgrounding: the command starts itself again with --foreground in a new session, its standard error going to
//! a log file next to the mount's control socket, and waits for the line "ready" on the child's standard output
//! (written once the mount serves). If the child ends first, its log says why and is printed.

use super::policy_with;
use super::signals::{catch_interrupts, STOP};
use crate::cli::{CacheArg, CreateArgs, DestroyArgs, InsertArgs, MountArgs};
use crate::error::{bad, CliError};
use iosched_live::control_socket::{self, ControlError};
use iosched_live::mount::daemon::{self, detach, is_mount_of_ours, CacheMode, MountConfig, DEFAULT_QUEUE_DEPTH};
use iosched_report::table;
use serde_json::json;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Set in the background daemon's environment: say "ready" on standard output, then let go of it.
const DAEMON_ENV: &str = "IOSCHED_MOUNT_DAEMON";

pub fn insert(args: &InsertArgs) -> Result<(), CliError> {
    // A test build can be made to fail here, so that the tests show they tell a broken insert from a machine
    // without FUSE (a release build ignores the variable).
    if cfg!(debug_assertions) && std::env::var_os("IOSCHED_TEST_BREAK_INSERT").is_some() {
        return Err(CliError::Failed("insert broken on purpose (IOSCHED_TEST_BREAK_INSERT)".into()));
    }
    start(&args.dir, &args.dir, &args.mount)
}

pub fn create(args: &CreateArgs) -> Result<(), CliError> {
    if args.source.canonicalize().ok() == args.mountpoint.canonicalize().ok() {
        return Err(bad("create mounts SOURCE elsewhere; to schedule a directory in place use 'iosched insert DIR'"));
    }
    start(&args.source, &args.mountpoint, &args.mount)
}

fn start(source: &Path, mountpoint: &Path, args: &MountArgs) -> Result<(), CliError> {
    // Everything the daemon would refuse is refused here, before it is started.
    for dir in [source, mountpoint] {
        if !dir.exists() {
            return Err(bad(format!("{}: no such directory", dir.display())));
        }
        if !dir.is_dir() {
            return Err(bad(format!("{}: not a directory", dir.display())));
        }
    }
    let policy = policy_with(&args.policy, &args.set)?;
    let emulate = super::emulated_model(args.emulate.as_deref())?;
    if let Some(addr) = args.metrics {
        iosched_live::metrics::check_loopback(addr).map_err(bad)?;
    }
    if !args.foreground {
        return start_background(mountpoint);
    }
    let daemonized = std::env::var_os(DAEMON_ENV).is_some();
    catch_interrupts();
    let config = MountConfig {
        source: source.to_path_buf(),
        mountpoint: mountpoint.to_path_buf(),
        policy,
        emulate,
        cache: match args.cache {
            CacheArg::Auto => CacheMode::Auto,
            CacheArg::Direct => CacheMode::Direct,
            CacheArg::Kernel => CacheMode::Kernel,
        },
        queue_depth: args.queue_depth.unwrap_or(DEFAULT_QUEUE_DEPTH),
        rotational: args.rotational,
        seed: args.seed,
        metrics: args.metrics,
        stop: Some(&STOP),
    };
    let result = daemon::run_mount(config, |info| {
        eprintln!(
            "iosched: {} is scheduled by {} on {} (daemon pid {}, control socket {}); 'iosched destroy {}' removes it",
            info.mountpoint.display(),
            args.policy,
            info.device,
            std::process::id(),
            info.socket.display(),
            info.mountpoint.display()
        );
        if let Some(addr) = info.metrics {
            eprintln!("iosched: metrics at http://{addr}/metrics");
        }
        if daemonized {
            outln!("ready");
            let _ = std::io::stdout().flush();
            let_go_of_stdout();
        }
    })
    .map_err(|e| match e {
        daemon::MountError::Control(ControlError::AlreadyRunning(p)) => {
            bad(format!("an iosched daemon already serves {}", p.display()))
        }
        other => CliError::Failed(other.to_string()),
    })?;
    // The report: on the terminal when attached, in the log when in the background.
    if daemonized {
        eprint!("{}", table::render(&result));
    } else {
        out!("{}", table::render(&result));
    }
    Ok(())
}

/// Point standard output at /dev/null (the parent stopped reading it).
fn let_go_of_stdout() {
    // SAFETY: open returns a descriptor or -1; dup2 onto 1 replaces standard output.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if null >= 0 {
            libc::dup2(null, 1);
            libc::close(null);
        }
    }
}

/// Start this command again with --foreground as a daemon and wait until its mount is ready.
fn start_background(mountpoint: &Path) -> Result<(), CliError> {
    let socket = control_socket::socket_path(mountpoint).map_err(|e| CliError::Failed(e.to_string()))?;
    let log_path = socket.with_extension("log");
    let log = std::fs::File::create(&log_path)
        .map_err(|e| CliError::Failed(format!("cannot write the daemon's log {}: {e}", log_path.display())))?;
    let exe = std::env::current_exe().map_err(|e| CliError::Failed(format!("cannot find iosched itself: {e}")))?;
    let mut command = Command::new(exe);
    command
        .args(std::env::args_os().skip(1))
        .arg("--foreground")
        .env(DAEMON_ENV, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log);
    // SAFETY: setsid is async-signal-safe; the daemon leaves the terminal's session (no SIGHUP, no Ctrl-C).
    unsafe {
        command.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let mut child = command.spawn().map_err(|e| CliError::Failed(format!("cannot start the daemon: {e}")))?;
    let mut line = String::new();
    let stdout = child.stdout.take().expect("piped");
    let _ = BufReader::new(stdout).read_line(&mut line);
    if line.trim() == "ready" {
        let said = std::fs::read_to_string(&log_path).unwrap_or_default();
        eprint!("{said}");
        eprintln!("iosched: the daemon's log is {}", log_path.display());
        return Ok(());
    }
    let status = child.wait().map_err(|e| CliError::Failed(format!("the daemon: {e}")))?;
    let said = std::fs::read_to_string(&log_path).unwrap_or_default();
    let said = said.trim().trim_start_matches("iosched: error: ").to_string();
    Err(match status.code() {
        Some(2) => bad(said),
        _ => CliError::Failed(if said.is_empty() { format!("the daemon ended ({status})") } else { said }),
    })
}

pub fn destroy(args: &DestroyArgs) -> Result<(), CliError> {
    if !(args.wait.is_finite() && (0.0..=86_400.0).contains(&args.wait)) {
        return Err(bad(format!("--wait expects seconds from 0 to 86400, found {}", args.wait)));
    }
    let path = std::path::absolute(&args.path).map_err(|e| bad(format!("{}: {e}", args.path.display())))?;
    let socket = match control_socket::socket_path(&path) {
        Ok(socket) => socket,
        // A dead mount cannot even be resolved (ENOTCONN): detach it.
        Err(_) if is_mount_of_ours(&path) => return detach_dead(&path),
        Err(e) => return Err(bad(e)),
    };
    let reply = match control_socket::request(&path, &json!({"command": "destroy"})) {
        Ok(reply) => reply,
        Err(ControlError::NotRunning { .. }) => {
            let canonical = path.canonicalize().unwrap_or(path.clone());
            if is_mount_of_ours(&canonical) {
                return detach_dead(&canonical);
            }
            return Err(bad(format!("no iosched mount at {}", path.display())));
        }
        Err(ControlError::Refused(m)) => return Err(bad(m)),
        Err(e) => return Err(CliError::Failed(e.to_string())),
    };
    let open_files = reply["open_files"].as_u64().unwrap_or(0);
    if open_files > 0 && args.wait > 0.0 {
        // Say what the wait is for, and how not to wait, before waiting.
        eprintln!(
            "iosched: {} is detached; waiting up to {} s for {} opened through the mount to be closed \
             (--wait 0 returns at once; the daemon serves open files until they are closed either way)",
            path.display(),
            args.wait,
            plural(open_files, "file", "files"),
        );
    }
    // The daemon removes its socket when it has finished.
    let deadline = Instant::now() + Duration::from_secs_f64(args.wait);
    while socket.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    if socket.exists() {
        eprintln!(
            "iosched: {} is detached (new opens reach the directory underneath); {} opened through the mount {} \
             still open: the daemon serves {} until closed, then exits",
            path.display(),
            plural(open_files, "file", "files"),
            if open_files == 1 { "is" } else { "are" },
            if open_files == 1 { "it" } else { "them" },
        );
        return Ok(());
    }
    // Gone: the daemon left how its engine ended beside the socket just before removing it.
    match control_socket::take_outcome(&socket) {
        Some(o) if o.ok => {
            let failed = match o.errors {
                0 => String::new(),
                n => format!(
                    " ({} of them with an I/O error, which its program was given)",
                    plural(n, "request", "requests")
                ),
            };
            eprintln!(
                "iosched: {} is removed; every request completed: {}{failed}",
                path.display(),
                plural(o.requests, "request", "requests")
            );
            Ok(())
        }
        Some(o) => Err(CliError::Failed(format!(
            "{} is removed, but its engine failed: {} (the daemon's log is {})",
            path.display(),
            o.error,
            socket.with_extension("log").display()
        ))),
        None => Err(CliError::Failed(format!(
            "{} is removed, but its daemon ended without saying how (was it killed?); the daemon's log is {}",
            path.display(),
            socket.with_extension("log").display()
        ))),
    }
}

fn detach_dead(path: &Path) -> Result<(), CliError> {
    detach(path).map_err(CliError::Failed)?;
    eprintln!("iosched: {}: its daemon was gone; the mount is detached", path.display());
    Ok(())
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
