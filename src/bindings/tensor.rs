//! Tensors as JS sees them: a table of slots, each holding `Option<Tensor>` (None once disposed) and
//! the id of the context that made it. JS holds a *handle* (slot index + generation, packed in one
//! f64), so a disposed or recycled slot is detected instead of dereferenced, and handles cross the
//! boundary as plain numbers through one shared scratch buffer (`io`): no wasm-bindgen object, no
//! allocation and no string per tensor on the execute path.
//!
//! Also here: `tidy` scopes (which handles were made inside, released at scope end unless kept),
//! typed-array copies in (one memcpy after the shape is validated) and out (one memcpy).

use super::cell::EpochCell;
use super::errors::{describe, js, JsResult};
use crate::handles::{is_handle, Full, Handles, MAX_SLOTS};
use crate::status::{failed_precondition, invalid_argument, resource_exhausted, Result, Status};
use crate::tensor::{decode_strings, encode_strings, try_alloc, DType, Data, Shape, Tensor, C64};
use js_sys::{BigInt64Array, Float32Array, Int32Array, Uint8Array, Uint8ClampedArray};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Live tensors by handle (see `crate::handles`: a stale handle never names a later tensor), with
/// the id of the context that made each.
pub(crate) struct Table {
    handles: Handles<(u32, Tensor)>,
    /// Handles made while a tidy scope is open; `scope_starts` marks where each open scope begins.
    tracked: Vec<f64>,
    scope_starts: Vec<usize>,
}

thread_local! {
    static TABLE: EpochCell<Table> = const {
        EpochCell::new(Table {
            handles: Handles::new(),
            tracked: Vec::new(),
            scope_starts: Vec::new(),
        })
    };
    /// Scratch for handles and dims in both directions. JS views it as a Float64Array.
    static IO: EpochCell<Vec<f64>> = EpochCell::new(vec![0.0; IO_KEEP]);
}

/// The scratch buffer's usual size (f64s); a call that needed more gives the rest back afterwards.
const IO_KEEP: usize = 256;

fn disposed() -> Status {
    failed_precondition("tensor has been disposed (by dispose(), tidy() or its context)")
}

impl Table {
    pub(crate) fn insert(&mut self, ctx: u32, t: Tensor) -> Result<f64> {
        let full = |e| {
            resource_exhausted(match e {
                Full::Slots => format!("more than {MAX_SLOTS} live tensors; dispose some"),
                Full::Generations => "every tensor handle has been used; reload the page".into(),
                Full::Memory => "out of memory for the tensor table; dispose some tensors".into(),
            })
        };
        if !self.scope_starts.is_empty() {
            self.tracked
                .try_reserve(1)
                .map_err(|_| full(Full::Memory))?;
        }
        let h = self.handles.insert((ctx, t)).map_err(full)?;
        if !self.scope_starts.is_empty() {
            self.tracked.push(h);
        }
        Ok(h)
    }

    fn entry(&self, h: f64) -> Result<&(u32, Tensor)> {
        match self.handles.get(h) {
            Some(e) => Ok(e),
            None if !is_handle(h) => Err(invalid_argument(
                "not a tensor of eager-wasm (invalid tensor handle)",
            )),
            None => Err(disposed()),
        }
    }

    /// The tensor behind `h`, checked to belong to context `ctx`.
    pub(crate) fn get(&self, h: f64, ctx: u32) -> Result<&Tensor> {
        let (owner, t) = self.entry(h)?;
        if *owner != ctx {
            return Err(invalid_argument(format!(
                "tensor belongs to another EagerContext (#{owner}), not this one (#{ctx}); copy it \
                 with ctx.tensor(t.dataSync(), t.shape)"
            )));
        }
        Ok(t)
    }

    pub(crate) fn any(&self, h: f64) -> Result<&Tensor> {
        Ok(&self.entry(h)?.1)
    }

    /// Releases `h`; false if it was already released (idempotent, stale-safe).
    pub(crate) fn release(&mut self, h: f64) -> bool {
        self.handles.remove(h).is_some()
    }

    /// Releases every tensor of context `ctx`; returns how many.
    pub(crate) fn release_context(&mut self, ctx: u32) -> usize {
        // In place: disposing must work when memory is full.
        let n = self.handles.remove_where(|(owner, _)| *owner == ctx);
        self.compact();
        n
    }

    /// With no tensor live and no scope open, the table gives its memory back (each time the last
    /// tensor goes; past half the generation space `Handles` keeps its slots instead).
    pub(crate) fn compact(&mut self) {
        if self.handles.live() == 0 && self.scope_starts.is_empty() {
            self.handles.compact();
            self.tracked = Vec::new();
        }
    }

    /// Closes every scope from the `depth`-th (0-based) on, releasing the handles made in them
    /// except `keep` (which pass to the enclosing scope, if any). Returns how many were released.
    fn close_scopes(&mut self, depth: usize, keep: &[f64]) -> u32 {
        let Some(&start) = self.scope_starts.get(depth) else {
            return 0;
        };
        self.scope_starts.truncate(depth);
        // In place (kept handles move down to `start`, now the enclosing scope's): closing a tidy
        // must work when memory is full.
        let mut released = 0;
        let mut kept = start;
        for k in start..self.tracked.len() {
            let h = self.tracked[k];
            if keep.contains(&h) {
                self.tracked[kept] = h;
                kept += 1;
            } else if self.handles.remove(h).is_some() {
                released += 1;
            }
        }
        self.tracked.truncate(kept);
        if self.scope_starts.is_empty() {
            self.tracked = Vec::new();
            self.scope_starts = Vec::new();
        }
        released
    }
}

pub(crate) fn with_table<R>(f: impl FnOnce(&mut Table) -> R) -> R {
    TABLE.with(|t| f(&mut t.borrow_mut()))
}

pub(crate) fn with_io<R>(f: impl FnOnce(&mut Vec<f64>) -> R) -> R {
    IO.with(|io| f(&mut io.borrow_mut()))
}

/// Address of the scratch buffer, grown to at least `min_len` f64s, or (`shrink`: JS is about to
/// write, not read) shrunk back to its usual size when a larger call left it bigger. JS re-reads it (and rebuilds its
/// Float64Array view) whenever the view is detached by memory growth, too short or oversized.
#[wasm_bindgen(js_name = ioReserve)]
pub fn io_reserve(min_len: u32, shrink: bool) -> JsResult<u32> {
    with_io(|io| {
        let min_len = min_len as usize;
        if io.len() < min_len {
            // Fallible: a huge input list must not abort the instance on a failed allocation.
            io.try_reserve_exact(min_len - io.len()).map_err(|_| {
                js(resource_exhausted(format!(
                    "cannot reserve room for {min_len} tensor handles"
                )))
            })?;
            io.resize(min_len, 0.0);
        } else if shrink && io.len() > IO_KEEP && min_len <= IO_KEEP {
            *io = vec![0.0; IO_KEEP];
        }
        Ok(io.as_ptr() as usize as u32)
    })
}

#[wasm_bindgen(js_name = ioLength)]
pub fn io_length() -> u32 {
    with_io(|io| io.len() as u32)
}

pub(crate) fn dtype_code(d: DType) -> u32 {
    match d {
        DType::Float32 => 0,
        DType::Int32 => 1,
        DType::Int64 => 2,
        DType::Bool => 3,
        DType::Resource => 4,
        DType::UInt8 => 5,
        DType::Complex64 => 6,
        DType::String => 7,
    }
}

/// dtype code in io[0], dims in io[1..=rank]; returns the rank.
#[wasm_bindgen(js_name = tensorInfo)]
pub fn tensor_info(h: f64) -> JsResult<u32> {
    with_table(|t| {
        let t = t.any(h).map_err(js)?;
        let dims = t.dims();
        with_io(|io| {
            if io.len() < dims.len() + 1 {
                io.resize(dims.len() + 1, 0.0);
            }
            io[0] = f64::from(dtype_code(t.dtype()));
            for (d, &v) in io[1..].iter_mut().zip(dims) {
                *d = v as f64;
            }
        });
        Ok(dims.len() as u32)
    })
}

const STRINGS_HAVE_NO_TYPED_ARRAY: &str =
    "readInto: a string tensor has no typed array; read it with dataSync() or bytesSync()";

const RESOURCE_HAS_NO_DATA: &str =
    "a resource tensor (variable handle) has no readable data; read it with ReadVariableOp";

/// Copies the tensor's elements into the start of `target`, a typed array of its dtype (bool ->
/// Uint8Array, complex64 -> Float32Array of interleaved (re, im) pairs) with room for them: no
/// allocation, for loops that read an output every frame. Returns the number of array elements
/// written.
#[wasm_bindgen(js_name = tensorReadInto)]
pub fn tensor_read_into(h: f64, target: &JsValue) -> JsResult<u32> {
    // A clone (one reference count) so that no borrow is held while JS runs.
    let t = with_table(|t| t.any(h).cloned()).map_err(js)?;
    {
        // A complex64 element takes two floats.
        let n = t.num_elements() * if t.dtype() == DType::Complex64 { 2 } else { 1 };
        let wrong = |want: &str| {
            js(invalid_argument(format!(
                "readInto: a {} tensor reads into a {want}, got {}",
                t.dtype(),
                describe(target)
            )))
        };
        let room = |len: u32| {
            if (len as usize) < n {
                Err(js(invalid_argument(format!(
                    "readInto: the target holds {len} elements, the tensor has {n}"
                ))))
            } else {
                Ok(n as u32)
            }
        };
        // `room` first, so that `subarray(0, n)` has exactly the source's length.
        match t.data() {
            Data::F32(v) => {
                let a = target
                    .dyn_ref::<Float32Array>()
                    .ok_or_else(|| wrong("Float32Array"))?;
                a.subarray(0, room(a.length())?).copy_from(v);
            }
            Data::I32(v) => {
                let a = target
                    .dyn_ref::<Int32Array>()
                    .ok_or_else(|| wrong("Int32Array"))?;
                a.subarray(0, room(a.length())?).copy_from(v);
            }
            Data::I64(v) => {
                let a = target
                    .dyn_ref::<BigInt64Array>()
                    .ok_or_else(|| wrong("BigInt64Array"))?;
                a.subarray(0, room(a.length())?).copy_from(v);
            }
            Data::Bool(v) => {
                let a = target
                    .dyn_ref::<Uint8Array>()
                    .ok_or_else(|| wrong("Uint8Array"))?;
                a.subarray(0, room(a.length())?).copy_from(&bool_bytes(v));
            }
            Data::U8(v) => {
                let a = target
                    .dyn_ref::<Uint8Array>()
                    .ok_or_else(|| wrong("Uint8Array"))?;
                a.subarray(0, room(a.length())?).copy_from(v);
            }
            Data::C64(v) => {
                let a = target
                    .dyn_ref::<Float32Array>()
                    .ok_or_else(|| wrong("Float32Array"))?;
                a.subarray(0, room(a.length())?)
                    .copy_from(&interleaved(v).map_err(js)?);
            }
            Data::Resource(_) => return Err(js(invalid_argument(RESOURCE_HAS_NO_DATA))),
            Data::Str(_) => return Err(js(invalid_argument(STRINGS_HAVE_NO_TYPED_ARRAY))),
        }
        Ok(n as u32)
    }
}

/// A bool tensor's elements as the bytes JS sees (0 or 1; Rust's bool has no typed-array twin).
fn bool_bytes(v: &[bool]) -> Vec<u8> {
    v.iter().map(|&b| u8::from(b)).collect()
}

/// complex64 elements as the interleaved floats JS sees (TF.js's layout: re, im, re, im...).
fn interleaved(v: &[C64]) -> Result<Vec<f32>> {
    let mut out = try_alloc::<f32>(0)?;
    out.try_reserve_exact(v.len() * 2)
        .map_err(|_| resource_exhausted("out of memory copying a complex64 tensor"))?;
    out.extend(v.iter().flat_map(|c| [c.re, c.im]));
    Ok(out)
}

/// A copy of the tensor's elements as a typed array of its dtype (bool -> Uint8Array, complex64
/// -> Float32Array of interleaved (re, im) pairs, twice the element count long).
/// A copy of the tensor's elements as a typed array of its dtype (bool -> Uint8Array; string ->
/// one Uint8Array of the elements, each a 4-byte little-endian length and its bytes).
#[wasm_bindgen(js_name = tensorData)]
pub fn tensor_data(h: f64) -> JsResult<JsValue> {
    // A clone, so that no borrow is held while JS allocates the array (which can throw).
    let t = with_table(|t| t.any(h).cloned()).map_err(js)?;
    Ok(match t.data() {
        Data::F32(v) => Float32Array::from(v.as_slice()).into(),
        Data::I32(v) => Int32Array::from(v.as_slice()).into(),
        Data::I64(v) => BigInt64Array::from(v.as_slice()).into(),
        Data::Bool(v) => Uint8Array::from(bool_bytes(v).as_slice()).into(),
        Data::U8(v) => Uint8Array::from(v.as_slice()).into(),
        Data::C64(v) => Float32Array::from(interleaved(v).map_err(js)?.as_slice()).into(),
        Data::Str(v) => Uint8Array::from(encode_strings(v).map_err(js)?.as_slice()).into(),
        Data::Resource(_) => return Err(js(invalid_argument(RESOURCE_HAS_NO_DATA))),
    })
}

#[wasm_bindgen(js_name = tensorDispose)]
pub fn tensor_dispose(h: f64) -> bool {
    with_table(|t| {
        let released = t.release(h);
        if released {
            t.compact();
        }
        released
    })
}

/// Marks a float32 tensor as a weight: the first matrix product that reads it as its right-hand
/// operand packs it once and keeps the panels with its buffer (as model loads do for their
/// weights), instead of packing it on every call. For callers whose weights are plain tensors
/// written from JS (the TF.js backend). Other dtypes are left alone.
#[wasm_bindgen(js_name = tensorMarkWeight)]
pub fn tensor_mark_weight(h: f64) -> JsResult<()> {
    with_table(|t| {
        let t = t.any(h)?;
        if t.dtype() == DType::Float32 {
            t.mark_packable();
        }
        Ok(())
    })
    .map_err(js)
}

#[wasm_bindgen(js_name = tensorIsLive)]
pub fn tensor_is_live(h: f64) -> bool {
    with_table(|t| t.entry(h).is_ok())
}

/// Opens the tidy scope at `depth` (0 = outermost): handles made from now on are tracked. Scopes
/// at `depth` or deeper still open (left by a tidy that could not close them, e.g. on a stack
/// overflow) are closed first, their handles released.
#[wasm_bindgen(js_name = scopeBegin)]
pub fn scope_begin(depth: u32) {
    with_table(|t| {
        t.close_scopes(depth as usize, &[]);
        let start = t.tracked.len();
        t.scope_starts.push(start);
    })
}

/// Closes the scope at `depth` and any deeper one left open, releasing every handle made in them
/// except the `n_keep` handles in io[0..n_keep] (those pass to the enclosing scope, if any).
/// Returns how many were released.
#[wasm_bindgen(js_name = scopeEnd)]
pub fn scope_end(n_keep: u32, depth: u32) -> u32 {
    // The kept handles are read where they are (no copy): this must work when memory is full.
    with_io(|io| {
        let keep = &io[..(n_keep as usize).min(io.len())];
        with_table(|t| {
            let released = t.close_scopes(depth as usize, keep);
            t.compact();
            released
        })
    })
}

/// Gives the table's memory back if nothing is live (before memory is reported).
pub(crate) fn compact_table() {
    with_table(Table::compact);
}

/// Reads the shape's dims from io[0..rank] and validates them (before anything is allocated).
fn shape_from_io(rank: u32) -> Result<Shape> {
    let dims: Vec<i64> = with_io(|io| {
        let rank = rank as usize;
        if rank > io.len() {
            return Err(invalid_argument(format!("rank {rank} is too large")));
        }
        io[..rank]
            .iter()
            .map(|&d| {
                if d.fract() != 0.0 || !d.is_finite() || d.abs() > 9.007_199_254_740_991e15 {
                    Err(invalid_argument(format!(
                        "shape dimensions must be integers, got {d}"
                    )))
                } else {
                    Ok(d as i64)
                }
            })
            .collect()
    })?;
    Shape::from_i64(&dims)
}

fn check_len(shape: &Shape, len: u32) -> Result<usize> {
    let n = shape.num_elements();
    if n != len as usize {
        return Err(invalid_argument(format!(
            "{len} values given for shape {shape} ({n} expected)"
        )));
    }
    Ok(n)
}

/// A tensor from a typed array (Float32Array, Int32Array, BigInt64Array, or Uint8Array for bool)
/// and a shape in io[0..rank]; the dtype comes from the array type, except that `complex` reads
/// a Float32Array of interleaved (re, im) pairs as complex64.
pub(crate) fn tensor_from_js(values: &JsValue, rank: u32, complex: bool) -> Result<Tensor> {
    let shape = shape_from_io(rank)?;
    let data = if complex {
        let a = values.dyn_ref::<Float32Array>().ok_or_else(|| {
            invalid_argument(format!(
                "complex64 values must be a Float32Array of interleaved (real, imaginary) pairs, \
                 got {}",
                describe(values)
            ))
        })?;
        let n = shape.num_elements();
        if a.length() as usize != n * 2 {
            return Err(invalid_argument(format!(
                "{} floats given for a complex64 tensor of shape {shape} ({} expected: real and \
                 imaginary parts interleaved)",
                a.length(),
                n * 2
            )));
        }
        let mut flat = try_alloc::<f32>(n * 2)?;
        a.copy_to(&mut flat);
        let mut v = try_alloc::<C64>(0)?;
        v.try_reserve_exact(n)
            .map_err(|_| resource_exhausted("out of memory for a complex64 tensor"))?;
        v.extend(flat.chunks_exact(2).map(|p| C64::new(p[0], p[1])));
        Data::C64(v)
    } else if let Some(a) = values.dyn_ref::<Float32Array>() {
        let mut v = try_alloc::<f32>(check_len(&shape, a.length())?)?;
        a.copy_to(&mut v);
        Data::F32(v)
    } else if let Some(a) = values.dyn_ref::<Int32Array>() {
        let mut v = try_alloc::<i32>(check_len(&shape, a.length())?)?;
        a.copy_to(&mut v);
        Data::I32(v)
    } else if let Some(a) = values.dyn_ref::<BigInt64Array>() {
        let mut v = try_alloc::<i64>(check_len(&shape, a.length())?)?;
        a.copy_to(&mut v);
        Data::I64(v)
    } else if let Some(a) = values.dyn_ref::<Uint8ClampedArray>() {
        // The JS wrapper hands uint8 data over as a Uint8ClampedArray view (Uint8Array is bool).
        let mut v = try_alloc::<u8>(check_len(&shape, a.length())?)?;
        a.copy_to(&mut v);
        Data::U8(v)
    } else if let Some(a) = values.dyn_ref::<Uint8Array>() {
        let n = check_len(&shape, a.length())?;
        let mut bytes = vec![0u8; 0];
        bytes.try_reserve_exact(n).map_err(|_| {
            crate::status::resource_exhausted(format!("out of memory allocating {n} bytes"))
        })?;
        bytes.resize(n, 0);
        a.copy_to(&mut bytes);
        let mut v = try_alloc::<bool>(0)?;
        v.try_reserve_exact(n).map_err(|_| {
            crate::status::resource_exhausted(format!("out of memory allocating {n} bytes"))
        })?;
        v.extend(bytes.iter().map(|&b| b != 0));
        Data::Bool(v)
    } else {
        return Err(invalid_argument(format!(
            "tensor values must be a Float32Array, Int32Array, BigInt64Array, Uint8Array (bool) or \
             Uint8ClampedArray (uint8), got {}",
            describe(values)
        )));
    };
    Tensor::new(shape, data)
}

/// A string tensor from its elements length-prefixed in `packed` (as `tensorData` writes them) and
/// a shape in io[0..rank].
pub(crate) fn string_tensor_from_js(packed: &[u8], rank: u32) -> Result<Tensor> {
    let shape = shape_from_io(rank)?;
    Tensor::from_strings(shape.clone(), decode_strings(packed, shape.num_elements())?)
}
