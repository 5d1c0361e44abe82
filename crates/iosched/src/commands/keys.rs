//! Single keys from a terminal without waiting for Enter, for `top`'s `q`. While a [`Keys`] lives, the terminal
//! on standard input has canonical mode and echo off and reads return at once; dropping it puts the terminal back
//! as it was (also when `top` ends on Ctrl-C, which only sets a flag). Not a terminal: no keys, nothing changed.

pub struct Keys {
    saved: Option<libc::termios>,
}

impl Keys {
    pub fn new() -> Keys {
        // SAFETY: isatty, tcgetattr and tcsetattr on descriptor 0 with a termios we own.
        unsafe {
            if libc::isatty(0) != 1 {
                return Keys { saved: None };
            }
            let mut saved: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(0, &mut saved) != 0 {
                return Keys { saved: None };
            }
            let mut raw = saved;
            raw.c_lflag &= !(libc::ICANON | libc::ECHO);
            raw.c_cc[libc::VMIN] = 0;
            raw.c_cc[libc::VTIME] = 0;
            if libc::tcsetattr(0, libc::TCSANOW, &raw) != 0 {
                return Keys { saved: None };
            }
            Keys { saved: Some(saved) }
        }
    }

    /// Whether `q` (or `Q`) was typed since the last look.
    pub fn quit_pressed(&self) -> bool {
        if self.saved.is_none() {
            return false;
        }
        let mut buf = [0u8; 32];
        // SAFETY: reading into a buffer we own; with VMIN = VTIME = 0 the read returns at once.
        let n = unsafe { libc::read(0, buf.as_mut_ptr().cast(), buf.len()) };
        n > 0 && buf[..n as usize].iter().any(|&b| b == b'q' || b == b'Q')
    }
}

impl Drop for Keys {
    fn drop(&mut self) {
        if let Some(saved) = &self.saved {
            // SAFETY: restoring the settings read in new().
            unsafe {
                libc::tcsetattr(0, libc::TCSANOW, saved);
            }
        }
    }
}
