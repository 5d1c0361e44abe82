//! The FUSE mount: a scheduler inserted into real programs' I/O (`iosched insert`, `iosched create`).
//!
//! - [`fs`]: the passthrough file system over the directory underneath (held by descriptor).
//! - [`caller`]: the calling thread's process (the flow) and I/O priority (class and level).
//! - [`placement`]: where each file lies in the one address space policies and device models see.
//! - [`pending`]: reads, writes and fsyncs between the file system thread and the engine, answered on completion.
//! - [`device`]: the files underneath as an io_uring device that wakes when requests arrive.
//! - [`doorbell`]: how the file system thread tells the engine that requests arrived.
//! - [`daemon`]: mounting, serving, the control socket and removal.

pub mod caller;
pub mod daemon;
pub(crate) mod device;
pub(crate) mod doorbell;
pub(crate) mod fs;
pub(crate) mod pending;
pub mod placement;
