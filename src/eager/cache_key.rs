//! TF's kernel cache key: op name, device, and every attr (input dtypes enter as type attrs),
//! combined order-independently. Shapes and values of inputs are not part of it.
//!
//! The 64-bit fingerprint picks the bucket; equality compares the full key, so two keys that collide
//! on the fingerprint are still told apart (the collision story a 64-bit hash needs).

use crate::ops::NodeAttrs;
use std::hash::{DefaultHasher, Hash, Hasher};

pub const CPU_DEVICE: &str = "/job:localhost/replica:0/task:0/device:CPU:0";

#[derive(Debug, Clone)]
pub struct CacheKey {
    fingerprint: u64,
    device: &'static str,
    attrs: NodeAttrs,
}

fn hash_one(v: impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    v.hash(&mut h);
    h.finish()
}

impl CacheKey {
    pub fn new(device: &'static str, attrs: NodeAttrs) -> CacheKey {
        let mut fp = hash_one((attrs.op(), device));
        // Unordered combination, as TF's AttrBuilder does: the sum of per-attr fingerprints does not
        // depend on the order attrs were set in.
        let mut attr_sum: u64 = 0;
        for (name, value) in attrs.iter() {
            attr_sum = attr_sum.wrapping_add(hash_one((name, value)));
        }
        fp = hash_one((fp, attr_sum));
        CacheKey {
            fingerprint: fp,
            device,
            attrs,
        }
    }

    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    pub fn op(&self) -> &'static str {
        self.attrs.op()
    }

    pub fn attrs(&self) -> &NodeAttrs {
        &self.attrs
    }

    pub fn heap_bytes(&self) -> usize {
        self.attrs.heap_bytes()
    }
}

impl PartialEq for CacheKey {
    fn eq(&self, other: &Self) -> bool {
        self.fingerprint == other.fingerprint
            && self.device == other.device
            && self.attrs == other.attrs
    }
}

impl Eq for CacheKey {}

impl Hash for CacheKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.fingerprint);
    }
}
