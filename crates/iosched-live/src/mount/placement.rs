//! Where a mount's files lie in the one address space policies and device models see.
//!
//! A policy sorts and measures seeks by offset, and an emulated disk needs a position for every byte, but a
//! mount serves many files. Each file (by device and inode) gets a region of its own the first time it is
//! opened: its size then, rounded up to 1 MiB, plus [`HEADROOM_BYTES`] to grow into, one after another in the
//! order files are first opened; a request's offset is its region's start plus its offset in the file. This is
//! an approximation of a file system's layout (files opened together lie together, a file is contiguous); the
//! real placement (FIEMAP) is not used. A file that outgrows its region runs into the next one's, and the space
//! wraps at the device's capacity.

use std::collections::HashMap;

const MIB: u64 = 1 << 20;

/// Room left after each file for it to grow.
pub const HEADROOM_BYTES: u64 = 64 * MIB;

pub struct Placement {
    capacity_bytes: u64,
    next_bytes: u64,
    /// (device, inode) -> region start.
    regions: HashMap<(u64, u64), u64>,
}

impl Placement {
    pub fn new(capacity_bytes: u64) -> Placement {
        Placement { capacity_bytes: capacity_bytes.max(MIB), next_bytes: 0, regions: HashMap::new() }
    }

    /// The start of the region of file (`dev`, `ino`), given one if it has none (sized for `size_bytes`).
    pub fn region(&mut self, dev: u64, ino: u64, size_bytes: u64) -> u64 {
        if let Some(start) = self.regions.get(&(dev, ino)) {
            return *start;
        }
        let start = self.next_bytes;
        let room = size_bytes.next_multiple_of(MIB).saturating_add(HEADROOM_BYTES);
        self.next_bytes = (self.next_bytes + room % self.capacity_bytes) % self.capacity_bytes;
        self.regions.insert((dev, ino), start);
        start
    }

    /// The offset policies and models see for `len_bytes` at `offset_bytes` of the file whose region starts at
    /// `region_bytes`: within the capacity, wrapping, and never running past its end.
    pub fn offset(&self, region_bytes: u64, offset_bytes: u64, len_bytes: u64) -> u64 {
        let at = region_bytes.wrapping_add(offset_bytes) % self.capacity_bytes;
        at.min(self.capacity_bytes.saturating_sub(len_bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_get_their_own_regions_in_order_and_keep_them() {
        let mut p = Placement::new(1 << 40);
        let a = p.region(1, 10, 5 * MIB + 1);
        let b = p.region(1, 11, 0);
        assert_eq!(a, 0);
        assert_eq!(b, 6 * MIB + HEADROOM_BYTES);
        assert_eq!(p.region(1, 10, 999 * MIB), a);
        assert_eq!(p.offset(b, 4096, 4096), b + 4096);
    }

    #[test]
    fn offsets_stay_within_the_capacity() {
        let mut p = Placement::new(100 * MIB);
        let a = p.region(1, 1, 0);
        let b = p.region(1, 2, 0);
        assert_eq!(b, 64 * MIB);
        assert_eq!(p.region(1, 3, 0), 28 * MIB); // wrapped
        assert!(p.offset(b, 90 * MIB, 4096) < 100 * MIB);
        assert_eq!(p.offset(a, 100 * MIB - 10, 4096), 100 * MIB - 4096);
    }
}
