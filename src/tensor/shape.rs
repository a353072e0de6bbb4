//! Validated tensor shapes: non-negative dims whose element count fits, checked without overflow.

use crate::status::{invalid_argument, resource_exhausted, Result};
use std::mem::ManuallyDrop;

/// Upper bound on elements of one tensor: `elements * 8` (the widest dtype) never overflows
/// `isize`, so byte sizes can be computed unchecked once a shape exists. Allocation is checked again.
pub const MAX_ELEMENTS: usize = (isize::MAX as usize) / 8;

/// The largest rank, as TensorFlow's (`TensorShape::MaxDimensions`).
pub const MAX_RANK: usize = 254;

fn rank_error(rank: usize) -> crate::status::Status {
    invalid_argument(format!(
        "a shape of rank {rank} is over the largest rank, {MAX_RANK}"
    ))
}

/// Ranks up to this are stored inline: making or cloning such a shape allocates nothing (every op
/// output and every tensor clone carries one).
const INLINE_RANK: usize = 6;

/// The rank (at most MAX_RANK, so a u8) is the first field of both variants: with `repr(u8)` it
/// sits at the same offset in each, so `dims()` reads the length with one load and picks the
/// pointer with a select, at each of the ~700 places it is inlined.
#[derive(Clone)]
#[repr(u8)]
enum Dims {
    Inline(u8, [usize; INLINE_RANK]),
    Heap(u8, HeapDims),
}

/// Dims of rank > 6. Freed out of line: the Vec's drop was expanded at each of the ~250 places a
/// shape (or tensor) is dropped, though almost every shape is inline.
#[derive(Clone)]
struct HeapDims(ManuallyDrop<Vec<usize>>);

impl Drop for HeapDims {
    #[inline(never)]
    fn drop(&mut self) {
        drop(std::mem::take(&mut *self.0));
    }
}

pub struct Shape {
    dims: Dims,
    num_elements: usize,
}

impl Clone for Shape {
    /// Out of line: derived, the inline-or-heap copy was expanded at each of the ~200 places that
    /// clone a tensor or a shape.
    #[inline(never)]
    fn clone(&self) -> Shape {
        Shape {
            dims: self.dims.clone(),
            num_elements: self.num_elements,
        }
    }
}

impl Default for Shape {
    fn default() -> Shape {
        Shape {
            dims: Dims::Inline(0, [0; INLINE_RANK]),
            num_elements: 0,
        }
    }
}

impl PartialEq for Shape {
    fn eq(&self, other: &Shape) -> bool {
        self.dims() == other.dims()
    }
}

impl Eq for Shape {}

impl std::hash::Hash for Shape {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.dims().hash(h);
        self.num_elements.hash(h);
    }
}

impl std::fmt::Debug for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shape")
            .field("dims", &self.dims())
            .field("num_elements", &self.num_elements)
            .finish()
    }
}

impl Shape {
    pub fn scalar() -> Shape {
        Shape {
            dims: Dims::Inline(0, [0; INLINE_RANK]),
            num_elements: 1,
        }
    }

    /// From dims that are already non-negative; fails if the element count overflows.
    pub fn new(dims: Vec<usize>) -> Result<Shape> {
        let num_elements = Self::count(&dims)?;
        let dims = if dims.len() <= INLINE_RANK {
            Self::inline(&dims)
        } else {
            Dims::Heap(dims.len() as u8, HeapDims(ManuallyDrop::new(dims)))
        };
        Ok(Shape { dims, num_elements })
    }

    /// `new` from a slice (no allocation up to rank 6).
    pub fn from_dims(dims: &[usize]) -> Result<Shape> {
        let num_elements = Self::count(dims)?;
        let dims = if dims.len() <= INLINE_RANK {
            Self::inline(dims)
        } else {
            Dims::Heap(dims.len() as u8, HeapDims(ManuallyDrop::new(dims.to_vec())))
        };
        Ok(Shape { dims, num_elements })
    }

    fn inline(dims: &[usize]) -> Dims {
        let mut a = [0; INLINE_RANK];
        a[..dims.len()].copy_from_slice(dims);
        Dims::Inline(dims.len() as u8, a)
    }

    fn count(dims: &[usize]) -> Result<usize> {
        if dims.len() > MAX_RANK {
            return Err(rank_error(dims.len()));
        }
        let mut n: usize = 1;
        for &d in dims {
            n = n
                .checked_mul(d)
                .filter(|&n| n <= MAX_ELEMENTS)
                .ok_or_else(|| {
                    resource_exhausted(format!(
                        "shape {dims:?} has too many elements to allocate (at most \
                         {MAX_ELEMENTS} in one tensor)"
                    ))
                })?;
        }
        Ok(n)
    }

    /// From signed dims as they come from JSON/JS; negative dims are an error here.
    pub fn from_i64(dims: &[i64]) -> Result<Shape> {
        if dims.len() > MAX_RANK {
            return Err(rank_error(dims.len()));
        }
        let mut out = Vec::with_capacity(dims.len());
        for &d in dims {
            if d < 0 {
                return Err(invalid_argument(format!(
                    "shape {dims:?} has a negative dimension"
                )));
            }
            out.push(usize::try_from(d).map_err(|_| {
                resource_exhausted(format!("dimension {d} in shape {dims:?} is too large"))
            })?);
        }
        Shape::new(out)
    }

    pub fn dims(&self) -> &[usize] {
        let (n, ptr) = match &self.dims {
            Dims::Inline(n, a) => (*n, a.as_ptr()),
            Dims::Heap(n, v) => (*n, v.0.as_ptr()),
        };
        // SAFETY: `n` dims are initialized behind `ptr`: both are set together when the shape is
        // made (`inline`: n <= INLINE_RANK elements of the array; the heap: n is the Vec's length,
        // at most MAX_RANK, checked by `count` first) and never change; the slice borrows `self`,
        // which owns the array or the Vec.
        unsafe { std::slice::from_raw_parts(ptr, n as usize) }
    }

    pub fn rank(&self) -> usize {
        self.dims().len()
    }

    pub fn num_elements(&self) -> usize {
        self.num_elements
    }

    pub fn dim(&self, i: usize) -> usize {
        self.dims()[i]
    }

    /// Normalizes a possibly negative axis against `rank` (TF semantics), or fails naming the range.
    pub fn normalize_axis(axis: i64, rank: usize) -> Result<usize> {
        let r = rank as i64;
        if axis < -r || axis >= r {
            return Err(invalid_argument(format!(
                "axis {axis} is out of range for a tensor of rank {rank} (expected [-{rank}, {rank}))"
            )));
        }
        Ok(if axis < 0 { axis + r } else { axis } as usize)
    }

    /// Row-major strides in elements.
    pub fn strides(&self) -> Vec<usize> {
        let dims = self.dims();
        let mut s = vec![1usize; dims.len()];
        for i in (0..dims.len().saturating_sub(1)).rev() {
            s[i] = s[i + 1] * dims[i + 1];
        }
        s
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.dims())
    }
}
