//! The control socket of a running live engine: `iosched configure TARGET ...` and `iosched stats TARGET` talk to
//! the engine that runs against TARGET (a file or block device for `iosched run`, a mounted directory for the FUSE
//! mount) through a Unix socket.
//!
//! Where: `$XDG_RUNTIME_DIR/iosched/` (else `/tmp/iosched-UID/`), a directory only its owner may enter, holding one
//! socket per target named by a hash of the target's canonical path; the socket itself is mode 0600. So only the
//! user who started the engine can control it.
//!
//! Protocol: one JSON object per line each way. Requests: `{"command": "stats"}`,
//! `{"command": "configure", "policy": "bfq", "set": [["slice_idle", "0"]]}` (policy optional),
//! `{"command": "destroy"}` (a mount's daemon only). Replies:
//! `{"ok": true, "report": FIO_JSON, "table": TEXT}`, `{"ok": true, "policy": NAME, "tunables": {...}}`,
//! `{"ok": true, "open_files": N}` (destroy), `{"ok": false, "error": TEXT}` (with `"unavailable": true` when the engine could not be asked, as against
//! refusing the request).

use iosched_report::{fio_json, table};
use iosched_sim::{ControlMessage, ControlReply, ControlRequest};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use thiserror::Error;

/// How long a client waits for the engine's answer (it polls its controls every 50 ms).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the server waits for a connected client's request line.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);

/// How often the server looks for a connection (and whether it should stop).
const ACCEPT_POLL: Duration = Duration::from_millis(20);

#[derive(Debug, Error)]
pub enum ControlError {
    #[error("{0}")]
    Setup(String),
    #[error("no iosched engine is running on {target} (no control socket at {socket})")]
    NotRunning { target: PathBuf, socket: PathBuf },
    #[error("an iosched engine is already running on {0}")]
    AlreadyRunning(PathBuf),
    #[error("control socket {socket}: {reason}")]
    Talk { socket: PathBuf, reason: String },
    #[error("{0}")]
    Refused(String),
}

/// The directory of the control sockets, made (mode 0700) if missing; refused if someone else owns it or others
/// may enter it.
fn socket_dir() -> Result<PathBuf, ControlError> {
    // SAFETY: geteuid cannot fail.
    let uid = unsafe { libc::geteuid() };
    let dir = match std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from).filter(|d| d.is_dir()) {
        Some(runtime) => runtime.join("iosched"),
        None => std::env::temp_dir().join(format!("iosched-{uid}")),
    };
    let setup = |what: &str, e: std::io::Error| ControlError::Setup(format!("{what} {}: {e}", dir.display()));
    match std::fs::create_dir(&dir) {
        Ok(()) => std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| setup("cannot restrict", e))?,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(setup("cannot make", e)),
    }
    let meta = std::fs::symlink_metadata(&dir).map_err(|e| setup("cannot read", e))?;
    if !meta.is_dir() || meta.uid() != uid || meta.mode() & 0o077 != 0 {
        return Err(ControlError::Setup(format!(
            "{} must be a directory owned by uid {uid} that only its owner may enter (mode 0700)",
            dir.display()
        )));
    }
    Ok(dir)
}

/// The socket of the engine running on `target`.
pub fn socket_path(target: &Path) -> Result<PathBuf, ControlError> {
    let canonical =
        target.canonicalize().map_err(|e| ControlError::Setup(format!("cannot resolve {}: {e}", target.display())))?;
    // FNV-1a: a short, stable name; sun_path holds only 108 bytes, so the path itself cannot be the name.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in canonical.as_os_str().as_encoded_bytes() {
        hash = (hash ^ u64::from(*byte)).wrapping_mul(0x100_0000_01b3);
    }
    Ok(socket_dir()?.join(format!("{hash:016x}.sock")))
}

/// A running control socket; dropping it closes and removes it.
pub struct ControlServer {
    path: PathBuf,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl ControlServer {
    /// Listen for controllers of the engine on `target`; their requests arrive on the returned receiver, which the
    /// engine answers (see [`iosched_sim::Controls`]).
    pub fn start(target: &Path) -> Result<(ControlServer, Receiver<ControlMessage>), ControlError> {
        let path = socket_path(target)?;
        let listener = match UnixListener::bind(&path) {
            Ok(l) => l,
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
                if UnixStream::connect(&path).is_ok() {
                    return Err(ControlError::AlreadyRunning(target.to_path_buf()));
                }
                // Left by an engine that was killed.
                let _ = std::fs::remove_file(&path);
                UnixListener::bind(&path).map_err(|e| ControlError::Setup(format!("{}: {e}", path.display())))?
            }
            Err(e) => return Err(ControlError::Setup(format!("{}: {e}", path.display()))),
        };
        // An outcome left by an engine that ran here before is not this one's.
        let _ = std::fs::remove_file(outcome_path(&path));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
            .and_then(|()| listener.set_nonblocking(true))
            .map_err(|e| ControlError::Setup(format!("{}: {e}", path.display())))?;
        let (tx, rx) = channel();
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let stop = stop.clone();
            std::thread::Builder::new()
                .name("iosched-control".into())
                .spawn(move || serve(listener, tx, stop))
                .map_err(|e| ControlError::Setup(format!("cannot start the control thread: {e}")))?
        };
        Ok((ControlServer { path, stop, thread: Some(thread) }, rx))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Close the socket after leaving `outcome` (how the engine ended) beside it for `destroy`, which waits for
    /// the socket to go and then reads it: written first, so that it is there when the socket is not.
    pub fn finish(self, outcome: &Outcome) {
        let path = outcome_path(&self.path);
        let temporary = path.with_extension("outcome.new");
        let text = serde_json::to_string(outcome).expect("an outcome serializes");
        if std::fs::write(&temporary, text).and_then(|()| std::fs::rename(&temporary, &path)).is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        drop(self);
    }
}

/// How a mount's engine ended, as its daemon leaves it beside the control socket.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    /// Every request admitted completed (some perhaps with an I/O error, counted in `errors`).
    pub ok: bool,
    pub requests: u64,
    pub errors: u64,
    /// Why it failed (empty when ok).
    pub error: String,
}

/// Where the outcome of the engine whose socket is `socket` is left.
pub fn outcome_path(socket: &Path) -> PathBuf {
    socket.with_extension("outcome")
}

/// Take (read and remove) the outcome the engine whose socket was `socket` left: None if it left none (it was
/// killed, or it ended before this build wrote outcomes).
pub fn take_outcome(socket: &Path) -> Option<Outcome> {
    let path = outcome_path(socket);
    let text = std::fs::read_to_string(&path).ok()?;
    let _ = std::fs::remove_file(&path);
    serde_json::from_str(&text).ok()
}

impl Drop for ControlServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Accept and answer one connection at a time until the server is dropped. The listener does not block, so
/// that stopping never depends on reaching the socket again (it may have been removed).
fn serve(listener: UnixListener, engine: Sender<ControlMessage>, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::Relaxed) {
        match listener.accept() {
            // A client that misbehaves loses its own connection only.
            Ok((stream, _)) => {
                let _ = stream.set_nonblocking(false).and_then(|()| answer(stream, &engine));
            }
            Err(_) => std::thread::sleep(ACCEPT_POLL),
        }
    }
}

fn answer(stream: UnixStream, engine: &Sender<ControlMessage>) -> std::io::Result<()> {
    stream.set_read_timeout(Some(REQUEST_TIMEOUT))?;
    let mut line = String::new();
    BufReader::new(&stream).read_line(&mut line)?;
    let reply = match parse_request(&line) {
        Ok(request) => ask(engine, request),
        Err(e) => json!({"ok": false, "error": e}),
    };
    let mut stream = stream;
    writeln!(stream, "{reply}")
}

fn parse_request(line: &str) -> Result<ControlRequest, String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("expected a JSON object on one line: {e}"))?;
    match v["command"].as_str() {
        Some("stats") => Ok(ControlRequest::Stats),
        Some("flows") => Ok(ControlRequest::Flows),
        Some("destroy") => Ok(ControlRequest::Destroy),
        Some("configure") => {
            let policy = v["policy"].as_str().map(str::to_string);
            let mut settings = Vec::new();
            let pairs = match &v["set"] {
                Value::Null => &[][..],
                Value::Array(pairs) => pairs.as_slice(),
                other => return Err(format!("\"set\" expects [[\"key\", \"value\"], ...], found {other}")),
            };
            for pair in pairs {
                match pair.as_array().map(Vec::as_slice) {
                    Some([Value::String(k), Value::String(v)]) => settings.push((k.clone(), v.clone())),
                    _ => return Err(format!("\"set\" expects [[\"key\", \"value\"], ...], found {pair}")),
                }
            }
            if policy.is_none() && settings.is_empty() {
                return Err("configure needs a policy, settings, or both".into());
            }
            Ok(ControlRequest::Configure { policy, settings })
        }
        _ => Err(format!(
            "expected \"command\": \"stats\", \"flows\", \"configure\" or \"destroy\", found {}",
            v["command"]
        )),
    }
}

/// Pass `request` to the engine and wait for its reply; Err says why the engine could not be asked (it has
/// ended, or did not answer in time), as against its refusing the request (a `ControlReply::Error`).
pub(crate) fn ask_engine(engine: &Sender<ControlMessage>, request: ControlRequest) -> Result<ControlReply, String> {
    let (tx, rx) = channel();
    engine.send(ControlMessage { request, reply: tx }).map_err(|_| "the run has ended".to_string())?;
    rx.recv_timeout(ANSWER_TIMEOUT).map_err(|_| "the engine did not answer (the run may have ended)".to_string())
}

fn ask(engine: &Sender<ControlMessage>, request: ControlRequest) -> Value {
    match ask_engine(engine, request) {
        // "unavailable": the engine could not be asked, as against refusing the request.
        Err(e) => json!({"ok": false, "unavailable": true, "error": e}),
        Ok(ControlReply::Stats(run)) => {
            json!({"ok": true, "report": fio_json::to_value(&run), "table": table::render(&run)})
        }
        Ok(ControlReply::Flows(snapshot)) => json!({"ok": true, "flows": *snapshot}),
        Ok(ControlReply::Configured { policy, tunables }) => {
            let tunables: serde_json::Map<String, Value> = tunables.into_iter().map(|(k, v)| (k, json!(v))).collect();
            json!({"ok": true, "policy": policy, "tunables": tunables})
        }
        Ok(ControlReply::Destroyed { open_files }) => json!({"ok": true, "open_files": open_files}),
        Ok(ControlReply::Error(e)) => json!({"ok": false, "error": e}),
    }
}

/// Send one request to the engine running on `target` and return its reply (`ok` true), or the engine's error.
pub fn request(target: &Path, request: &Value) -> Result<Value, ControlError> {
    let socket = socket_path(target)?;
    let talk = |reason: String| ControlError::Talk { socket: socket.clone(), reason };
    let stream = UnixStream::connect(&socket).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused => {
            ControlError::NotRunning { target: target.to_path_buf(), socket: socket.clone() }
        }
        _ => talk(e.to_string()),
    })?;
    stream.set_read_timeout(Some(ANSWER_TIMEOUT + Duration::from_secs(1))).map_err(|e| talk(e.to_string()))?;
    let mut writer = &stream;
    writeln!(writer, "{request}").map_err(|e| talk(e.to_string()))?;
    let mut line = String::new();
    BufReader::new(&stream).read_line(&mut line).map_err(|e| talk(e.to_string()))?;
    let reply: Value = serde_json::from_str(&line).map_err(|e| talk(format!("unreadable reply: {e}")))?;
    let error = || reply["error"].as_str().unwrap_or("the engine refused").to_string();
    if reply["ok"] == true {
        Ok(reply)
    } else if reply["unavailable"] == true {
        Err(talk(error()))
    } else {
        Err(ControlError::Refused(error()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_owner_can_reach_the_socket_and_requests_reach_the_engine() {
        let target = iosched_test_data::scratch("control").join("target");
        std::fs::write(&target, b"x").unwrap();
        let (server, requests) = ControlServer::start(&target).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(server.path()), 0o600);
        assert_eq!(mode(server.path().parent().unwrap()), 0o700);
        // A second engine on the same target is refused.
        assert!(matches!(ControlServer::start(&target), Err(ControlError::AlreadyRunning(_))));
        // A stand-in engine answers configure requests.
        let engine = std::thread::spawn(move || {
            let m = requests.recv().unwrap();
            assert_eq!(
                m.request,
                ControlRequest::Configure {
                    policy: Some("bfq".into()),
                    settings: vec![("slice_idle".into(), "0".into())]
                }
            );
            m.reply.send(ControlReply::Configured { policy: "bfq".into(), tunables: vec![] }).unwrap();
            let m = requests.recv().unwrap();
            m.reply.send(ControlReply::Error("unknown tunable 'x'".into())).unwrap();
        });
        let reply = request(&target, &json!({"command": "configure", "policy": "bfq", "set": [["slice_idle", "0"]]}));
        assert_eq!(reply.unwrap()["policy"], "bfq");
        let refused = request(&target, &json!({"command": "configure", "set": [["x", "1"]]}));
        assert!(matches!(refused, Err(ControlError::Refused(m)) if m.contains("unknown tunable")));
        engine.join().unwrap();
        // The engine gone (its receiver dropped) while the socket is still up: unavailable, not refused.
        let gone = request(&target, &json!({"command": "stats"}));
        assert!(
            matches!(&gone, Err(ControlError::Talk { reason, .. }) if reason.contains("the run has ended")),
            "{gone:?}"
        );
        // Malformed requests are answered with what was expected, without reaching the engine.
        let bad = request(&target, &json!({"command": "configure", "set": "x=1"}));
        assert!(matches!(&bad, Err(ControlError::Refused(m)) if m.contains("expects [[")), "{bad:?}");
        let bad = request(&target, &json!({"command": "reboot"}));
        assert!(
            matches!(bad, Err(ControlError::Refused(m)) if m.contains("\"stats\", \"flows\", \"configure\" or \"destroy\""))
        );
        // Gone with the server.
        let path = server.path().to_path_buf();
        drop(server);
        assert!(!path.exists());
        assert!(matches!(request(&target, &json!({"command": "stats"})), Err(ControlError::NotRunning { .. })));
        std::fs::remove_file(&target).unwrap();
    }
}
