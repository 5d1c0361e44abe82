//! Who is calling: the FUSE request's thread id mapped to its process (the flow) and the I/O priority class
//! and level `ionice` gave it.
//!
//! A thread's process and command come from /proc/TID/status (Tgid, Name), read once per thread and cached; the
//! priority is asked of the kernel (ioprio_get) on every request, since ionice may change it at any time. A
//! thread with no priority set ("none") is best-effort at the level its nice value implies, as in Linux:
//! (nice + 20) / 5.

use iosched_core::request::{FlowId, IoClass, LEVEL_DEFAULT, LEVEL_MAX};
use std::collections::HashMap;

/// Most threads remembered; past it the cache is emptied (threads come and go; a process keeps its flow).
const THREADS_CACHED: usize = 4096;

/// One caller: its flow and priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caller {
    pub flow: FlowId,
    pub class: IoClass,
    pub level: u8,
}

#[derive(Default)]
pub struct Callers {
    /// Thread id -> flow.
    threads: HashMap<u32, FlowId>,
    /// Process id -> flow.
    processes: HashMap<u32, FlowId>,
    /// Each flow's name ("pid 1234 (dd)"), by flow number.
    names: Vec<String>,
}

impl Callers {
    /// The caller behind thread `tid`; the second value is Some(name) when its process is seen for the first time.
    pub fn resolve(&mut self, tid: u32) -> (Caller, Option<String>) {
        let mut new_name = None;
        let flow = match self.threads.get(&tid) {
            Some(flow) => *flow,
            None => {
                let (pid, command) = process_of(tid);
                let flow = match self.processes.get(&pid) {
                    Some(flow) => *flow,
                    None => {
                        let flow = FlowId(self.names.len() as u32);
                        let name = format!("pid {pid} ({command})");
                        self.names.push(name.clone());
                        self.processes.insert(pid, flow);
                        new_name = Some(name);
                        flow
                    }
                };
                if self.threads.len() >= THREADS_CACHED {
                    self.threads.clear();
                }
                self.threads.insert(tid, flow);
                flow
            }
        };
        let (class, level) = priority_of(tid);
        (Caller { flow, class, level }, new_name)
    }
}

/// The process (thread group) of a thread and its command; a thread that has gone counts as its own process.
fn process_of(tid: u32) -> (u32, String) {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{tid}/status")) else {
        return (tid, "?".to_string());
    };
    let field = |key: &str| status.lines().find_map(|l| l.strip_prefix(key)).map(|v| v.trim().to_string());
    let pid = field("Tgid:").and_then(|v| v.parse().ok()).unwrap_or(tid);
    (pid, field("Name:").unwrap_or_else(|| "?".to_string()))
}

/// The I/O priority of a thread as (class, level), as Linux's block layer reads it.
pub fn priority_of(tid: u32) -> (IoClass, u8) {
    const IOPRIO_WHO_PROCESS: libc::c_long = 1;
    const IOPRIO_CLASS_SHIFT: u32 = 13;
    // SAFETY: ioprio_get takes two integers and returns an integer or -1.
    let prio = unsafe { libc::syscall(libc::SYS_ioprio_get, IOPRIO_WHO_PROCESS, libc::c_long::from(tid)) };
    if prio < 0 {
        return (IoClass::Be, LEVEL_DEFAULT);
    }
    let class = (prio as u32) >> IOPRIO_CLASS_SHIFT;
    let level = ((prio as u32) & 0xff).min(u32::from(LEVEL_MAX)) as u8;
    if class == 0 {
        // No class set: best-effort at the level of the thread's nice value.
        // SAFETY: getpriority reads a value; errno distinguishes -1 from an error, and either is a valid nice.
        let nice = unsafe { libc::getpriority(libc::PRIO_PROCESS, tid) };
        return (IoClass::Be, ((nice.clamp(-20, 19) + 20) / 5) as u8);
    }
    (IoClass::from_ioprio_class(class).unwrap_or(IoClass::Be), level)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_of_one_process_are_one_flow_named_after_it() {
        let mut callers = Callers::default();
        // SAFETY: gettid has no arguments.
        let me = unsafe { libc::syscall(libc::SYS_gettid) } as u32;
        let (a, name) = callers.resolve(me);
        assert!(name.unwrap().starts_with(&format!("pid {} (", std::process::id())));
        assert_eq!(callers.resolve(me), (a, None));
        // Another thread of this process, resolved while it runs: the same flow, no new name.
        let (tid_tx, tid_rx) = std::sync::mpsc::channel();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let other = std::thread::spawn(move || {
            tid_tx.send(unsafe { libc::syscall(libc::SYS_gettid) } as u32).unwrap();
            let _ = done_rx.recv();
        });
        let (b, new_name) = callers.resolve(tid_rx.recv().unwrap());
        done_tx.send(()).unwrap();
        other.join().unwrap();
        assert_eq!((b.flow, new_name), (a.flow, None));
    }

    #[test]
    fn the_priority_ionice_sets_is_the_class_and_level() {
        // SAFETY: gettid has no arguments; ioprio_set on the calling thread.
        let tid = unsafe { libc::syscall(libc::SYS_gettid) } as libc::c_long;
        let set = |class: libc::c_long, level: libc::c_long| unsafe {
            libc::syscall(libc::SYS_ioprio_set, 1 as libc::c_long, tid, (class << 13) | level)
        };
        assert_eq!(set(3, 0), 0);
        assert_eq!(priority_of(tid as u32), (IoClass::Idle, 0));
        assert_eq!(set(2, 6), 0);
        assert_eq!(priority_of(tid as u32), (IoClass::Be, 6));
        assert_eq!(set(0, 0), 0);
        assert_eq!(priority_of(tid as u32).0, IoClass::Be);
    }
}
