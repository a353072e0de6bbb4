//! Which attrs of an op vary across the cache keys it sees: per attr, a small distinct counter of its
//! values and up to two example values. Fed on cache misses and bypasses only (a hit's key was
//! observed by the miss that cached it), and bounded: at most `max_heap_bytes(attrs)` per op, so
//! watching a leak does not leak.

use super::cache_key::KeyLike;
use super::distinct::CompactDistinctCounter;
use crate::hash::fast_hash;
use crate::ops::{AttrType, AttrValue, OpDef};
use crate::tensor::{Data, Tensor};

/// Longest example kept, in bytes of UTF-8 (longer ones keep their start and end around a "…":
/// resource names share long prefixes and differ at the end).
const EXAMPLE_BYTES: usize = 40;
/// Bytes kept from the start of a long example.
const EXAMPLE_HEAD: usize = 12;
/// Tensor elements an example shows.
const EXAMPLE_ELEMENTS: usize = 4;

/// An attr value rendered for people and truncated, stored inline: examples cost no heap.
#[derive(Clone, Copy)]
struct Example {
    len: u8,
    bytes: [u8; EXAMPLE_BYTES],
}

impl Example {
    fn new(v: &AttrValue) -> Example {
        let text = render(v);
        let mut bytes = [0u8; EXAMPLE_BYTES];
        let mut len = 0;
        let mut put = |s: &str| {
            bytes[len..len + s.len()].copy_from_slice(s.as_bytes());
            len += s.len();
        };
        if text.len() <= EXAMPLE_BYTES {
            put(&text);
        } else {
            let mut head = EXAMPLE_HEAD;
            while !text.is_char_boundary(head) {
                head -= 1;
            }
            let mut tail = text.len() - (EXAMPLE_BYTES - head - '…'.len_utf8());
            while !text.is_char_boundary(tail) {
                tail += 1;
            }
            put(&text[..head]);
            put("…");
            put(&text[tail..]);
        }
        Example {
            len: len as u8,
            bytes,
        }
    }

    fn as_str(&self) -> &str {
        // Built from whole `str` pieces cut at char boundaries: always UTF-8.
        std::str::from_utf8(&self.bytes[..self.len as usize]).unwrap_or("")
    }
}

/// `describe`, except tensors show their first values (a `Const` value is told apart by them).
fn render(v: &AttrValue) -> String {
    match v {
        AttrValue::Tensor(t) => render_tensor(t),
        other => other.describe(),
    }
}

fn render_tensor(t: &Tensor) -> String {
    let mut s = t.dtype().to_string();
    s.push(' ');
    s += &t.shape().to_string();
    s += " [";
    let mut shown = 0;
    while shown < EXAMPLE_ELEMENTS {
        let value = match t.data() {
            Data::F32(v) => v.get(shown).map(f32::to_string),
            Data::I32(v) => v.get(shown).map(i32::to_string),
            Data::I64(v) => v.get(shown).map(i64::to_string),
            Data::Bool(v) => v.get(shown).map(bool::to_string),
            Data::U8(v) => v.get(shown).map(u8::to_string),
            Data::C64(v) => v.get(shown).map(|c| format!("{}{:+}i", c.re, c.im)),
            Data::Str(v) => v
                .get(shown)
                .map(|b| format!("{:?}", String::from_utf8_lossy(b))),
            Data::Resource(_) => None,
        };
        let Some(value) = value else { break };
        if shown > 0 {
            s += ", ";
        }
        s += &value;
        shown += 1;
    }
    if t.num_elements() > shown {
        s += if shown > 0 { ", …" } else { "…" };
    }
    s.push(']');
    s
}

struct AttrTrack {
    values: CompactDistinctCounter,
    /// Hash of `examples[0]`: the first different value is noticed without rendering anything.
    first: u64,
    examples: [Example; 2],
    num_examples: u8,
}

/// What `stats` reports for one attr.
#[derive(Debug, Clone, PartialEq)]
pub struct AttrStats {
    pub name: &'static str,
    pub ty: AttrType,
    /// Distinct values seen: exact up to 128, then an estimate (never above the op's distinct keys).
    pub distinct_values: u64,
    pub distinct_exact: bool,
    /// The first value seen and the first that differed from it, truncated.
    pub examples: Vec<String>,
    /// Takes a new value on almost every call (see `varies_per_call`).
    pub varies_per_call: bool,
}

/// An attr takes a new value on almost every call: at least 16 values, in 3 of 4 calls or more
/// (the estimate's error is ~3%, far inside that margin).
pub fn varies_per_call(distinct_values: u64, calls: u64) -> bool {
    distinct_values >= 16 && distinct_values * 4 >= calls * 3
}

/// Per-op tracking of attr values.
pub struct AttrVariation {
    def: &'static OpDef,
    /// One per attr of `def`, in its order; empty until the first observation.
    attrs: Vec<AttrTrack>,
}

impl AttrVariation {
    pub fn new(def: &'static OpDef) -> AttrVariation {
        AttrVariation {
            def,
            attrs: Vec::new(),
        }
    }

    /// The most heap tracking an op with `num_attrs` attrs ever holds.
    pub const fn max_heap_bytes(num_attrs: usize) -> usize {
        num_attrs * (std::mem::size_of::<AttrTrack>() + CompactDistinctCounter::MAX_HEAP_BYTES)
    }

    /// Heap held now, exactly (what the allocator handed out).
    pub fn heap_bytes(&self) -> usize {
        self.attrs.capacity() * std::mem::size_of::<AttrTrack>()
            + self
                .attrs
                .iter()
                .map(|a| a.values.heap_bytes())
                .sum::<usize>()
    }

    /// Records the attr values of one key (a miss or a bypass). Out of line: the hit path that
    /// shares `find` with it stays as small as before.
    #[inline(never)]
    pub(crate) fn observe(&mut self, key: &dyn KeyLike) {
        let def = self.def;
        if self.attrs.len() != def.attrs.len() {
            let mut attrs = Vec::with_capacity(def.attrs.len());
            for (i, a) in def.attrs.iter().enumerate() {
                let v = key.value(i);
                attrs.push(AttrTrack {
                    values: CompactDistinctCounter::default(),
                    first: fast_hash((a.name_hash, v)),
                    examples: [Example::new(v); 2],
                    num_examples: 1,
                });
            }
            self.attrs = attrs;
        }
        for (i, (a, track)) in def.attrs.iter().zip(self.attrs.iter_mut()).enumerate() {
            let v = key.value(i);
            // The same per-attr hash the key's fingerprint sums.
            let h = fast_hash((a.name_hash, v));
            track.values.insert(h);
            if track.num_examples < 2 && h != track.first {
                track.examples[1] = Example::new(v);
                track.num_examples = 2;
            }
        }
    }

    /// Per attr in the op's order; counts clamped to `max_distinct` (the op's distinct keys: an
    /// attr cannot take more values than there are keys); `calls`: the op's lookups. Empty before
    /// the first observation.
    pub fn stats(&self, max_distinct: u64, calls: u64) -> Vec<AttrStats> {
        self.def
            .attrs
            .iter()
            .zip(&self.attrs)
            .map(|(a, t)| {
                let distinct_values = t.values.count().min(max_distinct);
                AttrStats {
                    name: a.name,
                    ty: a.ty,
                    distinct_values,
                    distinct_exact: t.values.is_exact(),
                    examples: t.examples[..t.num_examples as usize]
                        .iter()
                        .map(|e| e.as_str().to_string())
                        .collect(),
                    varies_per_call: varies_per_call(distinct_values, calls),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_examples_keep_start_and_end_cut_at_char_boundaries() {
        let long = AttrValue::Str("é".repeat(40).into_bytes());
        let e = Example::new(&long);
        assert!(e.as_str().len() <= EXAMPLE_BYTES);
        assert!(e.as_str().starts_with("\"éé"), "{}", e.as_str());
        assert!(e.as_str().ends_with("éé\"") && e.as_str().contains('…'));
        let name = AttrValue::Str(b"StatefulPartitionedCall/model/dense/kernel_12".to_vec());
        assert_eq!(
            Example::new(&name).as_str(),
            "\"StatefulPar…ll/model/dense/kernel_12\""
        );
        assert_eq!(Example::new(&AttrValue::Int(7)).as_str(), "7");
    }

    /// `heap_bytes` is what the allocator handed out, at every size the tracking goes through.
    #[test]
    fn heap_bytes_match_the_allocator_exactly_and_stay_bounded() {
        use crate::eager::cache_key::{CacheKey, CPU_DEVICE};
        use crate::memory::heap_bytes;
        let def = crate::registry::lookup("VarHandleOp").unwrap();
        let keys: Vec<CacheKey> = (0..2_000)
            .map(|i| {
                let attrs = crate::ops::resolve_attrs(
                    def,
                    &[],
                    [
                        ("dtype", AttrValue::Type(crate::tensor::DType::Float32)),
                        ("shape", AttrValue::Shape(Some(vec![i % 7]))),
                        ("shared_name", AttrValue::Str(format!("v_{i}").into_bytes())),
                    ],
                )
                .unwrap();
                CacheKey::new(CPU_DEVICE, attrs)
            })
            .collect();
        let base = heap_bytes();
        let mut v = AttrVariation::new(def);
        assert_eq!(v.heap_bytes(), 0);
        for k in &keys {
            v.observe(k);
            assert_eq!(heap_bytes() - base, v.heap_bytes());
            assert!(v.heap_bytes() <= AttrVariation::max_heap_bytes(def.attrs.len()));
        }
        let stats = v.stats(u64::MAX, 2_000);
        let names: Vec<&str> = stats
            .iter()
            .filter(|a| a.varies_per_call)
            .map(|a| a.name)
            .collect();
        assert_eq!(names, ["shared_name"]);
        let shape = stats.iter().find(|a| a.name == "shape").unwrap();
        assert_eq!((shape.distinct_values, shape.distinct_exact), (7, true));
        assert_eq!(shape.examples, ["shape [0]", "shape [1]"]);
        drop((names, stats, v));
        assert_eq!(heap_bytes(), base);
    }

    #[test]
    fn tensor_examples_show_their_first_values() {
        let t = Tensor::from_slice(&[5], &[1.5f32, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert_eq!(
            render(&AttrValue::Tensor(t)),
            "float32 [5] [1.5, 2, 3, 4, …]"
        );
    }
}
