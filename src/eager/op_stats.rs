//! The figures the kernel cache keeps per op: what `KernelCache::stats` reports for each and what
//! the churn warning is read from.

use super::attr_variation::AttrStats;

/// Per-op figures.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OpCacheStats {
    pub entries: usize,
    pub bytes: usize,
    pub hits: u64,
    pub misses: u64,
    pub bypassed: u64,
    pub evictions: u64,
    /// Distinct keys seen (exact up to 256, then a HyperLogLog estimate, never above the lookups
    /// that brought keys in: misses and bypasses).
    pub distinct_keys: u64,
    pub distinct_exact: bool,
    /// Per attr in the op's order: how many values it took across the keys seen, with examples.
    pub attrs: Vec<AttrStats>,
    /// Heap of that per-attr tracking (not part of `bytes`: eviction cannot free it).
    pub attr_bytes: usize,
}
