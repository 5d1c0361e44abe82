//! A die's user reads and programs queued by priority class, and the order a die serves the classes in:
//! NVMe's weighted round robin with an urgent class (NVMe base specification, "Weighted Round Robin with Urgent
//! Priority Class Arbitration"), as MQSim's transaction scheduler applies it to each chip's queues
//! (TSU_Priority_OutOfOrder.cpp, get_next_read_service_queue / get_next_write_service_queue).
//!
//! - URGENT goes first whenever it has work.
//! - Otherwise the die turns through HIGH, MEDIUM and LOW, and a turn that lands on HIGH lowers a current
//!   weight by one (from 4 back to 4 after 1). A class is served at its turn when its weight (HIGH 4, MEDIUM 2,
//!   LOW 1) is at least the current weight and it has work: over a full round of four HIGH turns HIGH is
//!   served four times, MEDIUM twice, LOW once while all have work; a class alone is always served.
//! - Reads and programs turn separately, each die on its own.
//!
//! - One look goes through at most one round of HIGH's turns, so it can end before a class with work is
//!   served: LOW alone, just after its own turn, is passed over (its weight counts only at the last of the
//!   round's weights, and the round ends on HIGH's turn before LOW's comes again). The die then does what it
//!   would with no user read (a program: MQSim's service_read_transaction gives way to the writes), and if
//!   it has nothing else, looks again ([`super::dies`]); a second look always finds a class with work.
//! - A look with no work anywhere still takes a round of turns (it ends on HIGH's, the weight as it was).
//!
//! Approximation: MQSim looks at a chip each time its scheduler visits it, also when the chip is busy and no
//! command starts, and where a look passes over every class its chip waits for the next visit; here a die
//! looks when it is free to start a command, and looks again at once. The shares among classes with work are
//! the same; which command goes first at a given moment may differ.
//!
//! Without priority classes (a drive whose scheduler takes every user command in arrival order, MQSim's
//! OUT_OF_ORDER, and its SATA interface) every command is queued as HIGH and the turns change nothing.

use super::super::params::FlashClasses;
use iosched_core::request::{IoClass, Request};
use std::collections::VecDeque;

/// A command's class on the flash (MQSim's IO_Flow_Priority_Class, NVMe's submission queue priorities).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum FlashClass {
    Urgent = 0,
    #[default]
    High = 1,
    Medium = 2,
    Low = 3,
}

impl FlashClass {
    /// The class of a request from its I/O priority (the inverse of the MQSim workload's mapping of its
    /// classes to fio's): real-time is URGENT; best effort levels 0-3 HIGH, 4-6 MEDIUM, 7 LOW; idle LOW.
    pub fn of(req: &Request) -> FlashClass {
        match req.class {
            IoClass::Rt => FlashClass::Urgent,
            IoClass::Be if req.level <= 3 => FlashClass::High,
            IoClass::Be if req.level <= 6 => FlashClass::Medium,
            IoClass::Be | IoClass::Idle => FlashClass::Low,
        }
    }

    /// The class's weight in the round robin (URGENT is served first and has none).
    fn weight(self) -> u8 {
        match self {
            FlashClass::Urgent => 0,
            FlashClass::High => 4,
            FlashClass::Medium => 2,
            FlashClass::Low => 1,
        }
    }
}

impl FlashClasses {
    /// The class a command's page reads are queued in.
    pub(super) fn read_class(self, req: &Request) -> FlashClass {
        match self {
            FlashClasses::InOrder => FlashClass::High,
            FlashClasses::RealTimeFirst if req.class == IoClass::Rt => FlashClass::Urgent,
            FlashClasses::RealTimeFirst => FlashClass::High,
            FlashClasses::WeightedRoundRobin => FlashClass::of(req),
        }
    }

    /// The class the programs of a command's pages are queued in, given its reads' class: only the weighted
    /// round robin programs by class (MQSim's write-backs carry the flow's class).
    pub(super) fn program_class(self, read_class: FlashClass) -> FlashClass {
        match self {
            FlashClasses::WeightedRoundRobin => read_class,
            _ => FlashClass::High,
        }
    }

    /// The class of the program of a dirty page the data cache evicts: URGENT in MQSim's
    /// (Data_Cache_Manager_Flash_Advanced::write_to_destage_buffer).
    pub(super) fn eviction_class(self) -> FlashClass {
        match self {
            FlashClasses::WeightedRoundRobin => FlashClass::Urgent,
            _ => FlashClass::High,
        }
    }
}

/// The weight HIGH's turns count down from.
const ROUND: u8 = 4;

/// One die's queues of one kind of operation, a queue per class, and where its round robin stands.
#[derive(Clone, Debug)]
pub(super) struct ClassQueues<T> {
    queues: [VecDeque<T>; 4],
    /// The class whose turn came last.
    turn: FlashClass,
    /// The current weight: a class is served at its turn when its weight is at least this.
    current_weight: u8,
}

impl<T> Default for ClassQueues<T> {
    fn default() -> Self {
        ClassQueues { queues: Default::default(), turn: FlashClass::Urgent, current_weight: ROUND }
    }
}

impl<T> ClassQueues<T> {
    pub(super) fn push_back(&mut self, class: FlashClass, entry: T) {
        self.queues[class as usize].push_back(entry);
    }

    pub(super) fn is_empty(&self) -> bool {
        self.queues.iter().all(VecDeque::is_empty)
    }

    /// Whether a look would change nothing: no entry, and the turns already where a look with no work leaves
    /// them (HIGH's).
    pub(super) fn settled(&self) -> bool {
        self.turn == FlashClass::High && self.is_empty()
    }

    pub(super) fn queue_mut(&mut self, class: FlashClass) -> &mut VecDeque<T> {
        &mut self.queues[class as usize]
    }

    /// Every entry, class by class.
    pub(super) fn iter(&self) -> impl Iterator<Item = &T> {
        self.queues.iter().flatten()
    }

    /// One of MQSim's looks at the queues (get_next_read_service_queue, get_next_write_service_queue): the
    /// class to serve, among those with an entry `ready` says can go: URGENT if it has one, else the turns of
    /// at most one round of HIGH's, until a class whose weight is at least the current one has one; None if
    /// the round ends first (also when no class has one).
    pub(super) fn look(&mut self, ready: impl Fn(&T) -> bool) -> Option<FlashClass> {
        let has_work: [bool; 4] = std::array::from_fn(|c| self.queues[c].iter().any(&ready));
        if has_work[FlashClass::Urgent as usize] {
            return Some(FlashClass::Urgent);
        }
        if !has_work.iter().any(|&w| w) {
            // A whole round of HIGH's turns: it ends on HIGH's, the weight back where it was (four steps of a
            // cycle of four). (Said at once: busy dies are looked at often.)
            self.turn = FlashClass::High;
            return None;
        }
        let mut high_turns = 0;
        while high_turns < ROUND {
            self.turn = match self.turn {
                FlashClass::Urgent | FlashClass::Low => FlashClass::High,
                FlashClass::High => FlashClass::Medium,
                FlashClass::Medium => FlashClass::Low,
            };
            if self.turn == FlashClass::High {
                high_turns += 1;
                self.current_weight = if self.current_weight <= 1 { ROUND } else { self.current_weight - 1 };
            }
            if self.turn.weight() >= self.current_weight && has_work[self.turn as usize] {
                return Some(self.turn);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The classes served while every queue has work, for `n` looks.
    fn served(q: &mut ClassQueues<u32>, n: usize) -> Vec<FlashClass> {
        (0..n).map(|_| q.look(|_| true).unwrap()).collect()
    }

    #[test]
    fn high_medium_and_low_share_four_two_one() {
        let mut q = ClassQueues::default();
        for c in [FlashClass::High, FlashClass::Medium, FlashClass::Low] {
            q.push_back(c, 0);
        }
        let s = served(&mut q, 7 * 10);
        let count = |c| s.iter().filter(|&&x| x == c).count();
        assert_eq!((count(FlashClass::High), count(FlashClass::Medium), count(FlashClass::Low)), (40, 20, 10));
        // MQSim's order from its initial state (turn URGENT, weight 4): H at weight 3, H at 2, M, H at 1, M, L,
        // then H at 4 again.
        use FlashClass::*;
        assert_eq!(&s[..7], &[High, High, Medium, High, Medium, Low, High]);
    }

    #[test]
    fn urgent_goes_first_and_takes_no_turn() {
        let mut q = ClassQueues::default();
        q.push_back(FlashClass::Urgent, 1);
        q.push_back(FlashClass::Low, 2);
        assert_eq!(q.look(|_| true), Some(FlashClass::Urgent));
        assert_eq!((q.turn, q.current_weight), (FlashClass::Urgent, ROUND));
        q.queue_mut(FlashClass::Urgent).clear();
        assert_eq!(q.look(|_| true), Some(FlashClass::Low));
    }

    #[test]
    fn high_or_medium_alone_is_served_at_every_look_and_entries_not_ready_do_not_count() {
        for c in [FlashClass::High, FlashClass::Medium] {
            let mut q = ClassQueues::default();
            q.push_back(c, 7);
            for _ in 0..9 {
                assert_eq!(q.look(|_| true), Some(c));
            }
            assert_eq!(q.look(|&x| x != 7), None);
        }
        let mut q = ClassQueues::default();
        q.push_back(FlashClass::High, 1);
        q.push_back(FlashClass::Low, 2);
        assert_eq!(served(&mut q, 5).iter().filter(|&&c| c == FlashClass::Low).count(), 1);
        // HIGH's entry not ready: LOW's turn comes within the look.
        assert_eq!(q.look(|&x| x == 2), Some(FlashClass::Low));
    }

    #[test]
    fn a_look_with_no_work_ends_on_highs_turn_with_the_weight_as_it_was() {
        let mut q: ClassQueues<u32> = ClassQueues::default();
        q.push_back(FlashClass::High, 1);
        q.push_back(FlashClass::Medium, 2);
        served(&mut q, 3); // H (weight 3), H (2), M
        assert_eq!((q.turn, q.current_weight), (FlashClass::Medium, 2));
        assert_eq!(q.look(|_| false), None);
        assert_eq!((q.turn, q.current_weight), (FlashClass::High, 2));
    }

    #[test]
    fn one_look_passes_over_low_alone_just_after_its_turn() {
        let mut q = ClassQueues::default();
        q.push_back(FlashClass::Low, 0);
        assert_eq!(q.look(|_| true), Some(FlashClass::Low));
        // The round of HIGH's turns (weights 4, 3, 2, 1) ends on HIGH's turn at 1, before LOW's.
        assert_eq!(q.look(|_| true), None);
        assert_eq!((q.turn, q.current_weight), (FlashClass::High, 1));
        // Every other look serves it.
        let looks: Vec<_> = (0..6).map(|_| q.look(|_| true)).collect();
        assert_eq!(looks, [Some(FlashClass::Low), None].repeat(3));
    }

    #[test]
    fn classes_follow_io_priority() {
        use iosched_core::request::Op;
        let mut r = Request::new(0, Op::Read, 0, 4096, 0);
        let mut class_at = |class, level| {
            r.class = class;
            r.level = level;
            FlashClass::of(&r)
        };
        assert_eq!(class_at(IoClass::Rt, 0), FlashClass::Urgent);
        assert_eq!(class_at(IoClass::Be, 0), FlashClass::High);
        assert_eq!(class_at(IoClass::Be, 4), FlashClass::Medium);
        assert_eq!(class_at(IoClass::Be, 7), FlashClass::Low);
        assert_eq!(class_at(IoClass::Idle, 0), FlashClass::Low);
    }
}
