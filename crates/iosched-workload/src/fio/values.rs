//! fio's value syntax: sizes with k/m/g/t/p suffixes (base 1024, fio's default kb_base), percentages, times
//! with ns/us/ms/s/m/h/d suffixes, integers and booleans.

use iosched_core::units::NS_PER_US;

/// A size in bytes: `4096`, `4k`, `4K`, `4KiB`, `1.5g`. Errors say what was expected.
pub fn parse_size(value: &str) -> Result<u64, String> {
    let v = value.trim();
    let split = v.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(v.len());
    let (number, suffix) = v.split_at(split);
    let multiplier: u64 = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        "p" | "pb" | "pib" => 1 << 50,
        _ => return Err(format!("a size such as 4096, 4k, 128KiB or 10G, found '{value}'")),
    };
    let bytes = if number.contains('.') {
        let n: f64 = number.parse().map_err(|_| format!("a size, found '{value}'"))?;
        n * multiplier as f64
    } else {
        let n: u64 = number.parse().map_err(|_| format!("a size, found '{value}'"))?;
        return n.checked_mul(multiplier).ok_or_else(|| format!("a size below 2^64 bytes, found '{value}'"));
    };
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(format!("a size below 2^64 bytes, found '{value}'"));
    }
    Ok(bytes.round() as u64)
}

/// A percentage `N%` with 1 <= N <= 100, if the value is one.
pub fn parse_percent(value: &str) -> Option<Result<u32, String>> {
    let number = value.trim().strip_suffix('%')?;
    Some(match number.trim().parse::<u32>() {
        Ok(p) if (1..=100).contains(&p) => Ok(p),
        _ => Err(format!("a percentage from 1% to 100%, found '{value}'")),
    })
}

/// The unit a bare number means for a time option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    Microseconds,
    Seconds,
}

/// A time in nanoseconds. A bare number is in `default_unit`; suffixes ns, us, ms, s, m (minutes), h, d.
pub fn parse_time_ns(value: &str, default_unit: TimeUnit) -> Result<u64, String> {
    let v = value.trim();
    let split = v.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(v.len());
    let (number, suffix) = v.split_at(split);
    let ns_per_unit: f64 = match suffix.to_ascii_lowercase().as_str() {
        "" => match default_unit {
            TimeUnit::Microseconds => NS_PER_US as f64,
            TimeUnit::Seconds => 1e9,
        },
        "ns" => 1.0,
        "us" | "usec" => 1e3,
        "ms" | "msec" => 1e6,
        "s" | "sec" => 1e9,
        "m" | "min" => 60e9,
        "h" => 3600e9,
        "d" => 86400e9,
        _ => return Err(format!("a time such as 900, 10ms, 500us or 2m, found '{value}'")),
    };
    let n: f64 = number.parse().map_err(|_| format!("a time, found '{value}'"))?;
    let ns = n * ns_per_unit;
    if !ns.is_finite() || ns >= 1e19 {
        return Err(format!("a time below 300 years, found '{value}'"));
    }
    Ok(ns.round() as u64)
}

/// An integer in `min..=max`.
pub fn parse_int(value: &str, min: u64, max: u64) -> Result<u64, String> {
    match value.trim().parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("an integer from {min} to {max}, found '{value}'")),
    }
}

/// A boolean: 1/0, true/false, yes/no, on/off.
pub fn parse_bool(value: &str) -> Result<bool, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(format!("0 or 1, found '{value}'")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("4K"), Ok(4096));
        assert_eq!(parse_size("128KiB"), Ok(131072));
        assert_eq!(parse_size("10G"), Ok(10 << 30));
        assert_eq!(parse_size("1.5m"), Ok(1572864));
        assert!(parse_size("4x").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("99999999999p").is_err());
    }

    #[test]
    fn times() {
        assert_eq!(parse_time_ns("900", TimeUnit::Seconds), Ok(900_000_000_000));
        assert_eq!(parse_time_ns("10", TimeUnit::Microseconds), Ok(10_000));
        assert_eq!(parse_time_ns("10ms", TimeUnit::Seconds), Ok(10_000_000));
        assert_eq!(parse_time_ns("2m", TimeUnit::Seconds), Ok(120_000_000_000));
        assert!(parse_time_ns("5 parsecs", TimeUnit::Seconds).is_err());
    }

    #[test]
    fn percents() {
        assert_eq!(parse_percent("50%"), Some(Ok(50)));
        assert!(parse_percent("0%").unwrap().is_err());
        assert_eq!(parse_percent("50"), None);
    }
}
