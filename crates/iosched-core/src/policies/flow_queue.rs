//! How a flow's own queue picks its next request in CFQ and BFQ, and the four tunables that govern it: at the
//! first choice of a turn, the oldest request if it is older than fifo_expire_sync / fifo_expire_async; otherwise
//! the one-way elevator with backward seeks up to back_seek_max costed back_seek_penalty times (Linux's
//! cfq_check_fifo / bfq_check_fifo and cfq_choose_req / bfq_choose_req). The requests themselves are a
//! [`SortedFifo`].

use super::sorted_fifo::{Key, SortedFifo};
use crate::tunable::{TunableError, TunableKind, TunableSpec};
use crate::units::NS_PER_MS;

pub const TUNABLES: [TunableSpec; 4] = [
    TunableSpec {
        name: "back_seek_max",
        kind: TunableKind::Int { min: 0, max: 1 << 30, unit: "KiB" },
        default: "16384",
        description: "longest backward seek taken within a queue",
    },
    TunableSpec {
        name: "back_seek_penalty",
        kind: TunableKind::Int { min: 1, max: 1000, unit: "x" },
        default: "2",
        description: "how much a backward seek costs against a forward one",
    },
    TunableSpec {
        name: "fifo_expire_sync",
        kind: TunableKind::Int { min: 1, max: 60000, unit: "ms" },
        default: "125",
        description: "age at which a sync request is served before the elevator's choice",
    },
    TunableSpec {
        name: "fifo_expire_async",
        kind: TunableKind::Int { min: 1, max: 60000, unit: "ms" },
        default: "250",
        description: "age at which an async request is served before the elevator's choice",
    },
];

/// The settings of a flow queue's request order.
#[derive(Clone, Copy, Debug)]
pub struct FlowQueueOrder {
    back_seek_max_bytes: u64,
    back_seek_penalty: u64,
    /// [async, sync].
    fifo_expire_ns: [u64; 2],
}

impl Default for FlowQueueOrder {
    fn default() -> Self {
        FlowQueueOrder {
            back_seek_max_bytes: 16384 * 1024,
            back_seek_penalty: 2,
            fifo_expire_ns: [250 * NS_PER_MS, 125 * NS_PER_MS],
        }
    }
}

impl FlowQueueOrder {
    /// When a request queued at `now_ns` becomes overdue.
    pub fn deadline_ns(&self, now_ns: u64, sync: bool) -> u64 {
        now_ns + self.fifo_expire_ns[usize::from(sync)]
    }

    /// The next request of `requests` for a queue whose elevator stands at `head_bytes`, and whether it was
    /// taken from the FIFO. `fifo_checked` is the queue's per-turn flag: the FIFO is looked at only when it is
    /// false, and that sets it.
    pub fn next(
        &self,
        requests: &mut SortedFifo,
        now_ns: u64,
        fifo_checked: &mut bool,
        head_bytes: u64,
    ) -> Option<(Key, bool)> {
        if !*fifo_checked {
            *fifo_checked = true;
            if let Some((key, deadline_ns)) = requests.oldest() {
                if now_ns >= deadline_ns {
                    return Some((key, true));
                }
            }
        }
        requests
            .nearest_with_back_seek(head_bytes, self.back_seek_max_bytes, self.back_seek_penalty)
            .map(|k| (k, false))
    }

    /// The request the elevator would take next, without the FIFO check (BFQ's `next_rq`): for decisions that
    /// must not change the queue, such as whether a queue's next request fits its budget.
    pub fn peek(&self, requests: &SortedFifo, head_bytes: u64) -> Option<Key> {
        requests.nearest_with_back_seek(head_bytes, self.back_seek_max_bytes, self.back_seek_penalty)
    }

    /// The value of one of [`TUNABLES`], or None for another name.
    pub fn tunable(&self, name: &str) -> Option<String> {
        Some(match name {
            "back_seek_max" => (self.back_seek_max_bytes / 1024).to_string(),
            "back_seek_penalty" => self.back_seek_penalty.to_string(),
            "fifo_expire_sync" => (self.fifo_expire_ns[1] / NS_PER_MS).to_string(),
            "fifo_expire_async" => (self.fifo_expire_ns[0] / NS_PER_MS).to_string(),
            _ => return None,
        })
    }

    /// Set one of [`TUNABLES`] (None for another name; on error nothing changes).
    pub fn set_tunable(&mut self, name: &str, value: &str) -> Option<Result<(), TunableError>> {
        let spec = TUNABLES.iter().find(|s| s.name == name)?;
        Some(spec.parse_int(value).map(|v| {
            let v = v as u64;
            match name {
                "back_seek_max" => self.back_seek_max_bytes = v * 1024,
                "back_seek_penalty" => self.back_seek_penalty = v,
                "fifo_expire_sync" => self.fifo_expire_ns[1] = v * NS_PER_MS,
                _ => self.fifo_expire_ns[0] = v * NS_PER_MS,
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{Op, Request};

    #[test]
    fn the_fifo_is_looked_at_once_per_turn_then_the_elevator_chooses() {
        let order = FlowQueueOrder::default();
        let mut q = SortedFifo::default();
        for (seq, offset) in [(0u64, 900u64), (1, 100), (2, 200)] {
            q.insert(seq, Request::new(seq, Op::Read, offset, 1, 0), order.deadline_ns(0, true));
        }
        let mut checked = false;
        // Not overdue: the elevator's choice from 150, and the FIFO is not looked at again this turn.
        assert_eq!(order.next(&mut q, 0, &mut checked, 150), Some(((200, 2), false)));
        assert!(checked);
        assert_eq!(order.next(&mut q, 200 * NS_PER_MS, &mut checked, 150), Some(((200, 2), false)));
        // A new turn with the oldest overdue: it goes first.
        checked = false;
        assert_eq!(order.next(&mut q, 200 * NS_PER_MS, &mut checked, 150), Some(((900, 0), true)));
    }

    #[test]
    fn tunables_read_back_and_are_checked() {
        let mut order = FlowQueueOrder::default();
        for spec in TUNABLES {
            assert_eq!(order.tunable(spec.name).as_deref(), Some(spec.default));
        }
        assert!(order.set_tunable("back_seek_penalty", "0").unwrap().is_err());
        assert_eq!(order.set_tunable("fifo_expire_async", "10"), Some(Ok(())));
        assert_eq!(order.tunable("fifo_expire_async").as_deref(), Some("10"));
        assert!(order.set_tunable("slice_idle", "1").is_none());
    }
}
