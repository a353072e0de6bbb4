//! TF's kernel cache key: op name, device, and every attr (input dtypes enter as type attrs),
//! combined order-independently. Shapes and values of inputs are not part of it.
//!
//! The 64-bit fingerprint picks the bucket; equality compares the full key, so two keys that collide
//! on the fingerprint are still told apart (the collision story a 64-bit hash needs).
//!
//! A cache hit needs no owned key: `KeyProbe` borrows the attrs as resolved on the caller's stack,
//! and the cache looks it up through `dyn KeyLike` (the owned `CacheKey` borrows as the same trait
//! object, with the same hash and the same full-key equality).

use crate::hash::fast_hash;
use crate::ops::{AttrValue, NodeAttrs, OpDef};
use std::borrow::Borrow;
use std::hash::{Hash, Hasher};

pub const CPU_DEVICE: &str = "/job:localhost/replica:0/task:0/device:CPU:0";

#[derive(Debug, Clone)]
pub struct CacheKey {
    fingerprint: u64,
    device: &'static str,
    attrs: NodeAttrs,
}

/// The fingerprint of (op, device, attrs): attr `i` of `def` is `value(i)`.
///
/// Unordered combination, as TF's AttrBuilder does: the sum of per-attr fingerprints does not depend
/// on the order attrs were set in. Names hash once, at registration (`OpDef::name_hash`,
/// `AttrDef::name_hash`).
pub fn fingerprint<'a>(def: &OpDef, device: &str, value: impl Fn(usize) -> &'a AttrValue) -> u64 {
    let mut attr_sum: u64 = 0;
    for (i, a) in def.attrs.iter().enumerate() {
        attr_sum = attr_sum.wrapping_add(fast_hash((a.name_hash, value(i))));
    }
    fast_hash((def.name_hash, device_hash(device), attr_sum))
}

/// `fast_hash(device)`, computed once for the CPU device (the only one; 41 bytes per call otherwise).
fn device_hash(device: &str) -> u64 {
    static CPU: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    if device == CPU_DEVICE {
        *CPU.get_or_init(|| fast_hash(CPU_DEVICE))
    } else {
        fast_hash(device)
    }
}

impl CacheKey {
    pub fn new(device: &'static str, attrs: NodeAttrs) -> CacheKey {
        let fp = fingerprint(attrs.def, device, |i| attrs.value(i));
        CacheKey {
            fingerprint: fp,
            device,
            attrs,
        }
    }

    /// An owned key from a probe's resolved slots (a cache miss): the slots are emptied.
    pub(crate) fn from_probe(probe: KeyProbe<'_>) -> CacheKey {
        CacheKey {
            fingerprint: probe.fingerprint,
            device: probe.device,
            attrs: NodeAttrs::from_slots(probe.def, probe.slots),
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

/// A cache key borrowed from resolved attr slots (every slot `Some`, in canonical order).
pub struct KeyProbe<'a> {
    pub(crate) fingerprint: u64,
    pub(crate) device: &'static str,
    pub(crate) def: &'static OpDef,
    pub(crate) slots: &'a mut [Option<AttrValue>],
}

impl<'a> KeyProbe<'a> {
    pub fn new(
        device: &'static str,
        def: &'static OpDef,
        slots: &'a mut [Option<AttrValue>],
    ) -> KeyProbe<'a> {
        let fingerprint = fingerprint(def, device, |i| slot(slots, i));
        KeyProbe {
            fingerprint,
            device,
            def,
            slots,
        }
    }

    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    pub fn def(&self) -> &'static OpDef {
        self.def
    }
}

fn slot(slots: &[Option<AttrValue>], i: usize) -> &AttrValue {
    slots[i].as_ref().expect("resolve_into fills every slot")
}

/// What the cache's map compares: an owned `CacheKey` or a borrowed `KeyProbe`.
pub(crate) trait KeyLike {
    fn fingerprint(&self) -> u64;
    fn device(&self) -> &'static str;
    fn def(&self) -> &'static OpDef;
    fn value(&self, i: usize) -> &AttrValue;
}

impl KeyLike for CacheKey {
    fn fingerprint(&self) -> u64 {
        self.fingerprint
    }
    fn device(&self) -> &'static str {
        self.device
    }
    fn def(&self) -> &'static OpDef {
        self.attrs.def
    }
    fn value(&self, i: usize) -> &AttrValue {
        self.attrs.value(i)
    }
}

impl KeyLike for KeyProbe<'_> {
    fn fingerprint(&self) -> u64 {
        self.fingerprint
    }
    fn device(&self) -> &'static str {
        self.device
    }
    fn def(&self) -> &'static OpDef {
        self.def
    }
    fn value(&self, i: usize) -> &AttrValue {
        slot(self.slots, i)
    }
}

/// Full-key equality: fingerprint first (cheap reject), then device, op and every attr.
impl PartialEq for dyn KeyLike + '_ {
    fn eq(&self, other: &Self) -> bool {
        let def = self.def();
        let (d, e) = (self.device(), other.device());
        // Devices are `'static` names, in practice always `CPU_DEVICE` itself: comparing the
        // pointers first skips a 41-byte memcmp call on every cache hit.
        self.fingerprint() == other.fingerprint()
            && (std::ptr::eq(d, e) || d == e)
            && std::ptr::eq(def, other.def())
            && (0..def.attrs.len()).all(|i| self.value(i) == other.value(i))
    }
}

impl Eq for dyn KeyLike + '_ {}

impl Hash for dyn KeyLike + '_ {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.fingerprint());
    }
}

impl<'a> Borrow<dyn KeyLike + 'a> for CacheKey {
    fn borrow(&self) -> &(dyn KeyLike + 'a) {
        self
    }
}

impl PartialEq for CacheKey {
    fn eq(&self, other: &Self) -> bool {
        (self as &dyn KeyLike) == (other as &dyn KeyLike)
    }
}

impl Eq for CacheKey {}

impl Hash for CacheKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.fingerprint);
    }
}
