//! Where user input came from, and the error every reader of user files gives: the file, the line (none said
//! for the file as a whole) and what was expected. Job files, traces and drive files all report through this.

use std::fmt;
use std::path::Path;

/// A file and a line in it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Location {
    pub file: String,
    pub line: usize,
}

impl Location {
    pub fn new(file: impl Into<String>, line: usize) -> Location {
        Location { file: file.into(), line }
    }

    /// The whole of `path` (line 0).
    pub fn file(path: &Path) -> Location {
        Location { file: path.display().to_string(), line: 0 }
    }
}

impl fmt::Display for Location {
    /// `FILE:LINE`, or `FILE` alone for the file as a whole (a line 0 would send an editor nowhere).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => write!(f, "{}", self.file),
            line => write!(f, "{}:{line}", self.file),
        }
    }
}

/// A problem in a user's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    pub location: Location,
    pub message: String,
}

impl InputError {
    pub fn new(location: Location, message: impl Into<String>) -> InputError {
        InputError { location, message: message.into() }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

impl std::error::Error for InputError {}

/// The text of `path`, which must be UTF-8; `what` names the kind of file in errors ("job file", "trace").
pub fn read_text(path: &Path, what: &str) -> Result<String, InputError> {
    let bytes =
        std::fs::read(path).map_err(|e| InputError::new(Location::file(path), format!("cannot read {what}: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        InputError::new(
            Location::file(path),
            format!("{what} is not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_file_and_line() {
        let e = InputError::new(Location::new("a.fio", 3), "expected a size");
        assert_eq!(e.to_string(), "a.fio:3: expected a size");
        let missing = read_text(Path::new("/nonexistent/x"), "trace").unwrap_err().to_string();
        assert!(missing.starts_with("/nonexistent/x: cannot read trace: "), "{missing}");
        let dir = iosched_test_data::scratch("input").join("not-utf8");
        std::fs::write(&dir, [b'a', 0xff, b'b']).unwrap();
        let bad = read_text(&dir, "job file").unwrap_err().to_string();
        assert!(bad.ends_with("job file is not UTF-8 text (byte 1)"), "{bad}");
    }
}
