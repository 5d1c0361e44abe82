//! The engine on the real clock (`iosched run`, a FUSE mount's daemon): the loop that waits on the device instead
//! of jumping to the next event, with what only a live run has: requests arriving from an inlet, a policy that
//! holds requests with nothing to wake it failed after [`LIVE_STALL_NS`], and the controls (stats, configure,
//! stop) answered between waits.

use super::*;

impl Engine {
    /// The loop on the real clock: collect completions, handle the events that are due, fill the device, then
    /// wait on the device until its next completion or the next event's time.
    pub(super) fn run_live(&mut self) -> Result<(), SimError> {
        self.now_ns = self.device.wait(Some(0));
        loop {
            let mut done = std::mem::take(&mut self.completion_buf);
            self.device.advance(self.now_ns, &mut done);
            for c in done.drain(..) {
                self.on_completion(c);
            }
            self.completion_buf = done;
            while let Some(&Reverse((at, _, kind))) = self.events.peek() {
                if at > self.now_ns {
                    break;
                }
                self.events.pop();
                if kind == EventKind::PolicyTimer {
                    if self.timer_armed_ns != Some(at) {
                        continue; // superseded by an earlier timer
                    }
                    self.timer_armed_ns = None;
                }
                self.handle(kind);
            }
            self.take_arrivals();
            self.fill_device();
            self.fail_stalled();
            self.answer_controls();
            // Over once nothing is in flight, no source will wake and the inlet (if any) has closed: whatever a
            // policy still holds then, with no timer to release it, is a stall (reported below). The scan runs
            // only when the device is idle.
            if self.in_flight == 0
                && !self.inlet_open
                && !self.events.iter().any(|Reverse((_, _, kind))| *kind != EventKind::PolicyTimer)
                && (self.timer_armed_ns.is_none()
                    || (self.policy.queued() == 0 && self.barrier.flush.is_none() && self.barrier.held.is_empty()))
            {
                break;
            }
            let mut next = self.events.peek().map(|Reverse((t, _, _))| *t);
            if self.controls.requests.is_some() || self.controls.stop.is_some() {
                let poll_at = self.now_ns + POLL_INTERVAL_NS;
                next = Some(next.map_or(poll_at, |t| t.min(poll_at)));
            }
            if let Some(since) = self.stalled_since_ns {
                let give_up_at = since + LIVE_STALL_NS;
                next = Some(next.map_or(give_up_at, |t| t.min(give_up_at)));
            }
            self.now_ns = self.device.wait(next).max(self.now_ns);
        }
        self.check_drained()
    }

    /// Live: a policy that holds requests with the device idle, no timer set and nothing else to wake it has
    /// stalled; after [`LIVE_STALL_NS`] its requests are taken back and failed with EIO (the policy stays).
    fn fail_stalled(&mut self) {
        let stalled = self.in_flight == 0
            && self.policy.queued() > 0
            && self.timer_armed_ns.is_none()
            && self.device.can_accept(self.now_ns);
        if !stalled {
            self.stalled_since_ns = None;
            return;
        }
        let since = *self.stalled_since_ns.get_or_insert(self.now_ns);
        if self.now_ns < since + LIVE_STALL_NS {
            return;
        }
        self.stalled_since_ns = None;
        let held = self.policy.drain();
        eprintln!(
            "iosched: policy {} stalled: it held {} requests for {} s with the device idle and no timer set (a \
             policy bug); they fail with EIO",
            self.policy.name(),
            held.len(),
            LIVE_STALL_NS / 1_000_000_000
        );
        for mut req in held {
            req.error = EIO;
            self.finish_request(req, false);
        }
    }

    /// Admit what came through the inlet; each new flow becomes a source of its own.
    fn take_arrivals(&mut self) {
        let Some(inlet) = &mut self.inlet else {
            return;
        };
        let mut arrivals = std::mem::take(&mut self.arrival_buf);
        self.inlet_open = inlet.take(&mut arrivals);
        for arrival in arrivals.drain(..) {
            let flow = arrival.issue.flow.0 as usize;
            while self.flow_source.len() <= flow {
                let index = self.sources.len() as u32;
                let first_flow = self.flow_source.len() as u32;
                let inlet = self.inlet.as_ref().expect("checked above");
                self.sources.push(SourceState {
                    name: inlet.flow_name(FlowId(first_flow)),
                    first_flow,
                    process: Process::Inlet,
                    recorder: FlowRecorder::default(),
                    start_ns: self.now_ns,
                    last_completion_ns: self.now_ns,
                    group: index,
                    wave: 0,
                    group_reporting: false,
                    done: false,
                    options: Vec::new(),
                    queues: SourceQueues::default(),
                });
                self.flow_source.push(index);
            }
            let admitted = self.arrive(arrival.issue);
            let inlet = self.inlet.as_mut().expect("checked above");
            match admitted {
                Some(id) => inlet.admitted(arrival.token, id),
                None => inlet.refused(arrival.token),
            }
        }
        self.arrival_buf = arrivals;
    }

    /// Answer what the controllers asked, and start stopping once the stop flag is up.
    fn answer_controls(&mut self) {
        if !self.stopping && self.controls.stop.as_ref().is_some_and(|f| f.load(Ordering::Relaxed)) {
            self.stopping = true;
            self.stopped_at_ns = Some(self.now_ns);
            // No source wakes again and no switch comes; a policy's timer stays (it may be holding a request).
            let events = std::mem::take(&mut self.events);
            self.events = events.into_iter().filter(|Reverse((_, _, k))| *k == EventKind::PolicyTimer).collect();
        }
        let Some(requests) = &self.controls.requests else {
            return;
        };
        let messages: Vec<ControlMessage> = requests.try_iter().collect();
        if messages.is_empty() {
            return;
        }
        for ControlMessage { request, reply } in messages {
            let answer = match request {
                ControlRequest::Stats => ControlReply::Stats(Box::new(self.result(true))),
                ControlRequest::Flows => ControlReply::Flows(Box::new(self.snapshot())),
                ControlRequest::Configure { policy, settings } => self.configure(policy.as_deref(), &settings),
                ControlRequest::Destroy => ControlReply::Error(
                    "destroy removes a mount (iosched insert/create); a run stops with Ctrl-C".to_string(),
                ),
            };
            let _ = reply.send(answer); // a controller that went away does not need its answer
        }
        self.fill_device(); // a new policy or tunable may release requests
    }

    fn configure(&mut self, policy: Option<&str>, settings: &[(String, String)]) -> ControlReply {
        let pairs = settings.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        match policy {
            Some(name) => match iosched_core::registry::create_with(name, pairs) {
                Ok(next) => {
                    if let Err(e) = self.install_policy(next) {
                        return ControlReply::Error(e.to_string());
                    }
                }
                Err(e) => return ControlReply::Error(e.to_string()),
            },
            None => {
                // All or none: a setting refused puts back the ones applied before it.
                let mut applied: Vec<(String, String)> = Vec::new();
                for (key, value) in settings {
                    let previous = self.policy.tunable(key).ok();
                    if let Err(e) = self.policy.set_tunable(key, value) {
                        for (key, old) in applied.iter().rev() {
                            let _ = self.policy.set_tunable(key, old);
                        }
                        return ControlReply::Error(format!("{e} (no setting was applied)"));
                    }
                    if let Some(old) = previous {
                        applied.push((key.clone(), old));
                    }
                }
            }
        }
        ControlReply::Configured { policy: self.policy.name().to_string(), tunables: self.policy.tunable_values() }
    }
}
