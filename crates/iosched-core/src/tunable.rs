//! Tunables: named, typed, validated settings of a policy (or device), each with a default and a one-line
//! description, listed by `iosched policies` and set with `--set name=value`.

use serde::Serialize;
use thiserror::Error;

/// What values a tunable takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TunableKind {
    Bool,
    /// An integer in `min..=max`; `unit` names what it counts ("ms", "requests", "KiB").
    Int {
        min: i64,
        max: i64,
        unit: &'static str,
    },
    /// One of a fixed list of words.
    Choice {
        choices: &'static [&'static str],
    },
}

/// A tunable's name, type, default and description.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TunableSpec {
    pub name: &'static str,
    #[serde(flatten)]
    pub kind: TunableKind,
    pub default: &'static str,
    pub description: &'static str,
}

#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TunableError {
    #[error("unknown tunable '{name}' for policy {policy}{hint} (it has: {known})")]
    Unknown { policy: String, name: String, known: String, hint: String },
    #[error("invalid value '{value}' for {name}: expected {expected}")]
    Invalid { name: String, value: String, expected: String },
}

impl TunableSpec {
    /// Parse `value` for an integer tunable, checking its range.
    pub fn parse_int(&self, value: &str) -> Result<i64, TunableError> {
        let TunableKind::Int { min, max, unit } = self.kind else {
            return Err(self.invalid(value, "a value of another kind"));
        };
        let expected = || format!("an integer from {min} to {max} ({unit})");
        let parsed: i64 = value.trim().parse().map_err(|_| self.invalid(value, &expected()))?;
        if parsed < min || parsed > max {
            return Err(self.invalid(value, &expected()));
        }
        Ok(parsed)
    }

    /// Parse `value` for a boolean tunable: 0/1, true/false, on/off, yes/no.
    pub fn parse_bool(&self, value: &str) -> Result<bool, TunableError> {
        if self.kind != TunableKind::Bool {
            return Err(self.invalid(value, "a value of another kind"));
        }
        match value.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "on" | "yes" => Ok(true),
            "0" | "false" | "off" | "no" => Ok(false),
            _ => Err(self.invalid(value, "0 or 1")),
        }
    }

    /// Parse `value` for a choice tunable, returning the index of the choice.
    pub fn parse_choice(&self, value: &str) -> Result<usize, TunableError> {
        let TunableKind::Choice { choices } = self.kind else {
            return Err(self.invalid(value, "a value of another kind"));
        };
        let wanted = value.trim();
        choices
            .iter()
            .position(|c| *c == wanted)
            .ok_or_else(|| self.invalid(value, &format!("one of {}", choices.join(", "))))
    }

    fn invalid(&self, value: &str, expected: &str) -> TunableError {
        TunableError::Invalid { name: self.name.to_string(), value: value.to_string(), expected: expected.to_string() }
    }
}

/// Find `name` in `specs`, or the error that lists what exists.
pub fn find<'a>(policy: &str, specs: &'a [TunableSpec], name: &str) -> Result<&'a TunableSpec, TunableError> {
    specs.iter().find(|s| s.name == name).ok_or_else(|| unknown(policy, specs, name))
}

/// The error for a name that is not among `specs`.
pub fn unknown(policy: &str, specs: &[TunableSpec], name: &str) -> TunableError {
    TunableError::Unknown {
        policy: policy.to_string(),
        name: name.to_string(),
        hint: crate::suggest::did_you_mean(name, specs.iter().map(|s| s.name)),
        known: if specs.is_empty() {
            "no tunables".to_string()
        } else {
            specs.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEPTH: TunableSpec = TunableSpec {
        name: "depth",
        kind: TunableKind::Int { min: 1, max: 64, unit: "requests" },
        default: "8",
        description: "test",
    };

    #[test]
    fn ints_are_range_checked() {
        assert_eq!(DEPTH.parse_int("64"), Ok(64));
        let err = DEPTH.parse_int("65").unwrap_err().to_string();
        assert!(err.contains("from 1 to 64"), "{err}");
        assert!(DEPTH.parse_int("x").is_err());
        assert!(DEPTH.parse_bool("1").is_err());
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let err = find("noop", &[DEPTH], "dept").unwrap_err().to_string();
        assert!(err.contains("'dept'") && err.contains("depth"), "{err}");
    }
}
