//! Ctrl-C and SIGTERM for the commands that run until stopped (`iosched run`, a mount's daemon): the first signal
//! sets [`STOP`], which the engine or daemon reads to stop cleanly; a second one exits at once.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the first SIGINT or SIGTERM.
pub static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_stop_signal(_: libc::c_int) {
    // A second signal means "now": leave without the report.
    if STOP.swap(true, Ordering::Relaxed) {
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(130) };
    }
}

/// Route Ctrl-C and SIGTERM to [`STOP`]. Without SA_RESTART, so that a wait in io_uring_enter returns at once.
pub fn catch_interrupts() {
    // SAFETY: the handler only touches an atomic and calls _exit; the action struct is fully initialised.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_stop_signal as extern "C" fn(libc::c_int) as usize;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
    }
}
