//! Time and size units. iosched keeps time in integer nanoseconds and positions in bytes; these are the only
//! conversions, used where values enter or leave (command lines, files, reports).

pub const NS_PER_US: u64 = 1_000;
pub const NS_PER_MS: u64 = 1_000_000;
pub const NS_PER_S: u64 = 1_000_000_000;
pub const SECTOR_BYTES: u64 = 512;
pub const MIB: u64 = 1024 * 1024;
pub const GIB: u64 = 1024 * 1024 * 1024;

/// Nanoseconds as fractional milliseconds, for display.
pub fn ns_to_ms(ns: u64) -> f64 {
    ns as f64 / NS_PER_MS as f64
}

/// Nanoseconds as fractional seconds, for display and rates.
pub fn ns_to_s(ns: u64) -> f64 {
    ns as f64 / NS_PER_S as f64
}

/// Rate of `bytes` over `duration_ns`, in bytes per second (0 for an empty duration).
pub fn bytes_per_s(bytes: u64, duration_ns: u64) -> f64 {
    if duration_ns == 0 {
        0.0
    } else {
        bytes as f64 * NS_PER_S as f64 / duration_ns as f64
    }
}

/// Time to move `bytes` at `rate_bytes_per_s`, rounded up to whole nanoseconds.
pub fn transfer_ns(bytes: u64, rate_bytes_per_s: u64) -> u64 {
    if rate_bytes_per_s == 0 {
        return 0;
    }
    // In 64 bits while bytes x 10^9 fits (any transfer under 18 GB): a 128-bit division is a library call, and
    // the device models ask this several times per request.
    match bytes.checked_mul(NS_PER_S) {
        Some(num) => num.div_ceil(rate_bytes_per_s),
        None => (bytes as u128 * NS_PER_S as u128).div_ceil(rate_bytes_per_s as u128) as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfer_time_rounds_up() {
        assert_eq!(transfer_ns(1_000_000, 1_000_000_000), 1_000_000);
        assert_eq!(transfer_ns(1, 3), 333_333_334);
        assert_eq!(transfer_ns(5, 0), 0);
        // Past 64 bits of bytes x 10^9: the same rounding, in 128.
        assert_eq!(transfer_ns(40_000_000_000, 3), 13_333_333_333_333_333_334);
    }

    #[test]
    fn rate_of_bytes() {
        assert_eq!(bytes_per_s(1_000, NS_PER_S), 1_000.0);
        assert_eq!(bytes_per_s(1_000, 0), 0.0);
    }
}
