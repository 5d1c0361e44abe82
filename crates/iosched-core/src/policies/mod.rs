//! The scheduling algorithms, one file each. Each file begins with what the algorithm does and where it comes
//! from. Register a new one in [`crate::registry`] and it gets the property tests automatically.

pub mod anticipatory;
pub mod bfq;
pub mod cam;
pub mod cfq;
pub mod deadline;
pub mod elevator;
pub mod flow_map;
pub mod flow_queue;
pub mod kyber;
pub mod noop;
pub mod peak_rate;
pub mod rr;
pub mod sorted_fifo;
pub mod wf2q;
