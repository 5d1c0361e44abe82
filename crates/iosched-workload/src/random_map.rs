//! fio's random map (lib/axmap.c, io_u.c in fio 3.33): which blocks of a file random I/O has used in this pass,
//! so that each block is used once per pass. A block drawn that is already used gives way to the next free one
//! after it, wrapping to the file's start (axmap_next_free); an I/O marks its blocks up to the first one already
//! used and is cut there (mark_random_map). When every block is used the pass is over and the map starts again
//! (fio starts a new pass per loop, or, time-based, when the map is full).
//!
//! fio keeps one bit per block in a multi-level bitmap of the whole file; here the bits are kept in chunks of
//! 512 blocks allocated when first touched (an index of 4 bytes per chunk, zeroed lazily by the allocator), so
//! that random I/O over a large region costs memory and time in proportion to what it touches, with a count
//! per chunk so that full chunks are skipped when searching.

/// Blocks per chunk (64 bytes of bitmap).
const CHUNK_BITS: u64 = 512;
const WORDS: usize = (CHUNK_BITS / 64) as usize;

#[derive(Clone, Debug)]
pub struct RandomMap {
    blocks: u64,
    /// Per chunk: 0 untouched (all free), else 1 + its place in `chunks`.
    index: Vec<u32>,
    /// Touched chunks: their bits and how many are set.
    chunks: Vec<([u64; WORDS], u32)>,
    used: u64,
}

impl RandomMap {
    /// A map of `blocks` blocks, all free.
    pub fn new(blocks: u64) -> RandomMap {
        let chunks = blocks.div_ceil(CHUNK_BITS) as usize;
        RandomMap { blocks, index: vec![0; chunks], chunks: Vec::new(), used: 0 }
    }

    fn chunk(&self, c: usize) -> Option<&([u64; WORDS], u32)> {
        match self.index[c] {
            0 => None,
            i => Some(&self.chunks[i as usize - 1]),
        }
    }

    pub fn is_used(&self, block: u64) -> bool {
        let (c, w, b) = Self::place(block);
        self.chunk(c).is_some_and(|ch| ch.0[w] & (1 << b) != 0)
    }

    fn place(block: u64) -> (usize, usize, u32) {
        ((block / CHUNK_BITS) as usize, ((block % CHUNK_BITS) / 64) as usize, (block % 64) as u32)
    }

    /// `block` if free, else the next free block after it (wrapping); None when every block is used.
    pub fn free_from(&self, block: u64) -> Option<u64> {
        if self.used >= self.blocks {
            return None;
        }
        if !self.is_used(block) {
            return Some(block);
        }
        let first = (block + 1) % self.blocks;
        self.first_free_in(first, self.blocks).or_else(|| self.first_free_in(0, first))
    }

    /// The first free block in `[from, to)`.
    fn first_free_in(&self, from: u64, to: u64) -> Option<u64> {
        let mut at = from;
        while at < to {
            let (c, w, b) = Self::place(at);
            let chunk_end = ((c as u64 + 1) * CHUNK_BITS).min(to);
            match self.chunk(c) {
                None => return Some(at),
                Some(ch) if ch.1 as u64 == CHUNK_BITS => {}
                Some(ch) => {
                    let mut word = w;
                    let mut free = !ch.0[word] & (u64::MAX << b);
                    loop {
                        if free != 0 {
                            let found = c as u64 * CHUNK_BITS + word as u64 * 64 + free.trailing_zeros() as u64;
                            return (found < chunk_end).then_some(found);
                        }
                        word += 1;
                        if word == WORDS || (c as u64 * CHUNK_BITS + word as u64 * 64) >= chunk_end {
                            break;
                        }
                        free = !ch.0[word];
                    }
                }
            }
            at = chunk_end;
        }
        None
    }

    /// Mark up to `count` blocks from `block` used, stopping at the first one already used or at the map's end;
    /// returns how many were marked (0 when `block` itself is used).
    pub fn mark(&mut self, block: u64, count: u64) -> u64 {
        let mut marked = 0;
        while marked < count && block + marked < self.blocks {
            let (c, w, b) = Self::place(block + marked);
            if self.index[c] == 0 {
                self.chunks.push(([0; WORDS], 0));
                self.index[c] = self.chunks.len() as u32;
            }
            let chunk = &mut self.chunks[self.index[c] as usize - 1];
            if chunk.0[w] & (1 << b) != 0 {
                break;
            }
            chunk.0[w] |= 1 << b;
            chunk.1 += 1;
            marked += 1;
        }
        self.used += marked;
        marked
    }

    /// A new pass: every block free again.
    pub fn clear(&mut self) {
        self.index.fill(0);
        self.chunks.clear();
        self.used = 0;
    }

    pub fn is_full(&self) -> bool {
        self.used >= self.blocks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_used_block_gives_way_to_the_next_free_one_wrapping_to_the_start() {
        let mut m = RandomMap::new(10);
        assert_eq!(m.free_from(3), Some(3));
        assert_eq!(m.mark(3, 2), 2);
        assert_eq!(m.free_from(3), Some(5));
        assert_eq!(m.mark(8, 5), 2, "stops at the map's end");
        assert_eq!(m.free_from(9), Some(0), "wraps");
        assert_eq!(m.mark(2, 3), 1, "stops at block 3, already used");
        assert!(m.mark(2, 1) == 0);
        for b in [0, 1, 5, 6, 7] {
            m.mark(b, 1);
        }
        assert!(m.is_full());
        assert_eq!(m.free_from(4), None);
        m.clear();
        assert_eq!(m.free_from(4), Some(4));
    }

    #[test]
    fn search_crosses_full_and_untouched_chunks() {
        let blocks = 3 * CHUNK_BITS + 5;
        let mut m = RandomMap::new(blocks);
        assert_eq!(m.mark(0, CHUNK_BITS), CHUNK_BITS);
        assert_eq!(m.free_from(17), Some(CHUNK_BITS), "the first chunk is full; the second is untouched");
        m.mark(CHUNK_BITS, 2 * CHUNK_BITS + 5);
        assert!(m.is_full());
        let mut m = RandomMap::new(blocks);
        m.mark(3 * CHUNK_BITS, 5);
        assert_eq!(m.free_from(blocks - 1), Some(0), "from the last block, on to the first");
        m.mark(0, 3 * CHUNK_BITS - 1);
        assert_eq!(m.free_from(blocks - 2), Some(3 * CHUNK_BITS - 1));
    }
}
