//! Emulation: real I/O with a device model's timing (`iosched run --emulate SPEC`).
//!
//! Every request goes both to the real file (through [`UringDevice`], or a mount's files) and to a device model whose clock is the
//! real clock. A request completes once both have finished: at the time the model says, or later if the real
//! I/O is slower than the model. So a 2008 hard disk can be felt on an NVMe drive, with real data moving.
//!
//! Late requests, those whose model completion time had been reached while their real I/O was still running,
//! are counted with how late they were (the time from the model's completion to when the real completion was
//! collected). A real completion collected in the same pass as the model's is on time: the clock cannot tell
//! which came first within one pass. The model sees the engine's tags and the request's own offsets; the
//! device's size is the smaller of the model's and the file's (a file smaller than the model emulates the
//! model's first bytes).
//!
//! A late request stalls the emulated device: from the model's completion until the real one, the model's
//! clock and the engine's stand still (no model event is handled, no engine timer fires), and then both go on
//! from where they stopped, behind the real clock by every stall so far (`stall_ms`). The model thus sees the
//! same sequence of submissions as in simulation, only stretched in real time. Letting the model's clock run on
//! instead (as this did first) gave it idle time the simulation never had: a disk model read ahead in it, and a
//! loaded host, whose real I/O is late one time in ten, made an emulated disk serve a quarter more than the same
//! run simulated. What the engine reports (latencies, runtimes, rates) is on the emulated clock; the stalls
//! are reported beside it.
//!
//! Time: the model's deadlines are waited for on the real clock, but a request the model completes on time is
//! handed to the engine stamped with the model's completion time, not the (later) time the thread woke up, so
//! the policy's reaction, the next submission to the model, happens at the model's time as in simulation. A
//! wake-up lag (about 0.1 ms on a VM) would otherwise leave the modelled disk idle after every request, free to
//! read ahead, and an emulated disk would serve more from its cache than the simulated one. The lag is reported
//! (`wake_lag_mean_us`, `wake_lag_max_us`); it does not accumulate, since every deadline is on the real clock
//! (shifted by the stalls). The engine's own deadlines (think times, a policy's timers) are returned the same
//! way: at their time, with the model not advanced past it, so that a reader's next request after its think time
//! reaches the model when it would in simulation, not a wake-up later (rr's anticipation lost cvs a quarter
//! of its reads to that).

use crate::uring::UringDevice;
use iosched_core::policy::StatValue;
use iosched_core::request::Request;
use iosched_device::{Completion, Device};

/// What emulation needs of the real device besides the [`Device`] interface.
pub trait RealDevice: Device {
    /// The real clock, ns (the engine's time).
    fn clock_ns(&self) -> u64;
    /// Whether a wait without a deadline can end: a request is at the kernel, or arrivals are listened for.
    fn busy(&self) -> bool;
    /// The last wait ended for a reason of the device's own (new requests arrived for the engine): true once.
    fn take_wake(&mut self) -> bool {
        false
    }
}

impl RealDevice for UringDevice {
    fn clock_ns(&self) -> u64 {
        UringDevice::clock_ns(self)
    }

    fn busy(&self) -> bool {
        UringDevice::busy(self)
    }
}

/// Where each tag stands.
#[derive(Clone, Copy, Default)]
struct TagState {
    /// The model finished it at this time (ns).
    model_done_ns: Option<u64>,
    /// The real I/O finished, with this error (0 for success).
    real_error: Option<i32>,
}

#[derive(Default)]
struct LateCounters {
    completed: u64,
    late: u64,
    late_total_ns: u64,
    late_max_ns: u64,
    /// From the model's completion time to the pass that saw it (the engine's wake-up lag), summed over the
    /// requests released on time (completed - late).
    wake_lag_total_ns: u64,
    wake_lag_max_ns: u64,
    stalls: u64,
}

pub struct EmulatedDevice {
    model: Box<dyn Device>,
    real: Box<dyn RealDevice>,
    tags: Vec<TagState>,
    /// The model's clock: the latest time it has been advanced to or given a request at.
    model_now_ns: u64,
    /// How far the emulated clock (the model's and the engine's) is behind the real one: the sum of the stalls.
    stalled_ns: u64,
    /// While a late request stalls the device: the emulated time it stopped at (its model completion).
    stalled_at_ns: Option<u64>,
    ready: Vec<Completion>,
    /// The time `ready`'s completions were released at.
    ready_at_ns: u64,
    scratch: Vec<Completion>,
    late: LateCounters,
}

impl EmulatedDevice {
    /// `real` must have been opened with at least the model's queue depth (the engine's tags go to both).
    pub fn new(model: Box<dyn Device>, real: Box<dyn RealDevice>) -> EmulatedDevice {
        assert!(
            real.queue_depth() >= model.queue_depth(),
            "the real device's depth {} is below the model's {}",
            real.queue_depth(),
            model.queue_depth()
        );
        let depth = model.queue_depth().max(1) as usize;
        EmulatedDevice {
            model,
            real,
            tags: vec![TagState::default(); depth],
            model_now_ns: 0,
            stalled_ns: 0,
            stalled_at_ns: None,
            ready: Vec::new(),
            ready_at_ns: 0,
            scratch: Vec::new(),
            late: LateCounters::default(),
        }
    }

    /// How far the emulated clock is behind the real one at real time `real_ns`: the stalls so far, the one under
    /// way included.
    fn behind_ns(&self, real_ns: u64) -> u64 {
        self.stalled_at_ns.map_or(self.stalled_ns, |at| real_ns.saturating_sub(at).max(self.stalled_ns))
    }

    /// The emulated time at real time `real_ns`: stopped while a stall lasts.
    fn emulated_ns(&self, real_ns: u64) -> u64 {
        self.stalled_at_ns.unwrap_or(real_ns.saturating_sub(self.stalled_ns))
    }

    /// Take what the real device has finished by real time `real_ns` and the model by emulated time `until_ns`
    /// (at most the emulated time now), and release the tags both have finished: the late ones first, else those
    /// of the model's earliest event that releases any. Returns the emulated time they complete at: the model's
    /// event time (for late ones, the time the stall began).
    fn collect(&mut self, real_ns: u64, until_ns: Option<u64>) -> Option<u64> {
        // Real first: a real completion collected in the same pass as the model's counts as on time.
        let mut done = std::mem::take(&mut self.scratch);
        self.real.advance(real_ns, &mut done);
        let mut released_at = None;
        for c in done.drain(..) {
            let state = &mut self.tags[c.tag as usize];
            match state.model_done_ns {
                Some(model_ns) => {
                    let late_ns = real_ns.saturating_sub(model_ns + self.stalled_ns);
                    self.late.late += 1;
                    self.late.late_total_ns += late_ns;
                    self.late.late_max_ns = self.late.late_max_ns.max(late_ns);
                    self.release(c.tag, c.error);
                    released_at = Some(model_ns);
                }
                None => state.real_error = Some(c.error),
            }
        }
        // The stall ends when no request the model has finished waits for its real I/O any more; the emulated
        // clock goes on from where it stopped.
        if self.stalled_at_ns.is_some() && self.tags.iter().all(|t| t.model_done_ns.is_none()) {
            self.stalled_ns = self.behind_ns(real_ns);
            self.stalled_at_ns = None;
            self.late.stalls += 1;
        }
        // The model, one event at a time, stopping at the first that releases a request (the engine then reacts
        // at that event's time, as in simulation, however late this pass runs) or that a real I/O holds up.
        let now = self.emulated_ns(real_ns);
        let horizon = until_ns.map_or(now, |u| u.min(now));
        while released_at.is_none() && self.stalled_at_ns.is_none() {
            let Some(at) = self.model.next_event_ns().filter(|t| *t <= horizon) else {
                break;
            };
            self.model_now_ns = self.model_now_ns.max(at);
            self.model.advance(at, &mut done);
            for c in done.drain(..) {
                let state = &mut self.tags[c.tag as usize];
                match state.real_error {
                    Some(error) => {
                        self.release(c.tag, error);
                        let lag_ns = now - at;
                        self.late.wake_lag_total_ns += lag_ns;
                        self.late.wake_lag_max_ns = self.late.wake_lag_max_ns.max(lag_ns);
                        released_at = Some(at);
                    }
                    None => {
                        state.model_done_ns = Some(at);
                        self.stalled_at_ns = Some(at);
                    }
                }
            }
        }
        self.scratch = done;
        if let Some(at) = released_at {
            self.ready_at_ns = at;
        }
        released_at
    }

    fn release(&mut self, tag: u32, error: i32) {
        self.tags[tag as usize] = TagState::default();
        self.late.completed += 1;
        self.ready.push(Completion { tag, error });
    }
}

impl Device for EmulatedDevice {
    fn describe(&self) -> String {
        format!("emulate:{} on {}", self.model.describe(), self.real.describe())
    }

    fn queue_depth(&self) -> u32 {
        self.model.queue_depth()
    }

    fn capacity_bytes(&self) -> u64 {
        self.model.capacity_bytes().min(self.real.capacity_bytes())
    }

    fn rotational(&self) -> bool {
        self.model.rotational()
    }

    fn can_accept(&self, now_ns: u64) -> bool {
        // Asked at the engine's time, which may be a model event's time behind the real clock.
        self.model.can_accept(now_ns.max(self.model_now_ns))
    }

    fn submit(&mut self, now_ns: u64, tag: u32, req: &Request) {
        // The engine's time is that of the completion it reacts to, or the real clock; the model may have moved
        // past it through an internal event since.
        let at = now_ns.max(self.model_now_ns);
        self.model_now_ns = at;
        self.model.submit(at, tag, req);
        self.real.submit(now_ns, tag, req);
    }

    fn next_event_ns(&self) -> Option<u64> {
        (!self.ready.is_empty()).then_some(self.ready_at_ns)
    }

    /// Hands over what the last [`Device::wait`] released (collecting more here would complete them at the time
    /// wait returned, earlier than the model says).
    fn advance(&mut self, _now_ns: u64, completed: &mut Vec<Completion>) {
        completed.append(&mut self.ready);
    }

    fn stats(&self) -> Vec<(String, StatValue)> {
        let l = &self.late;
        let mean_us = if l.late == 0 { 0.0 } else { l.late_total_ns as f64 / l.late as f64 / 1e3 };
        let on_time = l.completed - l.late;
        let wake_lag_mean_us = if on_time == 0 { 0.0 } else { l.wake_lag_total_ns as f64 / on_time as f64 / 1e3 };
        let share = if l.completed == 0 { 0.0 } else { l.late as f64 / l.completed as f64 };
        let stalled_ns = self.behind_ns(self.real.clock_ns());
        let mut out = vec![
            ("late_requests".to_string(), StatValue::Count(l.late)),
            ("late_share".to_string(), StatValue::Value(share)),
            ("late_mean_us".to_string(), StatValue::Value(mean_us)),
            ("late_max_us".to_string(), StatValue::Value(l.late_max_ns as f64 / 1e3)),
            ("wake_lag_mean_us".to_string(), StatValue::Value(wake_lag_mean_us)),
            ("wake_lag_max_us".to_string(), StatValue::Value(l.wake_lag_max_ns as f64 / 1e3)),
            ("stalls".to_string(), StatValue::Count(l.stalls)),
            ("stall_ms".to_string(), StatValue::Value(stalled_ns as f64 / 1e6)),
        ];
        out.extend(self.real.stats());
        out.extend(self.model.stats().into_iter().map(|(k, v)| (format!("model_{k}"), v)));
        out
    }

    fn is_live(&self) -> bool {
        true
    }

    fn wait(&mut self, until_ns: Option<u64>) -> u64 {
        if !self.ready.is_empty() {
            return self.ready_at_ns; // not handed over yet: nothing more until they are
        }
        loop {
            let real_ns = self.real.clock_ns();
            if let Some(at) = self.collect(real_ns, until_ns) {
                return at;
            }
            let now = self.emulated_ns(real_ns);
            if let Some(until) = until_ns.filter(|u| *u <= now) {
                // The engine's event is due: it happens at its time, as a completion does (the model has not
                // been taken past it), not at the later time this thread woke up.
                return until;
            }
            // Deadlines are emulated times, waited for on the real clock; a stall has none (it ends with the real
            // I/O it waits for, which keeps the real device busy).
            let deadline = match (until_ns, self.model.next_event_ns()) {
                _ if self.stalled_at_ns.is_some() => None,
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            if deadline.is_none() && !self.real.busy() {
                return now; // nothing will happen
            }
            self.real.wait(deadline.map(|d| d + self.stalled_ns));
            if self.real.take_wake() {
                return self.emulated_ns(self.real.clock_ns()); // the engine has new requests to take
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iosched_core::request::Op;
    use iosched_device::simple::{SimpleDevice, SimpleParams};

    fn temp_file(bytes: u64) -> std::path::PathBuf {
        let dir = iosched_test_data::scratch(&format!("emulate-{bytes}"));
        let path = dir.join(format!("f{bytes}"));
        std::fs::write(&path, vec![0u8; bytes as usize]).unwrap();
        path
    }

    fn read(id: u64, offset_bytes: u64) -> Request {
        Request::new(id, Op::Read, offset_bytes, 4096, 0)
    }

    /// The real device on `path`, or None (said loudly) where the kernel (or a container's seccomp profile)
    /// refuses io_uring: the machine, not the code.
    fn open_real(path: &std::path::Path, depth: u32) -> Option<UringDevice> {
        match UringDevice::open(path, depth, false) {
            Ok(real) => Some(real),
            Err(e @ crate::uring::OpenError::Ring { .. }) => {
                iosched_test_data::skip(&e.to_string());
                None
            }
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn a_request_completes_no_sooner_than_the_model_says() {
        let path = temp_file(1 << 20);
        let Some(real) = open_real(&path, 4) else {
            return;
        };
        let params = SimpleParams { latency_ns: 20_000_000, queue_depth: 4, ..SimpleParams::default() };
        let mut dev = EmulatedDevice::new(Box::new(SimpleDevice::new(params)), Box::new(real));
        assert_eq!(dev.capacity_bytes(), 1 << 20, "the smaller of the model and the file");
        let start = dev.wait(Some(0));
        dev.submit(start, 0, &read(0, 0));
        dev.submit(start, 1, &read(1, 8192));
        let mut got = Vec::new();
        while got.len() < 2 {
            let now = dev.wait(None);
            dev.advance(now, &mut got);
            assert!(got.is_empty() || now >= start + 20_000_000, "completed at {now}, before the model's 20 ms");
        }
        assert_eq!(got.iter().map(|c| (c.tag, c.error)).collect::<Vec<_>>(), vec![(0, 0), (1, 0)]);
        let stats = dev.stats();
        assert_eq!(stats[0], ("late_requests".to_string(), StatValue::Count(0)), "real 4 KiB reads beat 20 ms");
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn a_late_request_stalls_the_emulated_clock_at_its_model_completion() {
        // A model that writes 4 MiB in about 1 us, against a real write of 4 MiB with O_DSYNC (a copy of 4 MiB
        // alone takes longer): every request is late, and each completes at its model time on the emulated clock,
        // which stands still until the real write is done.
        let path = temp_file(8 << 20);
        let Some(real) = open_real(&path, 1) else {
            return;
        };
        let params = SimpleParams {
            latency_ns: 1_000,
            bandwidth_bytes_per_s: 1 << 50,
            queue_depth: 1,
            ..SimpleParams::default()
        };
        let mut dev = EmulatedDevice::new(Box::new(SimpleDevice::new(params.clone())), Box::new(real));
        let mut write = Request::new(0, Op::Write, 0, 4 << 20, 0);
        write.fua = true;
        let model_ns = {
            let mut model = SimpleDevice::new(params);
            model.submit(0, 0, &write);
            model.next_event_ns().unwrap()
        };
        let mut at = dev.wait(Some(0));
        for round in 1..=2u64 {
            dev.submit(at, 0, &write);
            let mut got = Vec::new();
            let mut now = at;
            while got.is_empty() {
                now = dev.wait(None);
                dev.advance(now, &mut got);
            }
            assert_eq!(now, at + model_ns, "round {round}: released at its model completion");
            let stat = |name: &str| dev.stats().into_iter().find(|(k, _)| k == name).map(|(_, v)| v).unwrap();
            assert_eq!(stat("late_requests"), StatValue::Count(round));
            assert_eq!(stat("stalls"), StatValue::Count(round));
            assert!(matches!(stat("stall_ms"), StatValue::Value(ms) if ms > 0.0), "{:?}", stat("stall_ms"));
            // The engine's next deadline comes at its emulated time, behind the real clock by the stalls.
            at = dev.wait(Some(now + 1_000_000));
            assert_eq!(at, now + 1_000_000, "round {round}: a deadline returns at its time");
        }
        std::fs::remove_file(path).unwrap();
    }
}
