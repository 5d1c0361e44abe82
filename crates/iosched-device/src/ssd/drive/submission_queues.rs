//! The timed SSD's NVMe submission queues, one per flow, when the drive fetches at most a window of each
//! flow's commands at once (MQSim's Queue_Fetch_Size; Host_Interface_NVMe.cpp, Input_Stream_Manager_NVMe):
//! a flow's command submitted while `window` of its commands are in the drive waits in its queue, its time
//! counted, and the drive fetches it when one of the flow's commands is serviced (a read once its data is read,
//! before it crosses the link; any other command when it completes), in the order they were submitted. Other
//! flows' commands do not wait for it: each flow has its own window.

use super::*;

/// A flow's queue: its commands in the drive, and those waiting to be fetched (tag and request).
#[derive(Default)]
pub(super) struct FlowQueue {
    fetched: u32,
    waiting: VecDeque<(u32, Request)>,
}

impl Ssd {
    /// Start `req` now unless its flow's window is full; then it waits in the flow's queue.
    pub(super) fn fetch_or_queue(&mut self, now_ns: u64, tag: u32, req: &Request) {
        let Some(window) = self.p.fetch_window_per_flow else {
            return self.start_command(now_ns, tag, req);
        };
        let flow = req.flow.0 as usize;
        if self.submission_queues.len() <= flow {
            self.submission_queues.resize_with(flow + 1, FlowQueue::default);
        }
        let q = &mut self.submission_queues[flow];
        if q.fetched < window {
            q.fetched += 1;
            self.start_command(now_ns, tag, req);
        } else {
            q.waiting.push_back((tag, *req));
        }
    }

    /// One of `flow`'s commands is serviced: its place in the window is free, and the flow's next waiting
    /// command is fetched once the current event is handled ([`Ssd::fetch_freed`]).
    pub(super) fn serviced(&mut self, flow: u32) {
        if self.p.fetch_window_per_flow.is_none() {
            return;
        }
        let q = &mut self.submission_queues[flow as usize];
        q.fetched -= 1;
        if !q.waiting.is_empty() {
            self.freed_windows.push(flow);
        }
    }

    /// Fetch the commands whose flows' windows freed during the event just handled.
    pub(super) fn fetch_freed(&mut self, now_ns: u64) {
        while let Some(flow) = self.freed_windows.pop() {
            let q = &mut self.submission_queues[flow as usize];
            if let Some((tag, req)) = q.waiting.pop_front() {
                q.fetched += 1;
                self.start_command(now_ns, tag, &req);
            }
        }
    }
}
