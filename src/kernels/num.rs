//! A small numeric trait for the compact, rarely-hot kernels (scatter, scan, top-k, NMS, ...):
//! one generic loop per dtype instead of a specialized path per op.

use crate::status::{invalid_argument, Result};
use crate::tensor::{try_with_capacity, DType, Element, Shape, Tensor};

/// The arithmetic the generic kernels need, wrapping for integers as TF's C++ kernels do. `add`
/// and `mul` are out of line: a call per element in these rare kernels, instead of a vectorized
/// loop copied into each (-1.5 KB gzipped).
pub trait Num: Element + PartialOrd {
    const ZERO: Self;
    const ONE: Self;
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn to_f64(self) -> f64;
    /// Truncating (saturating) conversion, as a C++ static_cast for in-range values.
    fn from_f64(v: f64) -> Self;
}

macro_rules! num_int {
    ($($t:ty),*) => {$(
        impl Num for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline(never)]
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            #[inline(never)]
            fn mul(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
        }
    )*};
}
num_int!(i32, i64, u8);

impl Num for f32 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    #[inline(never)]
    fn add(self, o: Self) -> Self {
        self + o
    }
    #[inline(never)]
    fn mul(self, o: Self) -> Self {
        self * o
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}

/// The numeric dtypes with uint8 (image data): for ops that TF.js models apply to images.
pub const WITH_U8: &[DType] = &[DType::Float32, DType::Int32, DType::Int64, DType::UInt8];

/// The lowest and highest finite values of `dtype` (Eigen's `NumTraits` lowest / highest: the
/// initial values of max and min scans), as f64s that [`Num::from_f64`] turns into exactly those
/// values of the widened element type.
pub fn limits(dtype: DType) -> (f64, f64) {
    match dtype {
        DType::Int32 => (i32::MIN as f64, i32::MAX as f64),
        DType::Int64 => (i64::MIN as f64, i64::MAX as f64),
        DType::UInt8 => (0.0, 255.0),
        _ => (f32::MIN as f64, f32::MAX as f64),
    }
}

/// Integer tensors as int64 (float32 as is): the generic kernels are instantiated for f32 and i64
/// only, which keeps them small; [`narrow`] casts results back (wrapping, as the narrower type's
/// own arithmetic would: sums, products and orderings agree modulo 2^bits).
pub fn widen(t: &Tensor) -> Result<Tensor> {
    match t.dtype() {
        DType::Int32 | DType::UInt8 => crate::kernels::math::cast_tensor(t, DType::Int64),
        _ => Ok(t.clone()),
    }
}

/// `t` (from a widened computation) back as `dtype`.
pub fn narrow(t: Tensor, dtype: DType) -> Result<Tensor> {
    crate::kernels::math::cast_tensor(&t, dtype)
}

/// Runs `$body` with `$T` bound to the element type of a float32 or (widened) int64 `$dtype`;
/// other dtypes are InvalidArgument naming `$op`. Callers pass tensors through [`widen`] first.
#[macro_export]
macro_rules! with_num {
    ($dtype:expr, $op:expr, $T:ident, $body:block) => {
        match $dtype {
            $crate::tensor::DType::Float32 => {
                type $T = f32;
                $body
            }
            $crate::tensor::DType::Int64 => {
                type $T = i64;
                $body
            }
            d => Err($crate::kernels::num::unsupported($op, d)),
        }
    };
}

#[cold]
#[inline(never)]
pub fn unsupported(op: &str, d: DType) -> crate::status::Status {
    invalid_argument(format!("{op}: dtype {d} is not supported"))
}

/// An i64 vector as an int32 or int64 tensor of `dims` (`dtype` chosen by an out_type attr).
pub fn int_tensor(dtype: DType, dims: &[usize], v: &[i64]) -> Result<Tensor> {
    match dtype {
        DType::Int32 => {
            let mut out = try_with_capacity::<i32>(v.len())?;
            for &x in v {
                out.push(i32::try_from(x).map_err(|_| {
                    invalid_argument(format!("value {x} does not fit an int32 output"))
                })?);
            }
            Tensor::from_vec(Shape::from_dims(dims)?, out)
        }
        DType::Int64 => Tensor::from_slice(dims, v),
        d => Err(invalid_argument(format!(
            "output type must be int32 or int64, got {d}"
        ))),
    }
}

/// `axis` in `[-rank, rank)` made non-negative; else InvalidArgument `"{what} ... "`.
pub fn norm_axis(axis: i64, rank: usize, what: &str) -> Result<usize> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(invalid_argument(format!(
            "{what}: expected axis in the range [{}, {r}), but got {axis}",
            -r
        )));
    }
    Ok(if axis < 0 { axis + r } else { axis } as usize)
}

/// A scalar (rank 0) f32 input's value, or InvalidArgument "`what` must be 0-D".
pub fn f32_scalar(t: &Tensor, what: &str) -> Result<f32> {
    if t.rank() != 0 {
        return Err(invalid_argument(format!(
            "{what} must be 0-D, got shape {}",
            t.shape()
        )));
    }
    Ok(t.f32s()?[0])
}

/// Product of dims (element count of a sub-shape). Out of line: the unrolled product loop was
/// about 200 bytes of wasm at each of the ~50 places that size a sub-shape.
#[inline(never)]
pub fn prod(d: &[usize]) -> usize {
    d.iter().product()
}

/// Stably sorts `idx` by `keys[i]` (descending when `desc`): the one sort the rare kernels share,
/// a plain bottom-up merge sort (the standard library's sorts cost 14 KB of wasm per instance).
#[inline(never)]
pub fn sort_by_keys(idx: &mut [usize], keys: &[u64], desc: bool) {
    let n = idx.len();
    let before = |a: usize, b: usize| {
        if desc {
            keys[a] > keys[b]
        } else {
            keys[a] < keys[b]
        }
    };
    let mut buf = idx.to_vec();
    let mut width = 1;
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut i, mut j) = (lo, mid);
            for slot in &mut buf[lo..hi] {
                // Take from the right run only when strictly before: equal keys keep their order.
                if j < hi && (i >= mid || before(idx[j], idx[i])) {
                    *slot = idx[j];
                    j += 1;
                } else {
                    *slot = idx[i];
                    i += 1;
                }
            }
            lo = hi;
        }
        idx.copy_from_slice(&buf);
        width *= 2;
    }
}

/// An order-preserving u64 key of an f32 (IEEE total order: NaN above +inf). Out of line, like
/// [`i64_key`]: the key loops of the rare sorting kernels stay scalar and small.
#[inline(never)]
pub fn f32_key(v: f32) -> u64 {
    let b = v.to_bits();
    (if b >> 31 == 1 { !b } else { b | 1 << 31 }) as u64
}

/// An order-preserving u64 key of an i64.
#[inline(never)]
pub fn i64_key(v: i64) -> u64 {
    (v as u64) ^ (1 << 63)
}
