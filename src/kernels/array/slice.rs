//! Slice and StridedSlice. StridedSlice's mask handling follows TF's ValidateStridedSliceOp
//! (sparse spec -> dense spec -> canonical, clamped bounds) so shapes and errors match TF.

use super::{gather_strided, int_vector};
use crate::ops::def::{ANY, INDEX};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{Shape, Tensor};

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("Slice", Simple(slice))
            .strings_by_index()
            .input("input", "T")
            .input("begin", "Index")
            .input("size", "Index")
            .type_attr("T", ANY)
            .type_attr("Index", INDEX),
    );
    reg.add(
        OpBuilder::new("StridedSlice", Simple(strided_slice))
            .strings_by_index()
            .input("input", "T")
            .input("begin", "Index")
            .input("end", "Index")
            .input("strides", "Index")
            .type_attr("T", ANY)
            .type_attr("Index", INDEX)
            .int_attr("begin_mask", Some(0))
            .int_attr("end_mask", Some(0))
            .int_attr("ellipsis_mask", Some(0))
            .int_attr("new_axis_mask", Some(0))
            .int_attr("shrink_axis_mask", Some(0)),
    );
}

/// Copies the box `begin[d] + i_d * step[d]` for `i_d < sizes[d]` out of `x` as a tensor of `shape`
/// (which has the same element count as `sizes`).
fn copy_view(
    x: &Tensor,
    begin: &[i64],
    step: &[i64],
    sizes: &[usize],
    shape: Shape,
) -> Result<Tensor> {
    let in_strides = x.shape().strides();
    let empty = sizes.contains(&0);
    let mut offset: isize = 0;
    let mut strides = Vec::with_capacity(sizes.len());
    for d in 0..sizes.len() {
        if !empty {
            offset += begin[d] as isize * in_strides[d] as isize;
        }
        strides.push(step[d] as isize * in_strides[d] as isize);
    }
    gather_strided(x, offset, sizes, &strides, shape)
}

fn slice(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let x = &inputs[0];
    let rank = x.rank();
    let (bt, st) = (&inputs[1], &inputs[2]);
    if bt.rank() != 1 || st.rank() != 1 || bt.num_elements() != rank || st.num_elements() != rank {
        return Err(invalid_argument(format!(
            "Slice: expected inputs 'begin' and 'size' to be 1-D tensors of size {rank}, but got \
             shapes {} and {} instead",
            bt.shape(),
            st.shape()
        )));
    }
    let begin = int_vector(bt, "Slice input 'begin'")?;
    let size = int_vector(st, "Slice input 'size'")?;
    let mut sizes = Vec::with_capacity(rank);
    for i in 0..rank {
        let dim = x.dims()[i] as i64;
        let b = begin[i];
        let mut s = size[i];
        if dim == 0 {
            if b != 0 || (s != 0 && s != -1) {
                return Err(invalid_argument(format!(
                    "Slice: expected begin[{i}] == 0 (got {b}) and size[{i}] == 0 (got {s}) when \
                     input.dim_size({i}) == 0"
                )));
            }
            s = 0;
        } else {
            if b < 0 || b > dim {
                return Err(invalid_argument(format!(
                    "Slice: expected begin[{i}] in [0, {dim}], but got {b}"
                )));
            }
            if s == -1 {
                s = dim - b;
            }
            if s < 0 || s > dim - b {
                return Err(invalid_argument(format!(
                    "Slice: expected size[{i}] in [0, {}], but got {s}",
                    dim - b
                )));
            }
        }
        sizes.push(s as usize);
    }
    if sizes == x.dims() {
        return Ok(crate::ops::one_output(x.clone()));
    }
    let shape = Shape::new(sizes.clone())?;
    Ok(crate::ops::one_output(copy_view(
        x,
        &begin,
        &vec![1; rank],
        &sizes,
        shape,
    )?))
}

/// The five StridedSlice masks.
#[derive(Debug, Clone, Copy, Default)]
pub struct SliceMasks {
    pub begin: i64,
    pub end: i64,
    pub ellipsis: i64,
    pub new_axis: i64,
    pub shrink_axis: i64,
}

/// A validated strided slice: per input dim, the canonical begin, stride and element count
/// (the processing shape), and the output shape after new axes and shrinks.
#[derive(Debug, PartialEq)]
pub struct StridedSpec {
    pub begin: Vec<i64>,
    pub strides: Vec<i64>,
    pub sizes: Vec<usize>,
    pub final_dims: Vec<usize>,
    pub is_identity: bool,
}

/// Where a final dim comes from.
#[derive(Clone, Copy)]
enum Gather {
    Dim(usize),
    NewAxis,
    Shrink,
}

fn bit(mask: i64, i: usize) -> bool {
    i < 63 && (mask >> i) & 1 == 1
}

/// TF's ValidateStridedSliceOp for known shapes: expands the sparse spec (with its ellipsis and
/// new axes) against `dims`, canonicalizes and clamps every range, and derives the shapes.
pub fn strided_spec(
    dims: &[usize],
    begin: &[i64],
    end: &[i64],
    strides: &[i64],
    m: SliceMasks,
) -> Result<StridedSpec> {
    let n = strides.len();
    if begin.len() != n || end.len() != n || n >= 32 {
        return Err(invalid_argument(format!(
            "StridedSlice: expected begin, end, and strides to be 1-D equal size tensors (of \
             fewer than 32 elements), but got sizes {}, {} and {n}",
            begin.len(),
            end.len()
        )));
    }
    if m.ellipsis != 0 && (m.ellipsis & (m.ellipsis - 1)) != 0 {
        return Err(invalid_argument(
            "StridedSlice: multiple ellipses in slice spec (attr 'ellipsis_mask') not allowed",
        ));
    }
    // Sparse spec: count new axes after the ellipsis; add an implicit trailing ellipsis.
    let mut sparse_dims = n;
    let mut ellipsis = m.ellipsis;
    let mut ellipsis_seen = false;
    let mut new_after_ellipsis = 0usize;
    for i in 0..n {
        if ellipsis_seen && bit(m.new_axis, i) {
            new_after_ellipsis += 1;
        }
        if bit(ellipsis, i) {
            ellipsis_seen = true;
        }
    }
    if !ellipsis_seen {
        ellipsis |= 1 << n;
        sparse_dims += 1;
    }
    // Dense spec: one entry per input dim.
    let rank = dims.len();
    let mut d_begin = vec![0i64; rank];
    let mut d_end = vec![0i64; rank];
    let mut d_strides = vec![1i64; rank];
    let mut d_begin_mask = vec![false; rank];
    let mut d_end_mask = vec![false; rank];
    let mut d_shrink = vec![false; rank];
    let mut gather: Vec<Gather> = Vec::with_capacity(sparse_dims + rank);
    let mut full = 0usize;
    for i in 0..sparse_dims {
        if bit(ellipsis, i) {
            let next =
                (rank as i64 - (sparse_dims as i64 - i as i64) + 1 + new_after_ellipsis as i64)
                    .min(rank as i64);
            while (full as i64) < next {
                d_begin[full] = 0;
                d_end[full] = 0;
                d_strides[full] = 1;
                d_begin_mask[full] = true;
                d_end_mask[full] = true;
                gather.push(Gather::Dim(full));
                full += 1;
            }
        } else if bit(m.new_axis, i) {
            gather.push(Gather::NewAxis);
        } else {
            if full == rank {
                return Err(invalid_argument(format!(
                    "StridedSlice: index out of range using input dim {full}; input has only \
                     {rank} dims"
                )));
            }
            d_begin[full] = begin[i];
            d_end[full] = end[i];
            d_strides[full] = strides[i];
            d_begin_mask[full] = bit(m.begin, i);
            d_end_mask[full] = bit(m.end, i);
            if bit(m.shrink_axis, i) {
                gather.push(Gather::Shrink);
                d_shrink[full] = true;
            } else {
                gather.push(Gather::Dim(full));
            }
            full += 1;
        }
    }
    // Canonicalize and clamp, and compute the processing shape.
    let mut is_identity = true;
    let mut sizes = Vec::with_capacity(rank);
    for i in 0..rank {
        let dim = dims[i] as i64;
        let stride = d_strides[i];
        if stride == 0 {
            return Err(invalid_argument(format!(
                "StridedSlice: strides[{i}] must be non-zero"
            )));
        }
        if d_shrink[i] && stride <= 0 {
            return Err(invalid_argument(
                "StridedSlice: only stride 1 allowed on non-range indexing",
            ));
        }
        let valid = if stride > 0 { [0, dim] } else { [-1, dim - 1] };
        let canonical = |x: i64, c: usize, masked: bool| -> i64 {
            if masked {
                if stride > 0 {
                    valid[c]
                } else {
                    valid[(c + 1) & 1]
                }
            } else {
                let fwd = if x < 0 { dim.saturating_add(x) } else { x };
                fwd.clamp(valid[0], valid[1])
            }
        };
        if d_shrink[i] {
            let fwd = if d_begin[i] < 0 {
                dim.saturating_add(d_begin[i])
            } else {
                d_begin[i]
            };
            if fwd < 0 || fwd >= dim {
                return Err(invalid_argument(format!(
                    "StridedSlice: slice index {} of dimension {i} out of bounds",
                    d_begin[i]
                )));
            }
            d_begin[i] = fwd;
            d_end[i] = fwd + 1;
        } else {
            d_begin[i] = canonical(d_begin[i], 0, d_begin_mask[i]);
            d_end[i] = canonical(d_end[i], 1, d_end_mask[i]);
        }
        is_identity &= stride == 1 && d_begin[i] == 0 && d_end[i] == dim;
        let len = d_end[i] - d_begin[i];
        let size = if len == 0 || ((len < 0) != (stride < 0)) {
            0
        } else {
            // Ceil division of same-signed values.
            len / stride + i64::from(len % stride != 0)
        };
        sizes.push(size as usize);
    }
    let mut final_dims = Vec::with_capacity(gather.len());
    for g in gather {
        match g {
            Gather::Dim(d) => final_dims.push(sizes[d]),
            Gather::NewAxis => final_dims.push(1),
            Gather::Shrink => {}
        }
    }
    Ok(StridedSpec {
        begin: d_begin,
        strides: d_strides,
        sizes,
        final_dims,
        is_identity,
    })
}

fn strided_slice(
    a: &NodeAttrs,
    _: &mut KernelContext<'_>,
    inputs: &[Tensor],
) -> Result<Vec<Tensor>> {
    let x = &inputs[0];
    let (bt, et, st) = (&inputs[1], &inputs[2], &inputs[3]);
    if bt.rank() != 1 || et.rank() != 1 || st.rank() != 1 {
        return Err(invalid_argument(format!(
            "StridedSlice: expected begin, end, and strides to be 1-D equal size tensors, but got \
             shapes {}, {}, and {} instead",
            bt.shape(),
            et.shape(),
            st.shape()
        )));
    }
    let masks = SliceMasks {
        begin: a.int("begin_mask")?,
        end: a.int("end_mask")?,
        ellipsis: a.int("ellipsis_mask")?,
        new_axis: a.int("new_axis_mask")?,
        shrink_axis: a.int("shrink_axis_mask")?,
    };
    let spec = strided_spec(
        x.dims(),
        &bt.to_i64_vec()?,
        &et.to_i64_vec()?,
        &st.to_i64_vec()?,
        masks,
    )?;
    let shape = Shape::new(spec.final_dims)?;
    if spec.is_identity {
        return Ok(crate::ops::one_output(x.reshaped(shape)?));
    }
    Ok(crate::ops::one_output(copy_view(
        x,
        &spec.begin,
        &spec.strides,
        &spec.sizes,
        shape,
    )?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(dims: &[usize], b: &[i64], e: &[i64], s: &[i64], m: SliceMasks) -> StridedSpec {
        strided_spec(dims, b, e, s, m).unwrap()
    }

    #[test]
    fn basic_and_negative() {
        // x[1:3] on [5]
        let r = spec(&[5], &[1], &[3], &[1], SliceMasks::default());
        assert_eq!(
            (r.begin, r.sizes, r.final_dims),
            (vec![1], vec![2], vec![2])
        );
        // x[::-1] on [5]
        let m = SliceMasks {
            begin: 1,
            end: 1,
            ..Default::default()
        };
        let r = spec(&[5], &[0], &[0], &[-1], m);
        assert_eq!((r.begin, r.sizes), (vec![4], vec![5]));
        // x[-1] on [4, 3]: shrink, remaining dim kept.
        let m = SliceMasks {
            shrink_axis: 1,
            ..Default::default()
        };
        let r = spec(&[4, 3], &[-1], &[0], &[1], m);
        assert_eq!((r.begin, r.final_dims), (vec![3, 0], vec![3]));
        // Out-of-range bounds clamp: x[-10:10:2] on [5].
        let r = spec(&[5], &[-10], &[10], &[2], SliceMasks::default());
        assert_eq!((r.begin, r.sizes), (vec![0], vec![3]));
    }

    #[test]
    fn ellipsis_and_new_axis() {
        // x[..., 1:2, tf.newaxis] on [2, 3, 4]
        let m = SliceMasks {
            ellipsis: 1,
            new_axis: 4,
            ..Default::default()
        };
        let r = spec(&[2, 3, 4], &[0, 1, 0], &[0, 2, 0], &[1, 1, 1], m);
        assert_eq!(r.final_dims, vec![2, 3, 1, 1]);
        // x[tf.newaxis] on [2]: new axis, then the implicit ellipsis keeps dim 0.
        let m = SliceMasks {
            new_axis: 1,
            ..Default::default()
        };
        let r = spec(&[2], &[0], &[0], &[1], m);
        assert_eq!(r.final_dims, vec![1, 2]);
        assert!(r.is_identity);
    }

    #[test]
    fn errors() {
        let d = SliceMasks::default();
        assert!(strided_spec(&[5], &[0], &[1], &[0], d).is_err());
        let m = SliceMasks {
            shrink_axis: 1,
            ..Default::default()
        };
        assert!(strided_spec(&[5], &[5], &[6], &[1], m).is_err());
        assert!(strided_spec(&[5], &[0, 0], &[1, 1], &[1, 1], d).is_err());
        let m = SliceMasks {
            ellipsis: 3,
            ..Default::default()
        };
        assert!(strided_spec(&[5, 5], &[0, 0], &[1, 1], &[1, 1], m).is_err());
    }
}
