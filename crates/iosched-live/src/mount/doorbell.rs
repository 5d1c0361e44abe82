//! How the file system thread tells the engine that requests arrived, cheaply while the engine is awake.
//!
//! A ring is an atomic count, which a busy engine polls between completions; the eventfd, which the engine's io_uring
//! watches while it sleeps, is written only when the engine has said it is going to sleep. So a busy mount pays no
//! system call per request for the hand-over (before, the file system thread wrote the eventfd and the polling
//! engine read it back: two system calls per request, 10 % of the engine's time on 128 KiB reads).
//!
//! The engine announces sleep (a sequentially consistent store) and then looks at the count once more; the file
//! system thread counts (a sequentially consistent add) and then looks at the announcement. One of them sees the
//! other, so a ring is never missed: either the engine does not sleep, or the eventfd is written.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

pub struct Doorbell {
    /// Rings since the engine last answered.
    rung: AtomicU64,
    /// The engine is (about to be) blocked in a wait that only the eventfd ends.
    sleeping: AtomicBool,
    eventfd: OwnedFd,
}

impl Doorbell {
    pub fn new() -> std::io::Result<Doorbell> {
        // SAFETY: eventfd returns a new descriptor or -1.
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: fd is a new descriptor we own.
        let eventfd = unsafe { OwnedFd::from_raw_fd(fd) };
        Ok(Doorbell { rung: AtomicU64::new(0), sleeping: AtomicBool::new(false), eventfd })
    }

    /// Requests arrived (file system thread): count it, and wake the engine if it sleeps.
    pub fn ring(&self) {
        self.rung.fetch_add(1, Ordering::SeqCst);
        if self.sleeping.load(Ordering::SeqCst) {
            let one: u64 = 1;
            // SAFETY: writes 8 bytes from a live u64; an eventfd at its maximum (EAGAIN) is awake anyway.
            unsafe { libc::write(self.eventfd.as_raw_fd(), (&one as *const u64).cast(), 8) };
        }
    }

    /// Whether it rang since the last call (engine).
    pub fn answer(&self) -> bool {
        self.rung.swap(0, Ordering::AcqRel) > 0
    }

    /// The engine is about to block on the eventfd: false if a ring came meanwhile (then it must not block).
    pub fn sleep(&self) -> bool {
        self.sleeping.store(true, Ordering::SeqCst);
        if self.rung.load(Ordering::SeqCst) > 0 {
            self.sleeping.store(false, Ordering::SeqCst);
            return false;
        }
        true
    }

    /// The engine's blocking wait has ended.
    pub fn awake(&self) {
        self.sleeping.store(false, Ordering::SeqCst);
    }

    /// The descriptor the engine's io_uring polls while it sleeps.
    pub fn eventfd(&self) -> RawFd {
        self.eventfd.as_raw_fd()
    }

    /// Reset the eventfd after its poll fired (engine).
    pub fn reset(&self) {
        let mut count = 0u64;
        // SAFETY: reads 8 bytes into a live u64 from a nonblocking eventfd (resets it; EAGAIN when zero).
        unsafe { libc::read(self.eventfd.as_raw_fd(), (&mut count as *mut u64).cast(), 8) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn eventfd_count(bell: &Doorbell) -> u64 {
        let mut count = 0u64;
        // SAFETY: as in reset().
        let n = unsafe { libc::read(bell.eventfd(), (&mut count as *mut u64).cast(), 8) };
        if n == 8 {
            count
        } else {
            0
        }
    }

    #[test]
    fn an_awake_engine_is_told_without_the_eventfd() {
        let bell = Doorbell::new().unwrap();
        assert!(!bell.answer());
        bell.ring();
        bell.ring();
        assert_eq!(eventfd_count(&bell), 0, "no system call while the engine is awake");
        assert!(bell.answer());
        assert!(!bell.answer(), "answered once");
    }

    #[test]
    fn a_sleeping_engine_is_woken_through_the_eventfd() {
        let bell = Doorbell::new().unwrap();
        assert!(bell.sleep());
        bell.ring();
        assert_eq!(eventfd_count(&bell), 1);
        bell.awake();
        assert!(bell.answer());
        bell.ring();
        assert!(!bell.sleep(), "a ring before sleeping keeps the engine awake");
        assert_eq!(eventfd_count(&bell), 0);
    }

    #[test]
    fn no_ring_is_lost_between_threads() {
        // The engine's side as the device does it: answer, else announce sleep and block on the eventfd. A wait
        // that times out while a ring is counted is a lost wake-up.
        let bell = Arc::new(Doorbell::new().unwrap());
        let ringer = {
            let bell = bell.clone();
            std::thread::spawn(move || {
                for i in 0..20_000u32 {
                    bell.ring();
                    if i % 1000 == 0 {
                        std::thread::sleep(std::time::Duration::from_micros(200));
                    // lets the engine sleep
                    } else if i % 64 == 0 {
                        std::thread::yield_now();
                    }
                }
            })
        };
        let (mut sleeps, mut answers) = (0u32, 0u32);
        loop {
            if bell.answer() {
                answers += 1;
                continue;
            }
            if ringer.is_finished() && !bell.answer() {
                break;
            }
            if bell.sleep() {
                sleeps += 1;
                let mut pfd = libc::pollfd { fd: bell.eventfd(), events: libc::POLLIN, revents: 0 };
                // SAFETY: one live pollfd.
                let n = unsafe { libc::poll(&mut pfd, 1, 1_000) };
                assert!(n == 1 || bell.rung.load(Ordering::SeqCst) == 0, "slept through a ring");
                bell.awake();
                bell.reset();
            }
        }
        ringer.join().unwrap();
        assert!(answers > 0 && sleeps > 0, "both paths taken: {answers} answers, {sleeps} sleeps");
    }
}
