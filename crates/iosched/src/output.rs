//! Where commands print their results: standard output, or, inside [`capture`], a string. The Python package
//! runs the same commands in-process and takes what they would have printed, so its results are byte for byte
//! the command line's. Messages on standard error (warnings, progress) are not captured.

use std::cell::RefCell;
use std::fmt::{self, Write as _};

thread_local! {
    /// The capture of this thread's command, if one is being captured.
    static CAPTURED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Print `args` to the command's output: the capture if there is one, else standard output.
pub fn write(args: fmt::Arguments<'_>) {
    let printed = CAPTURED.with(|c| match c.borrow_mut().as_mut() {
        Some(buffer) => {
            let _ = buffer.write_fmt(args);
            true
        }
        None => false,
    });
    if !printed {
        print!("{args}");
    }
}

/// Run `f` with this thread's command output going into a string, and return both. Captures nest: an inner one
/// takes its own output and the outer one continues after it.
pub fn capture<T>(f: impl FnOnce() -> T) -> (T, String) {
    let outer = CAPTURED.with(|c| c.borrow_mut().replace(String::new()));
    let value = f();
    let text = CAPTURED.with(|c| std::mem::replace(&mut *c.borrow_mut(), outer)).unwrap_or_default();
    (value, text)
}

/// `print!` to the command's output (see [`write`]).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::output::write(format_args!($($arg)*)) };
}

/// `println!` to the command's output (see [`write`]).
#[macro_export]
macro_rules! outln {
    () => { $crate::output::write(format_args!("\n")) };
    ($($arg:tt)*) => {{
        $crate::output::write(format_args!($($arg)*));
        $crate::output::write(format_args!("\n"));
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_takes_what_would_be_printed_and_nests() {
        let ((), text) = capture(|| {
            out!("a{}", 1);
            let ((), inner) = capture(|| outln!("inner"));
            assert_eq!(inner, "inner\n");
            outln!();
            outln!("b");
        });
        assert_eq!(text, "a1\nb\n");
    }
}
