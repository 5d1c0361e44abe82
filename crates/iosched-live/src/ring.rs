//! The io_uring ring the live devices share: submission in batches, waiting for "a completion or time T", and
//! the clock (ns since the ring was made).
//!
//! Waiting for "a completion or time T" is a wait for one completion with a timeout entry for T on the ring: a
//! timed io_uring_enter costs a timer set-up per call (12 % of the IOPS in measurement), an entry only when T moves
//! earlier. Entries are handed to the kernel four at a time as they are pushed, and the rest at the next wait.

use io_uring::{opcode, squeue, types, IoUring};
use std::time::{Duration, Instant};

/// Entries handed to the kernel at once while the engine dispatches.
const SUBMIT_BATCH: u32 = 4;

/// The user_data of the ring's own timeout entries (the devices' entries carry smaller values).
const TIMER_MARK: u64 = u64::MAX;

pub(crate) struct Ring {
    ring: IoUring,
    /// What the ring serves, for the message of a failure that cannot be handled.
    label: String,
    /// Entries pushed but not yet handed to the kernel.
    unsubmitted: u32,
    /// Deadlines (ns) of the timeout entries on the ring that have not fired, earliest first.
    timers: Vec<u64>,
    /// The timeout entries' timespecs, kept until the kernel has read them at submission; boxed so that their
    /// addresses, which the entries carry, stay put when the vector grows.
    #[allow(clippy::vec_box)]
    timer_specs: Vec<Box<types::Timespec>>,
    /// Completions read off the ring while making room (user_data, result), handed out at the next reap.
    overflow: Vec<(u64, i32)>,
    opened: Instant,
    pub(crate) enters: u64,
    /// Submissions the kernel refused for now (EAGAIN, ENOMEM) and that were retried.
    pub(crate) transient_errors: u64,
    /// io_uring_enter failed in a way that is not temporary: the ring can take and give nothing more, and its
    /// devices fail what they had in flight and everything submitted after ([`Ring::failed`]).
    failed: Option<std::io::Error>,
    /// Errors the next enters return instead of entering (unit tests of the error paths).
    #[cfg(test)]
    pub(crate) injected: Vec<i32>,
}

/// What a request on a ring that has failed completes with (the ring's own error goes to the log: a program
/// given, say, EINVAL for its write would look for the fault in its own arguments).
pub(crate) const RING_FAILED_ERRNO: i32 = libc::EIO;

impl Ring {
    /// A ring with room for `entries` entries in flight (timeouts included).
    pub(crate) fn new(entries: u32, label: String) -> std::io::Result<Ring> {
        let entries = entries.next_power_of_two().max(16);
        // One thread submits and reaps, so the kernel may run completion work when that thread waits (as fio
        // does) instead of interrupting it; older kernels without these flags get a plain ring.
        let ring = IoUring::builder()
            .setup_coop_taskrun()
            .setup_single_issuer()
            .setup_defer_taskrun()
            .build(entries)
            .or_else(|_| IoUring::new(entries))?;
        Ok(Ring {
            ring,
            label,
            unsubmitted: 0,
            timers: Vec::new(),
            timer_specs: Vec::new(),
            overflow: Vec::new(),
            opened: Instant::now(),
            enters: 0,
            transient_errors: 0,
            failed: None,
            #[cfg(test)]
            injected: Vec::new(),
        })
    }

    /// ns since the ring was made.
    pub(crate) fn clock_ns(&self) -> u64 {
        self.opened.elapsed().as_nanos() as u64
    }

    /// Whether the ring has failed for good: then every request its device had in flight, or is given, completes
    /// with [`RING_FAILED_ERRNO`] (the device checks after each reap), and the process goes on.
    pub(crate) fn failed(&self) -> bool {
        self.failed.is_some()
    }

    /// Put an entry on the ring (its user_data below `u64::MAX`), handing a batch to the kernel every four. On a
    /// failed ring the entry is dropped (its device fails the request).
    pub(crate) fn push(&mut self, entry: squeue::Entry) {
        // SAFETY: the caller keeps the buffers the entry points at until its completion is reaped.
        while self.failed.is_none() && unsafe { self.ring.submission().push(&entry) }.is_err() {
            self.enter(0, None);
        }
        if self.failed.is_some() {
            return;
        }
        self.unsubmitted += 1;
        // Hand entries to the kernel four at a time rather than all at the next wait: requests reach the device
        // sooner (fio's io_uring engine does the same). Holding a whole dispatch round back cost 12 % of the IOPS.
        if self.unsubmitted >= SUBMIT_BATCH {
            self.enter(0, None);
        }
    }

    /// A completion as if the kernel had posted it (unit tests of what devices make of odd ones).
    #[cfg(test)]
    pub(crate) fn inject_completion(&mut self, user_data: u64, result: i32) {
        self.overflow.push((user_data, result));
    }

    /// Every completion read so far (user_data, result), timeouts left out.
    pub(crate) fn reap(&mut self, mut each: impl FnMut(u64, i32)) {
        for (user_data, result) in self.overflow.drain(..) {
            each(user_data, result);
        }
        for cqe in self.ring.completion() {
            if cqe.user_data() == TIMER_MARK {
                // Timeouts fire in deadline order.
                if !self.timers.is_empty() {
                    self.timers.remove(0);
                }
                continue;
            }
            each(cqe.user_data(), cqe.result());
        }
    }

    /// Hand pushed entries to the kernel and wait for at least `want` completions, or until `timeout`.
    fn enter(&mut self, want: usize, timeout: Option<Duration>) {
        if self.failed.is_some() {
            return;
        }
        self.enters += 1;
        #[cfg(test)]
        if let Some(errno) = self.injected.pop() {
            return self.entered(Err(std::io::Error::from_raw_os_error(errno)));
        }
        let result = match timeout {
            Some(t) => {
                let ts = types::Timespec::new().sec(t.as_secs()).nsec(t.subsec_nanos());
                let args = types::SubmitArgs::new().timespec(&ts);
                self.ring.submitter().submit_with_args(want, &args)
            }
            None => self.ring.submit_and_wait(want),
        };
        self.entered(result);
    }

    /// What an io_uring_enter's result means for the ring.
    fn entered(&mut self, result: std::io::Result<usize>) {
        match result {
            Ok(_) => {
                self.unsubmitted = 0;
                self.timer_specs.clear();
            }
            // A timeout or a signal: what was pushed has been taken (ETIME comes after submission).
            Err(e) if matches!(e.raw_os_error(), Some(libc::ETIME) | Some(libc::EINTR)) => {
                self.unsubmitted = 0;
                self.timer_specs.clear();
            }
            // The completion queue is full: empty it (kept for the next reap), and the caller retries.
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
                let mut taken = std::mem::take(&mut self.overflow);
                self.reap(|user_data, result| taken.push((user_data, result)));
                self.overflow = taken;
            }
            // The kernel is short of memory for the submission for now: what was pushed stays queued and the
            // next enter submits it; completions are reaped meanwhile, and a moment passes so as not to spin.
            Err(e) if matches!(e.raw_os_error(), Some(libc::EAGAIN) | Some(libc::ENOMEM)) => {
                self.transient_errors += 1;
                let mut taken = std::mem::take(&mut self.overflow);
                self.reap(|user_data, result| taken.push((user_data, result)));
                self.overflow = taken;
                std::thread::sleep(Duration::from_micros(100));
            }
            // Anything else (EBADF, EFAULT, EINVAL, EOPNOTSUPP, ...) leaves the ring unusable, not the process:
            // the requests on it fail and the engine goes on, so that programs get an error rather than a hang.
            Err(e) => {
                eprintln!(
                    "iosched: io_uring_enter failed on {}: {e}; the requests on it, and every later one, fail with {}",
                    self.label,
                    std::io::Error::from_raw_os_error(RING_FAILED_ERRNO)
                );
                self.failed = Some(e);
            }
        }
    }

    /// Hand pushed entries to the kernel and let it post what has completed (deferred completion work runs only
    /// in an enter asking for events), without waiting.
    pub(crate) fn poll_completions(&mut self) {
        if self.failed.is_some() {
            return;
        }
        self.enters += 1;
        const IORING_ENTER_GETEVENTS: u32 = 1;
        // SAFETY: no argument is passed; the entries pushed are valid until their completions are reaped.
        let result =
            unsafe { self.ring.submitter().enter::<libc::sigset_t>(self.unsubmitted, 0, IORING_ENTER_GETEVENTS, None) };
        if result.is_ok() {
            self.unsubmitted = 0;
            self.timer_specs.clear();
        }
    }

    /// Whether completions are waiting to be reaped.
    pub(crate) fn has_completions(&mut self) -> bool {
        !self.overflow.is_empty() || !self.ring.completion().is_empty()
    }

    /// Put a timeout entry on the ring that completes `in_ns` from now (deadline `until_ns`).
    fn arm_timer(&mut self, until_ns: u64, in_ns: u64) {
        let spec = Box::new(types::Timespec::new().sec(in_ns / 1_000_000_000).nsec((in_ns % 1_000_000_000) as u32));
        let entry = opcode::Timeout::new(&*spec as *const types::Timespec).build().user_data(TIMER_MARK);
        // SAFETY: the timespec is kept in timer_specs until the kernel has read it at submission.
        while unsafe { self.ring.submission().push(&entry) }.is_err() {
            self.enter(0, None);
            if self.failed.is_some() {
                return;
            }
        }
        // Kept only once the entry is on the ring: an enter() above clears the specs already submitted, and the
        // box keeps this one's address when it moves into the vector.
        self.timer_specs.push(spec);
        self.unsubmitted += 1;
        let at = self.timers.partition_point(|t| *t <= until_ns);
        self.timers.insert(at, until_ns);
    }

    /// Block until a completion or the clock reaches `until_ns` (None: until a completion); `ready` says
    /// completions are already waiting to be collected (then only hand over what was pushed), `in_flight` that
    /// some entry may still complete (else a timed wait sleeps). Returns the clock.
    pub(crate) fn wait(&mut self, until_ns: Option<u64>, ready: bool, in_flight: bool) -> u64 {
        if self.failed.is_some() {
            // Nothing can complete: the device has failed what it had; a wait is a nap (at most 1 ms, so that a
            // mount still sees arrivals, which it fails).
            let now = self.clock_ns();
            let until = until_ns.unwrap_or(u64::MAX).min(now + 1_000_000);
            if !ready && until > now {
                std::thread::sleep(Duration::from_nanos(until - now));
            }
            return self.clock_ns();
        }
        if ready || self.has_completions() {
            if self.unsubmitted > 0 {
                self.enter(0, None);
            }
            return self.clock_ns();
        }
        let now = self.clock_ns();
        match until_ns {
            Some(until) if until <= now && self.unsubmitted > 0 => self.enter(0, None),
            Some(until) if until <= now => {}
            Some(until) if in_flight => {
                if self.timers.first().is_none_or(|t| *t > until) {
                    self.arm_timer(until, until - now);
                }
                self.enter(1, None);
            }
            Some(until) => std::thread::sleep(Duration::from_nanos(until - now)),
            None if in_flight => self.enter(1, None),
            None => {}
        }
        self.clock_ns()
    }
}
