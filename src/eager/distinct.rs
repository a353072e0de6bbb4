//! Counts distinct cache keys per op in bounded memory: exact up to `EXACT_LIMIT` keys, then a
//! HyperLogLog sketch (1,024 registers, ~3% standard error). Bounded, so that watching a leaking
//! op does not itself leak. `CompactDistinctCounter` is the same sketch after a denser exact phase
//! (a vector, not a hash set), for the values of each attr (many per op), with heap bytes known
//! exactly.

use crate::hash::FastBuild;
use std::collections::HashSet;

const EXACT_LIMIT: usize = 256;
const P: u32 = 10;
const M: usize = 1 << P;

#[derive(Debug, Clone)]
pub enum DistinctCounter {
    Exact(HashSet<u64, FastBuild>),
    Sketch(Box<[u8; M]>),
}

impl Default for DistinctCounter {
    fn default() -> Self {
        DistinctCounter::Exact(HashSet::with_hasher(FastBuild))
    }
}

/// Spreads fingerprint bits (foldhash output is already well mixed; this guards other hashers).
fn mix(x: u64) -> u64 {
    let x = (x ^ (x >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    let x = (x ^ (x >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// Adds `fp` to a sketch of `2^p` registers (`regs.len()`).
fn sketch_add(regs: &mut [u8], fp: u64) {
    let p = regs.len().trailing_zeros();
    let h = mix(fp);
    let idx = (h >> (64 - p)) as usize;
    let rest = (h << p) | (1 << (p - 1));
    let rank = rest.leading_zeros() as u8 + 1;
    if regs[idx] < rank {
        regs[idx] = rank;
    }
}

/// The HyperLogLog estimate of a sketch (linear counting while registers are still empty).
fn sketch_count(regs: &[u8]) -> u64 {
    let m = regs.len() as f64;
    let alpha = 0.7213 / (1.0 + 1.079 / m);
    let sum: f64 = regs.iter().map(|&r| 2f64.powi(-(r as i32))).sum();
    let raw = alpha * m * m / sum;
    let zeros = regs.iter().filter(|&&r| r == 0).count();
    let est = if raw <= 2.5 * m && zeros > 0 {
        m * (m / zeros as f64).ln()
    } else {
        raw
    };
    est.round() as u64
}

impl DistinctCounter {
    pub fn insert(&mut self, fp: u64) {
        match self {
            DistinctCounter::Exact(set) => {
                // `contains` first: hashbrown's insert reserves room before it looks, so inserting a
                // key already present into a full table would grow it (heap creeping on cache hits).
                if set.contains(&fp) {
                    return;
                }
                set.insert(fp);
                if set.len() > EXACT_LIMIT {
                    let mut regs = Box::new([0u8; M]);
                    for &k in set.iter() {
                        sketch_add(&mut regs[..], k);
                    }
                    *self = DistinctCounter::Sketch(regs);
                }
            }
            DistinctCounter::Sketch(regs) => sketch_add(&mut regs[..], fp),
        }
    }

    pub fn is_exact(&self) -> bool {
        matches!(self, DistinctCounter::Exact(_))
    }

    pub fn count(&self) -> u64 {
        match self {
            DistinctCounter::Exact(set) => set.len() as u64,
            DistinctCounter::Sketch(regs) => sketch_count(&regs[..]),
        }
    }
}

/// Values kept exactly before `CompactDistinctCounter` switches to its sketch: as many bytes as
/// the sketch.
const COMPACT_EXACT_LIMIT: usize = M / std::mem::size_of::<u64>();

/// A distinct counter of at most `CompactDistinctCounter::MAX_HEAP_BYTES` heap bytes: up to 128
/// values in a vector (a linear scan: it runs on cache misses only), then the 1,024 registers.
#[derive(Debug, Clone)]
pub enum CompactDistinctCounter {
    Exact(Vec<u64>),
    Sketch(Box<[u8; M]>),
}

impl Default for CompactDistinctCounter {
    fn default() -> Self {
        CompactDistinctCounter::Exact(Vec::new())
    }
}

impl CompactDistinctCounter {
    /// The most heap either form holds: the vector grows by doubling up to exactly 128 values.
    pub const MAX_HEAP_BYTES: usize = M;

    pub fn insert(&mut self, fp: u64) {
        match self {
            CompactDistinctCounter::Exact(values) => {
                if values.contains(&fp) {
                    return;
                }
                if values.len() < COMPACT_EXACT_LIMIT {
                    values.push(fp);
                    return;
                }
                let mut regs = Box::new([0u8; M]);
                for &v in values.iter().chain([&fp]) {
                    sketch_add(&mut regs[..], v);
                }
                *self = CompactDistinctCounter::Sketch(regs);
            }
            CompactDistinctCounter::Sketch(regs) => sketch_add(&mut regs[..], fp),
        }
    }

    pub fn is_exact(&self) -> bool {
        matches!(self, CompactDistinctCounter::Exact(_))
    }

    pub fn count(&self) -> u64 {
        match self {
            CompactDistinctCounter::Exact(values) => values.len() as u64,
            CompactDistinctCounter::Sketch(regs) => sketch_count(&regs[..]),
        }
    }

    /// Heap bytes held, exactly (what the allocator handed out).
    pub fn heap_bytes(&self) -> usize {
        match self {
            CompactDistinctCounter::Exact(values) => values.capacity() * std::mem::size_of::<u64>(),
            CompactDistinctCounter::Sketch(_) => M,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_then_estimates_within_a_few_percent() {
        let mut c = DistinctCounter::default();
        for i in 0..200u64 {
            c.insert(i);
            c.insert(i); // repeats never count twice
        }
        assert_eq!(c.count(), 200);
        assert!(c.is_exact());
        for i in 200..20_000u64 {
            c.insert(i);
        }
        assert!(!c.is_exact());
        let n = c.count() as f64;
        assert!((n - 20_000.0).abs() / 20_000.0 < 0.08, "estimate {n}");
    }

    #[test]
    fn compact_counter_is_exact_to_128_then_estimates_within_its_heap_bound() {
        let mut c = CompactDistinctCounter::default();
        for i in 0..128u64 {
            c.insert(i * 7919);
            c.insert(i * 7919);
            assert!(c.heap_bytes() <= CompactDistinctCounter::MAX_HEAP_BYTES);
        }
        assert!(c.is_exact());
        assert_eq!(c.count(), 128);
        for i in 128..50_000u64 {
            c.insert(i * 7919);
        }
        assert!(!c.is_exact());
        assert_eq!(c.heap_bytes(), CompactDistinctCounter::MAX_HEAP_BYTES);
        let n = c.count() as f64;
        assert!((n - 50_000.0).abs() / 50_000.0 < 0.1, "estimate {n}");
    }

    /// Why the cache clamps: just past the exact range, the sketch can overestimate what it saw.
    #[test]
    fn the_sketch_alone_can_count_more_than_it_saw() {
        let mut c = DistinctCounter::default();
        let mut over = false;
        for i in 0..5_000u64 {
            c.insert(i);
            over |= c.count() > i + 1;
        }
        assert!(
            over,
            "no overestimate in 5,000 keys: the clamp test would prove nothing"
        );
    }
}
