//! Counts distinct cache keys per op in bounded memory: exact up to `EXACT_LIMIT` keys, then a
//! HyperLogLog sketch (1,024 registers, ~3% standard error). Bounded, so that watching a leaking
//! op does not itself leak.

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

fn sketch_add(regs: &mut [u8; M], fp: u64) {
    let h = mix(fp);
    let idx = (h >> (64 - P)) as usize;
    let rest = (h << P) | (1 << (P - 1));
    let rank = rest.leading_zeros() as u8 + 1;
    if regs[idx] < rank {
        regs[idx] = rank;
    }
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
                        sketch_add(&mut regs, k);
                    }
                    *self = DistinctCounter::Sketch(regs);
                }
            }
            DistinctCounter::Sketch(regs) => sketch_add(regs, fp),
        }
    }

    pub fn is_exact(&self) -> bool {
        matches!(self, DistinctCounter::Exact(_))
    }

    pub fn count(&self) -> u64 {
        match self {
            DistinctCounter::Exact(set) => set.len() as u64,
            DistinctCounter::Sketch(regs) => {
                let m = M as f64;
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
}
