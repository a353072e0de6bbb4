//! Validated tensor shapes: non-negative dims whose element count fits, checked without overflow.

use crate::status::{invalid_argument, resource_exhausted, Result};

/// Upper bound on elements of one tensor: `elements * 8` (the widest dtype) never overflows
/// `isize`, so byte sizes can be computed unchecked once a shape exists. Allocation is checked again.
pub const MAX_ELEMENTS: usize = (isize::MAX as usize) / 8;

#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Shape {
    dims: Vec<usize>,
    num_elements: usize,
}

impl Shape {
    pub fn scalar() -> Shape {
        Shape {
            dims: Vec::new(),
            num_elements: 1,
        }
    }

    /// From dims that are already non-negative; fails if the element count overflows.
    pub fn new(dims: Vec<usize>) -> Result<Shape> {
        let mut n: usize = 1;
        for &d in &dims {
            n = n
                .checked_mul(d)
                .filter(|&n| n <= MAX_ELEMENTS)
                .ok_or_else(|| {
                    resource_exhausted(format!("shape {dims:?} has too many elements to allocate"))
                })?;
        }
        Ok(Shape {
            dims,
            num_elements: n,
        })
    }

    /// From signed dims as they come from JSON/JS; negative dims are an error here.
    pub fn from_i64(dims: &[i64]) -> Result<Shape> {
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
        &self.dims
    }

    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    pub fn num_elements(&self) -> usize {
        self.num_elements
    }

    pub fn dim(&self, i: usize) -> usize {
        self.dims[i]
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
        let mut s = vec![1usize; self.dims.len()];
        for i in (0..self.dims.len().saturating_sub(1)).rev() {
            s[i] = s[i + 1] * self.dims[i + 1];
        }
        s
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.dims)
    }
}
