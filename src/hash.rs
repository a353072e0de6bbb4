//! The fixed, fast hasher every layer shares (a leaf: it imports nothing of the crate).

use std::hash::{BuildHasher, Hash};

/// The fixed, fast hasher of the dispatch path (foldhash, already in the tree through `lru`'s
/// hashbrown): cache key fingerprints, per-op figures and op lookup by name. Fixed seed, so a
/// fingerprint is the same on every run; not DoS-resistant, which nothing here needs (keys come from
/// the page itself, and the cache compares full keys on a fingerprint match).
pub type FastState = foldhash::fast::FixedState;

pub const FAST_SEED: u64 = 0x243f_6a88_85a3_08d3;

pub fn fast_state() -> FastState {
    foldhash::fast::FixedState::with_seed(FAST_SEED)
}

pub fn fast_hash(v: impl Hash) -> u64 {
    fast_state().hash_one(v)
}

/// A `BuildHasher` for maps keyed by the dispatch path (`Default`, so maps can be built with `new`-like
/// constructors).
#[derive(Clone, Copy, Default)]
pub struct FastBuild;

impl BuildHasher for FastBuild {
    type Hasher = <FastState as BuildHasher>::Hasher;
    fn build_hasher(&self) -> Self::Hasher {
        fast_state().build_hasher()
    }
}
