//! A small numeric trait for the compact, rarely-hot kernels (scatter, scan, top-k, NMS, ...):
//! one generic loop per dtype instead of a specialized path per op.

use crate::status::{invalid_argument, Result};
use crate::tensor::{try_with_capacity, DType, Element, Shape, Tensor};

/// The arithmetic the generic kernels need, wrapping for integers as TF's C++ kernels do.
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
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
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
    fn add(self, o: Self) -> Self {
        self + o
    }
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

/// Runs `$body` with `$T` bound to the element type of a numeric `$dtype` (float32, int32,
/// int64, uint8); other dtypes are InvalidArgument naming `$op`.
#[macro_export]
macro_rules! with_num {
    ($dtype:expr, $op:expr, $T:ident, $body:block) => {
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
            $crate::tensor::DType::UInt8 => {
                type $T = u8;
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

/// Product of dims (element count of a sub-shape).
pub fn prod(d: &[usize]) -> usize {
    d.iter().product()
}
