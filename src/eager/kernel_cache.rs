//! The kernel cache: LRU over `CacheKey`s (the `lru` crate), bounded by entries and/or bytes, with an
//! exclusion set, exact statistics and a churn warning for ops whose keys never repeat.

use super::attr_variation::AttrVariation;
use super::cache_key::{CacheKey, KeyLike, KeyProbe};
use super::churn::{churn_warning, ChurnWarning};
use super::distinct::DistinctCounter;
use super::op_stats::OpCacheStats;
use crate::hash::FastBuild;
use crate::memory::heap_bytes;
use crate::ops::Kernel;
use crate::ops::OpDef;
use crate::status::Result;
use lru::LruCache;
use std::collections::HashSet;
use std::rc::Rc;

/// Cache policy; every field can be changed at run time.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheOptions {
    /// `None`: unbounded.
    pub max_entries: Option<usize>,
    /// `None`: unbounded.
    pub max_bytes: Option<usize>,
    /// Op names never cached (their kernels are made, run and dropped). The crate's fixed hasher:
    /// std's default (SipHash) was linked into the wasm for this set alone.
    pub exclude: HashSet<String, FastBuild>,
}

impl Default for CacheOptions {
    /// Unbounded, excluding only ops whose key is unique by nature.
    fn default() -> Self {
        CacheOptions {
            max_entries: None,
            max_bytes: None,
            exclude: default_exclusions(),
        }
    }
}

/// Ops flagged as having inherently unique keys (TF excludes the analogous tf.data ops).
pub fn default_exclusions() -> HashSet<String, FastBuild> {
    let reg = crate::registry::registry();
    reg.names()
        .into_iter()
        .filter(|n| reg.get(n).is_some_and(|d| d.flags.unique_key))
        .map(str::to_string)
        .collect()
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct CacheStats {
    pub entries: usize,
    pub bytes: usize,
    pub hits: u64,
    pub misses: u64,
    pub evictions: u64,
    pub bypassed: u64,
    /// Sorted by op name.
    pub by_op: Vec<(String, OpCacheStats)>,
    pub warnings: Vec<ChurnWarning>,
    /// Heap of the per-attr tracking of every op (bounded by `AttrVariation::max_heap_bytes`).
    pub attr_bytes: usize,
}

struct Entry {
    kernel: Rc<dyn Kernel>,
    bytes: usize,
}

struct OpState {
    op: &'static str,
    stats: OpCacheStats,
    distinct: DistinctCounter,
    variation: AttrVariation,
    excluded: bool,
}

enum Found {
    Hit(Rc<dyn Kernel>),
    Miss(usize),
    Bypass,
}

/// A kernel for one call only (excluded op).
fn bypass(key: &CacheKey) -> Result<Rc<dyn Kernel>> {
    Ok(Rc::from(key.attrs().def.factory.instantiate(key.attrs())?))
}

/// No state yet for this op id.
const UNSEEN: u32 = u32::MAX;

pub struct KernelCache {
    lru: LruCache<CacheKey, Entry>,
    options: CacheOptions,
    bytes: usize,
    hits: u64,
    misses: u64,
    evictions: u64,
    bypassed: u64,
    /// Per-op figures of the ops seen so far, in first-seen order; `per_op_index[OpDef::id]` is the
    /// position there (or `UNSEEN`): a vector index on the hit path, no map lookup.
    per_op: Vec<OpState>,
    per_op_index: Vec<u32>,
}

/// Bookkeeping the LRU keeps per entry beyond key and value: list links and a map slot.
const ENTRY_OVERHEAD: usize = std::mem::size_of::<CacheKey>()
    + std::mem::size_of::<Entry>()
    + 4 * std::mem::size_of::<usize>();

impl KernelCache {
    pub fn new(options: CacheOptions) -> KernelCache {
        KernelCache {
            lru: LruCache::unbounded(),
            options,
            bytes: 0,
            hits: 0,
            misses: 0,
            evictions: 0,
            bypassed: 0,
            per_op: Vec::new(),
            per_op_index: Vec::new(),
        }
    }

    /// The state of `def`, made on first sight.
    fn op_state(&mut self, def: &'static OpDef) -> &mut OpState {
        let id = def.id as usize;
        if id >= self.per_op_index.len() {
            let bound = crate::registry::registry().id_bound().max(id + 1);
            self.per_op_index.resize(bound, UNSEEN);
        }
        let mut at = self.per_op_index[id];
        if at == UNSEEN {
            at = self.per_op.len() as u32;
            self.per_op_index[id] = at;
            self.per_op.push(OpState {
                op: def.name,
                stats: OpCacheStats::default(),
                distinct: DistinctCounter::default(),
                variation: AttrVariation::new(def),
                excluded: self.options.exclude.contains(def.name),
            });
        }
        &mut self.per_op[at as usize]
    }

    fn op_state_by_name(&mut self, op: &str) -> Option<&mut OpState> {
        self.per_op.iter_mut().find(|s| s.op == op)
    }

    pub fn options(&self) -> &CacheOptions {
        &self.options
    }

    /// Applies new options at once: newly excluded ops leave the cache, bounds evict down.
    pub fn set_options(&mut self, options: CacheOptions) {
        self.options = options;
        for st in self.per_op.iter_mut() {
            st.excluded = self.options.exclude.contains(st.op);
        }
        let excluded: Vec<CacheKey> = self
            .lru
            .iter()
            .filter(|(k, _)| self.options.exclude.contains(k.op()))
            .map(|(k, _)| k.clone())
            .collect();
        for k in excluded {
            if let Some(e) = self.lru.pop(&k) {
                self.account_removal(k.op(), e.bytes, true);
            }
        }
        self.enforce_bounds();
    }

    /// The kernel for `key`: from the cache (hit), made and cached (miss), or made for this call
    /// only (bypass, for excluded ops).
    pub fn get_or_instantiate(&mut self, key: CacheKey) -> Result<Rc<dyn Kernel>> {
        match self.find(key.attrs().def, key.fingerprint(), &key) {
            Found::Hit(k) => Ok(k),
            Found::Bypass => bypass(&key),
            Found::Miss(at) => self.insert(at, key),
        }
    }

    /// `get_or_instantiate` for a key borrowed from resolved attr slots: a hit allocates nothing; a
    /// miss or a bypass moves the slots' values into an owned key.
    pub fn get_or_instantiate_probe(&mut self, probe: KeyProbe<'_>) -> Result<Rc<dyn Kernel>> {
        match self.find(probe.def(), probe.fingerprint(), &probe) {
            Found::Hit(k) => Ok(k),
            Found::Bypass => bypass(&CacheKey::from_probe(probe)),
            Found::Miss(at) => self.insert(at, CacheKey::from_probe(probe)),
        }
    }

    /// `get_or_instantiate` for a key the caller keeps (a graph node's, resolved once): a hit
    /// copies nothing; a miss caches a copy.
    pub fn get_or_instantiate_ref(&mut self, key: &CacheKey) -> Result<Rc<dyn Kernel>> {
        match self.find(key.attrs().def, key.fingerprint(), key) {
            Found::Hit(k) => Ok(k),
            Found::Bypass => bypass(key),
            Found::Miss(at) => self.insert(at, key.clone()),
        }
    }

    /// Counts the lookup; the kernel on a hit.
    fn find(&mut self, def: &'static OpDef, fp: u64, key: &dyn KeyLike) -> Found {
        let st = self.op_state(def);
        if st.excluded {
            st.distinct.insert(fp);
            st.variation.observe(key);
            st.stats.bypassed += 1;
            self.bypassed += 1;
            return Found::Bypass;
        }
        let at = self.per_op_index[def.id as usize] as usize;
        if let Some(e) = self.lru.get(key) {
            // A hit's key was counted as distinct by the miss that cached it (statistics are only
            // zeroed together with the entries), so the hit path skips the counter.
            let kernel = e.kernel.clone();
            self.hits += 1;
            self.per_op[at].stats.hits += 1;
            return Found::Hit(kernel);
        }
        self.per_op[at].distinct.insert(fp);
        self.per_op[at].variation.observe(key);
        self.per_op[at].stats.misses += 1;
        self.misses += 1;
        Found::Miss(at)
    }

    /// A miss: instantiates the kernel for `key` and caches it (`at`: the op's state).
    fn insert(&mut self, at: usize, key: CacheKey) -> Result<Rc<dyn Kernel>> {
        // The kernel's own heap, measured by the counting allocator: exact, not a guess.
        let before = heap_bytes();
        let kernel: Rc<dyn Kernel> = Rc::from(key.attrs().def.factory.instantiate(key.attrs())?);
        let bytes = heap_bytes().saturating_sub(before) + key.heap_bytes() + ENTRY_OVERHEAD;
        let st = &mut self.per_op[at];
        st.stats.entries += 1;
        st.stats.bytes += bytes;
        self.bytes += bytes;
        self.lru.put(
            key,
            Entry {
                kernel: kernel.clone(),
                bytes,
            },
        );
        self.enforce_bounds();
        Ok(kernel)
    }

    fn over_bounds(&self) -> bool {
        self.options.max_entries.is_some_and(|m| self.lru.len() > m)
            || self.options.max_bytes.is_some_and(|m| self.bytes > m)
    }

    fn enforce_bounds(&mut self) {
        while self.over_bounds() {
            match self.lru.pop_lru() {
                Some((k, e)) => self.account_removal(k.op(), e.bytes, true),
                None => break,
            }
        }
    }

    fn account_removal(&mut self, op: &'static str, bytes: usize, eviction: bool) {
        self.bytes -= bytes;
        if let Some(st) = self.op_state_by_name(op) {
            st.stats.entries -= 1;
            st.stats.bytes -= bytes;
            if eviction {
                st.stats.evictions += 1;
            }
        }
        if eviction {
            self.evictions += 1;
        }
    }

    /// Drops every entry; counters (hits, misses, ...) are kept, entries and bytes go to zero.
    pub fn clear(&mut self) {
        self.lru.clear();
        // A fresh map releases the table's capacity too.
        self.lru = LruCache::unbounded();
        self.bytes = 0;
        for st in self.per_op.iter_mut() {
            st.stats.entries = 0;
            st.stats.bytes = 0;
        }
    }

    /// Clears entries and every statistic.
    pub fn reset(&mut self) {
        self.clear();
        self.per_op = Vec::new();
        self.per_op_index = Vec::new();
        self.hits = 0;
        self.misses = 0;
        self.evictions = 0;
        self.bypassed = 0;
    }

    pub fn len(&self) -> usize {
        self.lru.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lru.is_empty()
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// (hits, misses, bypassed) so far: what `stats` totals, without building the per-op report.
    pub fn lookups(&self) -> (u64, u64, u64) {
        (self.hits, self.misses, self.bypassed)
    }

    pub fn stats(&self) -> CacheStats {
        let mut by_op: Vec<(String, OpCacheStats)> = self
            .per_op
            .iter()
            .map(|st| {
                let mut s = st.stats.clone();
                // Only misses and bypasses bring keys in: an estimate above them is sketch error.
                s.distinct_keys = st.distinct.count().min(s.misses + s.bypassed);
                s.distinct_exact = st.distinct.is_exact();
                s.attrs = st
                    .variation
                    .stats(s.distinct_keys, s.hits + s.misses + s.bypassed);
                s.attr_bytes = st.variation.heap_bytes();
                (st.op.to_string(), s)
            })
            .collect();
        crate::ops::sort_small(&mut by_op, |a, b| a.0 < b.0);
        let excluded = |op: &str| self.per_op.iter().any(|s| s.op == op && s.excluded);
        let warnings = by_op
            .iter()
            .filter(|(op, _)| !excluded(op))
            .filter_map(|(op, s)| churn_warning(op, s))
            .collect();
        CacheStats {
            entries: self.lru.len(),
            bytes: self.bytes,
            hits: self.hits,
            misses: self.misses,
            evictions: self.evictions,
            bypassed: self.bypassed,
            attr_bytes: by_op.iter().map(|(_, s)| s.attr_bytes).sum(),
            by_op,
            warnings,
        }
    }
}
