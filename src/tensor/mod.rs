//! Tensors: a validated shape over a ref-counted buffer, so outputs can alias inputs (Identity,
//! Reshape) and the last owner frees the memory.

mod dtype;
mod handle;
mod packed;
mod shape;
mod strings;

pub use dtype::{flush_denormal, DType};
pub use handle::ResourceHandle;
pub use packed::{live_packed, Packed, PackedLayout};
pub use shape::{Shape, MAX_ELEMENTS};
pub use strings::{decode_strings, decode_strings_prefix, encode_strings};

use crate::hash::FastBuild;
use crate::status::{invalid_argument, resource_exhausted, Result};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

/// Typed element storage. `repr(u8)`: an explicit tag in the same order as `DType`, so `dtype()`
/// (inlined at ~600 places) is one byte load, where the Vec-capacity niche needed a decode.
#[derive(Debug)]
#[repr(u8)]
pub enum Data {
    F32(Vec<f32>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    Bool(Vec<bool>),
    U8(Vec<u8>),
    Resource(ResourceHandle),
    C64(Vec<C64>),
    Str(Vec<Vec<u8>>),
}

/// A complex64 element, TF's `std::complex<float>`: real then imaginary, so a buffer of them is
/// the interleaved float pairs TF.js's `dataSync()` gives.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[repr(C)]
pub struct C64 {
    pub re: f32,
    pub im: f32,
}

impl C64 {
    pub const fn new(re: f32, im: f32) -> C64 {
        C64 { re, im }
    }
}

impl Data {
    pub fn dtype(&self) -> DType {
        match self {
            Data::F32(_) => DType::Float32,
            Data::I32(_) => DType::Int32,
            Data::I64(_) => DType::Int64,
            Data::Bool(_) => DType::Bool,
            Data::U8(_) => DType::UInt8,
            Data::Resource(_) => DType::Resource,
            Data::C64(_) => DType::Complex64,
            Data::Str(_) => DType::String,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Data::F32(v) => v.len(),
            Data::I32(v) => v.len(),
            Data::I64(v) => v.len(),
            Data::Bool(v) => v.len(),
            Data::U8(v) => v.len(),
            Data::Resource(_) => 1,
            Data::C64(v) => v.len(),
            Data::Str(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes the elements hold: for strings their lengths summed (as TF.js counts them).
    pub fn byte_len(&self) -> usize {
        match self {
            Data::Str(v) => v.iter().map(Vec::len).sum(),
            _ => self.len() * self.dtype().size_of(),
        }
    }
}

thread_local! {
    static LIVE_TENSORS: Cell<usize> = const { Cell::new(0) };
    static LIVE_TENSOR_BYTES: Cell<usize> = const { Cell::new(0) };
    /// Tracked resources (tensor lists): live buffers holding each handle, and whether the
    /// resource goes when that count drops to zero (TF's resource-handle reference count).
    static RESOURCE_REFS: RefCell<HashMap<ResourceHandle, (u32, bool), FastBuild>> =
        RefCell::new(HashMap::default());
    /// Handles whose last buffer went, until their manager takes them (`take_unreferenced`).
    static UNREFERENCED: RefCell<Vec<ResourceHandle>> = const { RefCell::new(Vec::new()) };
}

/// Starts counting the tensor buffers that hold `h`; with `release`, `take_unreferenced` reports
/// it once none does.
pub fn track_resource(h: ResourceHandle, release: bool) {
    RESOURCE_REFS.with(|m| m.borrow_mut().insert(h, (0, release)));
}

/// Stops counting `h` (its resource is gone).
pub fn untrack_resource(h: ResourceHandle) {
    let _ = RESOURCE_REFS.try_with(|m| {
        let mut m = m.borrow_mut();
        m.remove(&h);
        if m.is_empty() {
            // Gives the map's memory back: heap in use returns to where it was.
            *m = HashMap::default();
        }
    });
}

fn ref_resource(h: ResourceHandle) {
    let _ = RESOURCE_REFS.try_with(|m| {
        if let Some((n, _)) = m.borrow_mut().get_mut(&h) {
            *n += 1;
        }
    });
}

fn unref_resource(h: ResourceHandle) {
    let _ = RESOURCE_REFS.try_with(|m| {
        let mut m = m.borrow_mut();
        let Some((n, release)) = m.get_mut(&h) else {
            return;
        };
        *n -= 1;
        if *n == 0 && *release {
            let _ = UNREFERENCED.try_with(|u| u.borrow_mut().push(h));
        }
    });
}

/// How many live tensor buffers hold `h` (0 for a resource not tracked).
pub fn resource_refs(h: ResourceHandle) -> u32 {
    RESOURCE_REFS.with(|m| m.borrow().get(&h).map_or(0, |&(n, _)| n))
}

/// The tracked handles of manager `manager` that lost their last tensor since the last call
/// (some may have been put in a tensor again since: check `resource_refs`).
pub fn take_unreferenced(manager: u32) -> Vec<ResourceHandle> {
    UNREFERENCED.with(|u| {
        let mut u = u.borrow_mut();
        if u.is_empty() {
            return Vec::new();
        }
        let mine = u.iter().filter(|h| h.manager == manager).copied().collect();
        u.retain(|h| h.manager != manager);
        if u.is_empty() {
            *u = Vec::new();
        }
        mine
    })
}

/// Live tensor buffers (not tensor views: two tensors sharing one buffer count once; not resource
/// handles) and their bytes.
pub fn live_tensors() -> (usize, usize) {
    (
        LIVE_TENSORS.with(Cell::get),
        LIVE_TENSOR_BYTES.with(Cell::get),
    )
}

/// Adds (or, when `made` is false, removes) a buffer in the live-tensor figures. A resource handle
/// is not counted: it names a variable or list whose values are tensors of their own (and the
/// resource figures count the variable), so a model weight counts once, as in TF.js.
fn count_live(data: &Data, made: bool) {
    if matches!(data, Data::Resource(_)) {
        return;
    }
    let bytes = data.byte_len();
    LIVE_TENSORS.with(|c| c.set(if made { c.get() + 1 } else { c.get() - 1 }));
    LIVE_TENSOR_BYTES.with(|c| {
        c.set(if made {
            c.get() + bytes
        } else {
            c.get() - bytes
        })
    });
}

/// A buffer that counts itself in the live-tensor figures for as long as it exists.
#[derive(Debug)]
pub struct Buffer {
    data: Data,
    /// A kernel layout of `data`, once a kernel made one (`packed.rs`); boxed: most buffers
    /// never have one.
    packed: std::cell::OnceCell<Box<Packed>>,
    /// A model weight its kernels may pack on first use.
    packable: Cell<bool>,
}

impl Buffer {
    fn new(data: Data) -> Buffer {
        count_live(&data, true);
        if let Data::Resource(h) = data {
            ref_resource(h);
        }
        Buffer {
            data,
            packed: std::cell::OnceCell::new(),
            packable: Cell::new(false),
        }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        count_live(&self.data, false);
        if let Data::Resource(h) = self.data {
            unref_resource(h);
        }
    }
}

#[derive(Debug)]
pub struct Tensor {
    shape: Shape,
    buffer: SharedBuffer,
}

impl Clone for Tensor {
    /// Out of line: the shape copy and the reference-count increment (with its overflow abort)
    /// were expanded at each of the ~160 places that clone a tensor.
    #[inline(never)]
    fn clone(&self) -> Tensor {
        Tensor {
            shape: self.shape.clone(),
            buffer: self.buffer.clone(),
        }
    }
}

/// A tensor's reference to its buffer, released out of line: `Rc`'s drop (the decrement, and the
/// buffer's own drop when it was the last reference) was expanded at each of the ~160 places a
/// tensor is dropped.
#[derive(Debug, Clone)]
struct SharedBuffer(std::mem::ManuallyDrop<Rc<Buffer>>);

impl SharedBuffer {
    fn new(data: Data) -> SharedBuffer {
        SharedBuffer(std::mem::ManuallyDrop::new(Rc::new(Buffer::new(data))))
    }

    fn into_rc(self) -> Rc<Buffer> {
        let mut this = std::mem::ManuallyDrop::new(self);
        // SAFETY: `this` is never dropped (ManuallyDrop), so the Rc is taken exactly once.
        unsafe { std::mem::ManuallyDrop::take(&mut this.0) }
    }
}

impl Drop for SharedBuffer {
    #[inline(never)]
    fn drop(&mut self) {
        // SAFETY: drop runs once, and nothing reads `self.0` after it.
        unsafe { std::mem::ManuallyDrop::drop(&mut self.0) }
    }
}

impl std::ops::Deref for SharedBuffer {
    type Target = Rc<Buffer>;
    fn deref(&self) -> &Rc<Buffer> {
        &self.0
    }
}

/// Element types with a storage variant; lets dtype-agnostic kernels be written once.
pub trait Element: Copy + Default + PartialEq + std::fmt::Debug + 'static {
    const DTYPE: DType;
    fn slice(data: &Data) -> Option<&[Self]>;
    fn wrap(v: Vec<Self>) -> Data;
}

macro_rules! element {
    ($t:ty, $variant:ident, $dtype:ident) => {
        impl Element for $t {
            const DTYPE: DType = DType::$dtype;
            fn slice(data: &Data) -> Option<&[Self]> {
                match data {
                    Data::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn wrap(v: Vec<Self>) -> Data {
                Data::$variant(v)
            }
        }
    };
}
element!(f32, F32, Float32);
element!(i32, I32, Int32);
element!(i64, I64, Int64);
element!(bool, Bool, Bool);
element!(u8, U8, UInt8);
element!(C64, C64, Complex64);

/// Largest buffer one tensor may have: 2 GiB, what a wasm32 instance can address in one piece. The
/// same bound natively keeps behaviour identical and stops a hostile shape from reaching the OS
/// allocator (where overcommit would turn it into an OOM kill instead of an error).
pub const MAX_TENSOR_BYTES: usize = (i32::MAX as usize) + 1;

fn exhausted<T: Element>(n: usize, why: &str) -> crate::status::Status {
    resource_exhausted(format!(
        "cannot allocate a {} tensor of {n} elements ({} bytes): {why}",
        T::DTYPE,
        n.saturating_mul(std::mem::size_of::<T>())
    ))
}

/// Reserves room for `n` elements, turning an oversized request or allocation failure into
/// ResourceExhausted instead of an abort (a wasm memory that cannot grow must not take the
/// instance down).
pub fn try_with_capacity<T: Element>(n: usize) -> Result<Vec<T>> {
    if n.saturating_mul(std::mem::size_of::<T>()) > MAX_TENSOR_BYTES {
        return Err(exhausted::<T>(n, "over the 2 GiB limit for one tensor"));
    }
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| exhausted::<T>(n, "out of memory"))?;
    Ok(v)
}

/// Out of line and not generic: expanded, the message was formatted at each of the ~100 places that
/// read a tensor's elements.
#[cold]
#[inline(never)]
fn dtype_mismatch(expected: DType, got: DType) -> crate::status::Status {
    invalid_argument(format!("expected a {expected} tensor, got {got}"))
}

/// `n` empty strings, with `try_with_capacity`'s failure handling.
pub fn try_alloc_strings(n: usize) -> Result<Vec<Vec<u8>>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        resource_exhausted(format!("cannot allocate a string tensor of {n} elements"))
    })?;
    v.resize(n, Vec::new());
    Ok(v)
}

/// `n` default-valued elements, with `try_with_capacity`'s failure handling.
pub fn try_alloc<T: Element>(n: usize) -> Result<Vec<T>> {
    let mut v = try_with_capacity(n)?;
    v.resize(n, T::default());
    Ok(v)
}

impl Tensor {
    /// Wraps data whose length must match the shape.
    pub fn new(shape: Shape, data: Data) -> Result<Tensor> {
        let expected = match data {
            Data::Resource(_) => 1,
            _ => shape.num_elements(),
        };
        if data.len() != expected {
            return Err(invalid_argument(format!(
                "{} values given for shape {shape} ({expected} expected)",
                data.len()
            )));
        }
        Ok(Tensor {
            shape,
            buffer: SharedBuffer::new(data),
        })
    }

    /// Out of line (one instance per element type): the length check and the buffer were
    /// expanded at each of the ~170 kernels that make an output.
    #[inline(never)]
    pub fn from_vec<T: Element>(shape: Shape, v: Vec<T>) -> Result<Tensor> {
        Tensor::new(shape, T::wrap(v))
    }

    pub fn from_slice<T: Element>(dims: &[usize], v: &[T]) -> Result<Tensor> {
        let mut data = try_with_capacity::<T>(v.len())?;
        data.extend_from_slice(v);
        Tensor::from_vec(Shape::from_dims(dims)?, data)
    }

    pub fn scalar<T: Element>(v: T) -> Tensor {
        Tensor {
            shape: Shape::scalar(),
            buffer: SharedBuffer::new(T::wrap(vec![v])),
        }
    }

    pub fn resource(handle: ResourceHandle) -> Tensor {
        Tensor {
            shape: Shape::scalar(),
            buffer: SharedBuffer::new(Data::Resource(handle)),
        }
    }

    /// A zero-filled tensor of any non-resource dtype.
    pub fn zeros(dtype: DType, shape: Shape) -> Result<Tensor> {
        let n = shape.num_elements();
        let data = match dtype {
            DType::Float32 => Data::F32(try_alloc(n)?),
            DType::Int32 => Data::I32(try_alloc(n)?),
            DType::Int64 => Data::I64(try_alloc(n)?),
            DType::Bool => Data::Bool(try_alloc(n)?),
            DType::UInt8 => Data::U8(try_alloc(n)?),
            DType::Complex64 => Data::C64(try_alloc(n)?),
            // TF's zero string is the empty one.
            DType::String => Data::Str(try_alloc_strings(n)?),
            DType::Resource => {
                return Err(invalid_argument("cannot create a zero resource tensor"))
            }
        };
        Tensor::new(shape, data)
    }

    pub fn dtype(&self) -> DType {
        self.buffer.data.dtype()
    }

    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    pub fn dims(&self) -> &[usize] {
        self.shape.dims()
    }

    pub fn rank(&self) -> usize {
        self.shape.rank()
    }

    pub fn num_elements(&self) -> usize {
        self.shape.num_elements()
    }

    pub fn byte_len(&self) -> usize {
        self.buffer.data.byte_len()
    }

    pub fn data(&self) -> &Data {
        &self.buffer.data
    }

    /// The elements as `T`, or InvalidArgument naming both dtypes.
    pub fn as_slice<T: Element>(&self) -> Result<&[T]> {
        T::slice(&self.buffer.data).ok_or_else(|| dtype_mismatch(T::DTYPE, self.dtype()))
    }

    pub fn f32s(&self) -> Result<&[f32]> {
        self.as_slice::<f32>()
    }

    /// The elements of a string tensor, or InvalidArgument naming the dtype.
    pub fn strs(&self) -> Result<&[Vec<u8>]> {
        match &self.buffer.data {
            Data::Str(v) => Ok(v),
            _ => Err(dtype_mismatch(DType::String, self.dtype())),
        }
    }

    pub fn from_strings(shape: Shape, v: Vec<Vec<u8>>) -> Result<Tensor> {
        Tensor::new(shape, Data::Str(v))
    }

    pub fn resource_handle(&self) -> Result<ResourceHandle> {
        match self.buffer.data {
            Data::Resource(h) => Ok(h),
            _ => Err(invalid_argument(format!(
                "expected a resource handle, got a {} tensor",
                self.dtype()
            ))),
        }
    }

    /// Reads an integer tensor (int32 or int64) as i64s: shapes, axes, begin/end vectors.
    pub fn to_i64_vec(&self) -> Result<Vec<i64>> {
        match &self.buffer.data {
            Data::I32(v) => Ok(v.iter().map(|&x| x as i64).collect()),
            Data::I64(v) => Ok(v.clone()),
            // Index-like uint8 inputs (OneHot's indices).
            Data::U8(v) => Ok(v.iter().map(|&x| x as i64).collect()),
            _ => Err(invalid_argument(format!(
                "expected an int32 or int64 tensor, got {}",
                self.dtype()
            ))),
        }
    }

    /// Same buffer, new shape (Reshape, ExpandDims, Squeeze alias their input).
    pub fn reshaped(&self, shape: Shape) -> Result<Tensor> {
        if shape.num_elements() != self.num_elements() {
            return Err(invalid_argument(format!(
                "cannot reshape a tensor of {} elements (shape {}) to shape {shape}",
                self.num_elements(),
                self.shape
            )));
        }
        Ok(Tensor {
            shape,
            buffer: self.buffer.clone(),
        })
    }

    /// The packed copy of this tensor's buffer, if one was attached.
    pub fn packed(&self) -> Option<&Packed> {
        self.buffer.packed.get().map(|p| &**p)
    }

    /// Marks the buffer as a model weight: a kernel that would pack it on every call packs it
    /// once instead (and attaches the copy).
    /// Same shape and the same elements, floats compared by their bits (NaN equals NaN of the same
    /// payload, 0.0 differs from -0.0): what attr tensors and lookup-table data are compared by.
    pub fn bitwise_eq(&self, other: &Tensor) -> bool {
        if self.shares_buffer(other) {
            return self.shape() == other.shape();
        }
        let bits = |c: &C64| (c.re.to_bits(), c.im.to_bits());
        self.shape() == other.shape()
            && match (self.data(), other.data()) {
                (Data::F32(x), Data::F32(y)) => {
                    x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
                }
                (Data::I32(x), Data::I32(y)) => x == y,
                (Data::I64(x), Data::I64(y)) => x == y,
                (Data::Bool(x), Data::Bool(y)) => x == y,
                (Data::U8(x), Data::U8(y)) => x == y,
                (Data::C64(x), Data::C64(y)) => x.iter().zip(y).all(|(p, q)| bits(p) == bits(q)),
                (Data::Resource(x), Data::Resource(y)) => x == y,
                (Data::Str(x), Data::Str(y)) => x == y,
                _ => false,
            }
    }

    pub fn mark_packable(&self) {
        self.buffer.packable.set(true);
    }

    pub fn is_packable(&self) -> bool {
        self.buffer.packable.get()
    }

    /// Attaches a packed copy to the buffer (and so to every tensor viewing it), to live and die
    /// with it; false (and `p` dropped) when the buffer already has one.
    pub fn attach_packed(&self, p: Packed) -> bool {
        self.buffer.packed.set(Box::new(p)).is_ok()
    }

    /// True when both tensors view one buffer.
    pub fn shares_buffer(&self, other: &Tensor) -> bool {
        Rc::ptr_eq(&self.buffer, &other.buffer)
    }

    /// Takes the data out if this is the only owner, for in-place reuse by elementwise kernels.
    pub fn try_into_data(self) -> std::result::Result<Data, Tensor> {
        let shape = self.shape;
        match Rc::try_unwrap(self.buffer.into_rc()) {
            Ok(mut buffer) => {
                let data = std::mem::replace(&mut buffer.data, Data::Bool(Vec::new()));
                // The Drop of `buffer` now subtracts an empty buffer; correct the live bytes for
                // the data we took, which is counted again when it is wrapped anew.
                LIVE_TENSOR_BYTES.with(|c| c.set(c.get() - data.byte_len()));
                // Likewise its handle's reference, taken again when it is wrapped anew.
                if let Data::Resource(h) = data {
                    unref_resource(h);
                }
                Ok(data)
            }
            Err(buffer) => Err(Tensor {
                shape,
                buffer: SharedBuffer(std::mem::ManuallyDrop::new(buffer)),
            }),
        }
    }
}

/// Runs `$body` with `$T` bound to the Rust element type of `$dtype` (not Resource).
#[macro_export]
macro_rules! with_dtype {
    ($dtype:expr, $T:ident, $body:block) => {
        match $dtype {
            $crate::tensor::DType::Float32 => {
                type $T = f32;
                $body
            }
            $crate::tensor::DType::Int32 => {
                type $T = i32;
                $body
            }
            $crate::tensor::DType::Int64 => {
                type $T = i64;
                $body
            }
            $crate::tensor::DType::Bool => {
                type $T = bool;
                $body
            }
            $crate::tensor::DType::UInt8 => {
                type $T = u8;
                $body
            }
            $crate::tensor::DType::Complex64 => {
                type $T = $crate::tensor::C64;
                $body
            }
            $crate::tensor::DType::Resource => Err($crate::status::invalid_argument(
                "this op does not accept resource tensors",
            )),
            $crate::tensor::DType::String => Err($crate::status::invalid_argument(
                "this op does not accept string tensors",
            )),
        }
    };
}
