//! Tensors as JS sees them: a table of slots, each holding `Option<Tensor>` (None once disposed) and
//! the id of the context that made it. JS holds a *handle* (slot index + generation, packed in one
//! f64), so a disposed or recycled slot is detected instead of dereferenced, and handles cross the
//! boundary as plain numbers through one shared scratch buffer (`io`): no wasm-bindgen object, no
//! allocation and no string per tensor on the execute path.
//!
//! Also here: `tidy` scopes (which handles were made inside, released at scope end unless kept),
//! typed-array copies in (one memcpy after the shape is validated) and out (one memcpy).

use super::errors::{describe, js, JsResult};
use crate::status::{failed_precondition, invalid_argument, Result, Status};
use crate::tensor::{try_alloc, DType, Data, Shape, Tensor};
use js_sys::{BigInt64Array, Float32Array, Int32Array, Uint8Array, Uint8ClampedArray};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A handle is `serial * 2^24 + index`: `index` names the slot, `serial` (29 bits, never 0) is
/// issued from one counter and stored in the slot, so a handle whose slot was released (or reused)
/// never matches again. The whole table is dropped when no tensor is live, so heap in use returns
/// exactly to its baseline once everything is disposed.
const INDEX_BITS: f64 = 16_777_216.0; // 2^24
const MAX_SLOTS: usize = 1 << 24;
const SERIAL_LIMIT: u32 = 1 << 29;

struct Slot {
    serial: u32,
    ctx: u32,
    tensor: Option<Tensor>,
}

pub(crate) struct Table {
    slots: Vec<Slot>,
    free: Vec<u32>,
    live: usize,
    next_serial: u32,
    /// Handles made while a tidy scope is open; `scope_starts` marks where each open scope begins.
    tracked: Vec<f64>,
    scope_starts: Vec<usize>,
}

thread_local! {
    static TABLE: RefCell<Table> = const {
        RefCell::new(Table {
            slots: Vec::new(),
            free: Vec::new(),
            live: 0,
            next_serial: 1,
            tracked: Vec::new(),
            scope_starts: Vec::new(),
        })
    };
    /// Scratch for handles and dims in both directions. JS views it as a Float64Array.
    static IO: RefCell<Vec<f64>> = RefCell::new(vec![0.0; 256]);
}

fn pack(index: u32, serial: u32) -> f64 {
    f64::from(serial) * INDEX_BITS + f64::from(index)
}

fn unpack(h: f64) -> Option<(u32, u32)> {
    if !(h >= INDEX_BITS && h < f64::from(SERIAL_LIMIT) * INDEX_BITS) || h.fract() != 0.0 {
        return None;
    }
    let serial = (h / INDEX_BITS).floor();
    let index = h - serial * INDEX_BITS;
    Some((index as u32, serial as u32))
}

fn disposed() -> Status {
    failed_precondition("tensor has been disposed (by dispose(), tidy() or its context)")
}

fn bad_handle() -> Status {
    invalid_argument("not a tensor of eager-wasm (invalid tensor handle)")
}

impl Table {
    pub(crate) fn insert(&mut self, ctx: u32, t: Tensor) -> Result<f64> {
        let serial = self.next_serial;
        self.next_serial = if serial + 1 >= SERIAL_LIMIT {
            1
        } else {
            serial + 1
        };
        let index = match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = Slot {
                    serial,
                    ctx,
                    tensor: Some(t),
                };
                i
            }
            None => {
                if self.slots.len() >= MAX_SLOTS {
                    return Err(crate::status::resource_exhausted(format!(
                        "more than {MAX_SLOTS} live tensors; dispose some"
                    )));
                }
                self.slots.push(Slot {
                    serial,
                    ctx,
                    tensor: Some(t),
                });
                (self.slots.len() - 1) as u32
            }
        };
        self.live += 1;
        let h = pack(index, serial);
        if !self.scope_starts.is_empty() {
            self.tracked.push(h);
        }
        Ok(h)
    }

    fn slot(&self, h: f64) -> Result<&Slot> {
        let (index, serial) = unpack(h).ok_or_else(bad_handle)?;
        match self.slots.get(index as usize) {
            Some(s) if s.serial == serial && s.tensor.is_some() => Ok(s),
            _ => Err(disposed()),
        }
    }

    /// The tensor behind `h`, checked to belong to context `ctx`.
    pub(crate) fn get(&self, h: f64, ctx: u32) -> Result<&Tensor> {
        let s = self.slot(h)?;
        if s.ctx != ctx {
            return Err(invalid_argument(format!(
                "tensor belongs to another EagerContext (#{}), not this one (#{ctx}); copy it with \
                 ctx.tensor(t.dataSync(), t.shape)",
                s.ctx
            )));
        }
        Ok(s.tensor.as_ref().expect("slot() checked liveness"))
    }

    pub(crate) fn any(&self, h: f64) -> Result<&Tensor> {
        Ok(self
            .slot(h)?
            .tensor
            .as_ref()
            .expect("slot() checked liveness"))
    }

    /// Releases `h`; false if it was already released (idempotent, stale-safe).
    pub(crate) fn release(&mut self, h: f64) -> bool {
        let Some((index, serial)) = unpack(h) else {
            return false;
        };
        match self.slots.get_mut(index as usize) {
            Some(s) if s.serial == serial && s.tensor.is_some() => {
                s.tensor = None;
                s.serial = 0;
                self.free.push(index);
                self.live -= 1;
                true
            }
            _ => false,
        }
    }

    /// Releases every tensor of context `ctx`; returns how many.
    pub(crate) fn release_context(&mut self, ctx: u32) -> usize {
        let mut n = 0;
        for i in 0..self.slots.len() {
            let s = &self.slots[i];
            if s.ctx == ctx && s.tensor.is_some() && self.release(pack(i as u32, s.serial)) {
                n += 1;
            }
        }
        self.compact();
        n
    }

    /// With no tensor live and no scope open, the table gives its memory back.
    fn compact(&mut self) {
        if self.live == 0 && self.scope_starts.is_empty() {
            self.slots = Vec::new();
            self.free = Vec::new();
            self.tracked = Vec::new();
        }
    }
}

pub(crate) fn with_table<R>(f: impl FnOnce(&mut Table) -> R) -> R {
    TABLE.with(|t| f(&mut t.borrow_mut()))
}

pub(crate) fn with_io<R>(f: impl FnOnce(&mut Vec<f64>) -> R) -> R {
    IO.with(|io| f(&mut io.borrow_mut()))
}

/// Address of the scratch buffer, grown to at least `min_len` f64s. JS re-reads it (and rebuilds its
/// Float64Array view) whenever the view is detached by memory growth or too short.
#[wasm_bindgen(js_name = ioReserve)]
pub fn io_reserve(min_len: u32) -> u32 {
    with_io(|io| {
        if io.len() < min_len as usize {
            io.resize(min_len as usize, 0.0);
        }
        io.as_ptr() as usize as u32
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

const RESOURCE_HAS_NO_DATA: &str =
    "a resource tensor (variable handle) has no readable data; read it with ReadVariableOp";

/// Copies the tensor's elements into the start of `target`, a typed array of its dtype (bool ->
/// Uint8Array) with room for them: no allocation, for loops that read an output every frame.
/// Returns the number of elements written.
#[wasm_bindgen(js_name = tensorReadInto)]
pub fn tensor_read_into(h: f64, target: &JsValue) -> JsResult<u32> {
    with_table(|t| {
        let t = t.any(h).map_err(js)?;
        let n = t.num_elements();
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
            Data::Resource(_) => return Err(js(invalid_argument(RESOURCE_HAS_NO_DATA))),
        }
        Ok(n as u32)
    })
}

/// A bool tensor's elements as the bytes JS sees (0 or 1; Rust's bool has no typed-array twin).
fn bool_bytes(v: &[bool]) -> Vec<u8> {
    v.iter().map(|&b| u8::from(b)).collect()
}

/// A copy of the tensor's elements as a typed array of its dtype (bool -> Uint8Array).
#[wasm_bindgen(js_name = tensorData)]
pub fn tensor_data(h: f64) -> JsResult<JsValue> {
    with_table(|t| {
        let t = t.any(h).map_err(js)?;
        Ok(match t.data() {
            Data::F32(v) => Float32Array::from(v.as_slice()).into(),
            Data::I32(v) => Int32Array::from(v.as_slice()).into(),
            Data::I64(v) => BigInt64Array::from(v.as_slice()).into(),
            Data::Bool(v) => Uint8Array::from(bool_bytes(v).as_slice()).into(),
            Data::U8(v) => Uint8Array::from(v.as_slice()).into(),
            Data::Resource(_) => return Err(js(invalid_argument(RESOURCE_HAS_NO_DATA))),
        })
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

#[wasm_bindgen(js_name = tensorIsLive)]
pub fn tensor_is_live(h: f64) -> bool {
    with_table(|t| t.slot(h).is_ok())
}

/// Opens a tidy scope: handles made from now on are tracked.
#[wasm_bindgen(js_name = scopeBegin)]
pub fn scope_begin() {
    with_table(|t| {
        let start = t.tracked.len();
        t.scope_starts.push(start);
    })
}

/// Closes the innermost scope, releasing every handle made in it except the `n_keep` handles in
/// io[0..n_keep] (those pass to the enclosing scope, if any). Returns how many were released.
#[wasm_bindgen(js_name = scopeEnd)]
pub fn scope_end(n_keep: u32) -> u32 {
    let keep: Vec<f64> = with_io(|io| io[..(n_keep as usize).min(io.len())].to_vec());
    with_table(|t| {
        let Some(start) = t.scope_starts.pop() else {
            return 0;
        };
        let made: Vec<f64> = t.tracked.drain(start..).collect();
        let mut released = 0;
        for h in made {
            if keep.contains(&h) {
                if !t.scope_starts.is_empty() {
                    t.tracked.push(h);
                }
            } else if t.release(h) {
                released += 1;
            }
        }
        if t.scope_starts.is_empty() {
            t.tracked = Vec::new();
        }
        t.compact();
        released
    })
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
/// and a shape in io[0..rank]; the dtype comes from the array type.
pub(crate) fn tensor_from_js(values: &JsValue, rank: u32) -> Result<Tensor> {
    let shape = shape_from_io(rank)?;
    let data = if let Some(a) = values.dyn_ref::<Float32Array>() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip() {
        for (i, g) in [(0, 1), (5, 7), (MAX_SLOTS as u32 - 1, SERIAL_LIMIT - 1)] {
            assert_eq!(unpack(pack(i, g)), Some((i, g)));
        }
        assert_eq!(unpack(0.0), None);
        assert_eq!(unpack(1.5), None);
        assert_eq!(unpack(f64::NAN), None);
    }
}
