//! A SATA host bus adapter in front of a drive, as MQSim models one (host/SATA_HBA.cpp): the adapter takes
//! `processing_ns` to hand each command to the drive and again to hand each completion back to the host, one at
//! a time in each direction, in the order they come. Commands and completions queue for it while it is busy,
//! so the adapter, not the drive, sets the pace once requests come faster than one per `processing_ns`.
//!
//! MQSim's SATA_HBA keeps two queues, one for submissions and one for completions, and serves each as an event
//! `SATA_Processing_Delay` after the one before (or after the arrival that found the queue empty): so the n-th
//! command reaches the drive at `max(arrival, previous hand-over) + delay`, and likewise completions. MQSim
//! counts a request's device response time from its hand-over to the drive to the end of its completion's
//! processing, and its end-to-end delay from its arrival; iosched's response time is the end-to-end one.

use crate::device::{Completion, Device};
use iosched_core::policy::StatValue;
use iosched_core::request::Request;
use std::collections::VecDeque;

/// A command waiting for the adapter: when it reaches the drive, its tag, the request and, for a trim of
/// several ranges, the ranges.
struct Submission {
    at_ns: u64,
    tag: u32,
    req: Request,
    ranges: Option<Vec<(u64, u64)>>,
}

pub struct SataHba {
    drive: Box<dyn Device>,
    processing_ns: u64,
    submissions: VecDeque<Submission>,
    /// When the adapter hands over its last command queued so far.
    last_submission_ns: u64,
    /// Completions the drive has made, each with when the host gets it.
    completions: VecDeque<(u64, Completion)>,
    last_completion_ns: u64,
    /// Scratch for the drive's completions.
    from_drive: Vec<Completion>,
    /// Time commands spent in the adapter before the drive had them, summed (a statistic).
    submission_wait_ns: u64,
    completion_wait_ns: u64,
}

impl SataHba {
    pub fn new(drive: Box<dyn Device>, processing_ns: u64) -> SataHba {
        SataHba {
            drive,
            processing_ns,
            submissions: VecDeque::new(),
            last_submission_ns: 0,
            completions: VecDeque::new(),
            last_completion_ns: 0,
            from_drive: Vec::new(),
            submission_wait_ns: 0,
            completion_wait_ns: 0,
        }
    }

    fn queue(&mut self, now_ns: u64, tag: u32, req: &Request, ranges: Option<Vec<(u64, u64)>>) {
        let at_ns = now_ns.max(self.last_submission_ns) + self.processing_ns;
        self.last_submission_ns = at_ns;
        self.submission_wait_ns += at_ns - now_ns;
        self.submissions.push_back(Submission { at_ns, tag, req: *req, ranges });
    }
}

impl Device for SataHba {
    fn describe(&self) -> String {
        self.drive.describe()
    }

    fn queue_depth(&self) -> u32 {
        self.drive.queue_depth()
    }

    fn capacity_bytes(&self) -> u64 {
        self.drive.capacity_bytes()
    }

    fn rotational(&self) -> bool {
        self.drive.rotational()
    }

    fn can_accept(&self, now_ns: u64) -> bool {
        self.drive.can_accept(now_ns)
    }

    fn submit(&mut self, now_ns: u64, tag: u32, req: &Request) {
        self.queue(now_ns, tag, req, None);
    }

    fn submit_trim_ranges(&mut self, now_ns: u64, tag: u32, req: &Request, ranges: &[(u64, u64)]) {
        self.queue(now_ns, tag, req, Some(ranges.to_vec()));
    }

    fn next_event_ns(&self) -> Option<u64> {
        [self.submissions.front().map(|s| s.at_ns), self.completions.front().map(|c| c.0), self.drive.next_event_ns()]
            .into_iter()
            .flatten()
            .min()
    }

    fn advance(&mut self, now_ns: u64, completed: &mut Vec<Completion>) {
        // The drive's events and the adapter's hand-overs, in time order (the drive's first at equal times).
        loop {
            let drive_at = self.drive.next_event_ns().filter(|&t| t <= now_ns);
            let hand_over_at = self.submissions.front().map(|s| s.at_ns).filter(|&t| t <= now_ns);
            match (drive_at, hand_over_at) {
                (Some(t), h) if h.is_none_or(|h| t <= h) => {
                    self.drive.advance(t, &mut self.from_drive);
                    for c in self.from_drive.drain(..) {
                        let at_ns = t.max(self.last_completion_ns) + self.processing_ns;
                        self.last_completion_ns = at_ns;
                        self.completion_wait_ns += at_ns - t;
                        self.completions.push_back((at_ns, c));
                    }
                }
                (_, Some(t)) => {
                    let s = self.submissions.pop_front().expect("a hand-over is due, so one is queued");
                    match &s.ranges {
                        Some(ranges) => self.drive.submit_trim_ranges(t, s.tag, &s.req, ranges),
                        None => self.drive.submit(t, s.tag, &s.req),
                    }
                }
                _ => break,
            }
        }
        while let Some(&(at_ns, c)) = self.completions.front() {
            if at_ns > now_ns {
                break;
            }
            self.completions.pop_front();
            completed.push(c);
        }
    }

    fn stats(&self) -> Vec<(String, StatValue)> {
        let mut stats = self.drive.stats();
        stats.push(("sata_hba_submission_wait_ns".to_string(), StatValue::Count(self.submission_wait_ns)));
        stats.push(("sata_hba_completion_wait_ns".to_string(), StatValue::Count(self.completion_wait_ns)));
        stats
    }

    fn last_service(&self) -> Option<&'static str> {
        self.drive.last_service()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simple::{SimpleDevice, SimpleParams};
    use iosched_core::request::Op;

    /// A simple drive of `latency_ns` and 100 MB/s.
    fn simple(latency_ns: u64) -> SimpleDevice {
        SimpleDevice::new(SimpleParams { latency_ns, bandwidth_bytes_per_s: 100_000_000, ..SimpleParams::default() })
    }

    /// Runs `arrivals` (time, tag, bytes) through `device`; returns each tag with its completion time, in
    /// completion order.
    fn drive(device: &mut dyn Device, arrivals: &[(u64, u32, u64)]) -> Vec<(u32, u64)> {
        let (mut done, mut out) = (Vec::new(), Vec::new());
        let mut pending = arrivals.iter().copied().peekable();
        while let Some(now) = [pending.peek().map(|a| a.0), device.next_event_ns()].into_iter().flatten().min() {
            device.advance(now, &mut out);
            done.extend(out.drain(..).map(|c| (c.tag, now)));
            while let Some((_, tag, bytes)) = pending.next_if(|a| a.0 == now) {
                device.submit(now, tag, &Request::new(tag as u64, Op::Read, 0, bytes, 0));
            }
        }
        done
    }

    /// `arrivals` through an adapter of `processing_ns` in front of [`simple`].
    fn run(processing_ns: u64, latency_ns: u64, arrivals: &[(u64, u32, u64)]) -> Vec<(u32, u64)> {
        drive(&mut SataHba::new(Box::new(simple(latency_ns)), processing_ns), arrivals)
    }

    #[test]
    fn a_lone_command_pays_the_adapter_twice() {
        // 100 us to hand it over, 50 us in the drive and 1 us of transfer (100 bytes), 100 us to hand the
        // completion back.
        assert_eq!(run(100_000, 50_000, &[(0, 7, 100)]), vec![(7, 251_000)]);
    }

    #[test]
    fn commands_arriving_together_are_handed_over_one_per_processing_time() {
        // Handed over at 100, 200 and 300 us; each done in the drive 11 us later; back 100 us after that.
        let done = run(100_000, 10_000, &[(0, 1, 100), (0, 2, 100), (0, 3, 100)]);
        assert_eq!(done, vec![(1, 211_000), (2, 311_000), (3, 411_000)]);
    }

    #[test]
    fn completions_the_drive_makes_together_queue_for_the_adapter() {
        // The first read moves 10 MB (100 ms at 100 MB/s); the two 1-byte ones, handed over 1 and 2 us later,
        // complete in the drive right behind it, 10 ns apart; the adapter hands them back 1 us apart each.
        let done = run(1_000, 0, &[(0, 1, 10_000_000), (0, 2, 1), (0, 3, 1)]);
        let drive_done_ns = 1_000 + 100_000_000;
        assert_eq!(done[0], (1, drive_done_ns + 1_000));
        assert_eq!(done.iter().map(|d| d.0).collect::<Vec<_>>(), vec![1, 2, 3]);
        assert_eq!((done[1].1 - done[0].1, done[2].1 - done[1].1), (1_000, 1_000));
    }

    #[test]
    fn without_a_delay_the_adapter_changes_nothing() {
        let arrivals = [(0, 1, 100), (5_000, 2, 4096), (5_000, 3, 100)];
        assert_eq!(run(0, 10_000, &arrivals), drive(&mut simple(10_000), &arrivals));
    }
}
