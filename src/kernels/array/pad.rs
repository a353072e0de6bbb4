//! Growing a tensor: Pad/PadV2 (constant), MirrorPad (REFLECT/SYMMETRIC) and Tile. Each copies
//! whole input rows where it can.

use super::super::{KernelContext, KernelFactory::Simple};
use super::strided::for_each_base;
use super::{int_vector, output, paddings, to_dim};
use crate::ops::def::{ANY, INDEX};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, unimplemented, Result};
use crate::tensor::{try_with_capacity, DType, Element, Shape, Tensor};
use crate::with_dtype;

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("Pad", Simple(pad))
            .input("input", "T")
            .input("paddings", "Tpaddings")
            .type_attr("T", ANY)
            .type_attr_default("Tpaddings", INDEX, DType::Int32),
    );
    reg.add(
        OpBuilder::new("PadV2", Simple(pad))
            .input("input", "T")
            .input("paddings", "Tpaddings")
            .input("constant_values", "T")
            .type_attr("T", ANY)
            .type_attr_default("Tpaddings", INDEX, DType::Int32),
    );
    reg.add(
        OpBuilder::new("MirrorPad", Simple(mirror_pad))
            .input("input", "T")
            .input("paddings", "Tpaddings")
            .type_attr("T", ANY)
            .type_attr_default("Tpaddings", INDEX, DType::Int32)
            .enum_attr("mode", &["REFLECT", "SYMMETRIC"], None),
    );
    reg.add(
        OpBuilder::new("Tile", Simple(tile))
            .input("input", "T")
            .input("multiples", "Tmultiples")
            .type_attr("T", ANY)
            .type_attr_default("Tmultiples", INDEX, DType::Int32),
    );
}

fn padded_shape(dims: &[usize], pads: &[(usize, usize)]) -> Result<Shape> {
    let mut out = Vec::with_capacity(dims.len());
    for (&d, &(b, a)) in dims.iter().zip(pads) {
        out.push(
            d.checked_add(b)
                .and_then(|x| x.checked_add(a))
                .ok_or_else(|| invalid_argument("padded dimension overflows"))?,
        );
    }
    Shape::new(out)
}

/// Constant padding: fill the output with `value`, then copy each input row into place.
fn pad_constant<T: Element>(
    src: &[T],
    dims: &[usize],
    pads: &[(usize, usize)],
    shape: &Shape,
    value: T,
) -> Result<Vec<T>> {
    let mut out = try_with_capacity::<T>(shape.num_elements())?;
    out.resize(shape.num_elements(), value);
    let k = dims.len();
    if src.is_empty() || k == 0 {
        return Ok(out);
    }
    let ostrides = shape.strides();
    let start: usize = pads.iter().zip(&ostrides).map(|(p, s)| p.0 * s).sum();
    let row = dims[k - 1];
    let strides: Vec<isize> = ostrides[..k - 1].iter().map(|&s| s as isize).collect();
    let mut i = 0usize;
    for_each_base(start as isize, &dims[..k - 1], &strides, |b| {
        let b = b as usize;
        out[b..b + row].copy_from_slice(&src[i..i + row]);
        i += row;
    });
    Ok(out)
}

fn pad(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let x = &inputs[0];
    let pads = paddings(&inputs[1], x.rank())?;
    let shape = padded_shape(x.dims(), &pads)?;
    if let Some(c) = inputs.get(2) {
        if c.num_elements() != 1 || c.rank() != 0 {
            return Err(invalid_argument(format!(
                "PadV2: input 'constant_values' must be a scalar, got shape {}",
                c.shape()
            )));
        }
    }
    if pads.iter().all(|&p| p == (0, 0)) {
        return Ok(vec![x.clone()]);
    }
    with_dtype!(x.dtype(), T, {
        let value = match inputs.get(2) {
            Some(c) => c.as_slice::<T>()?[0],
            None => T::default(),
        };
        let out = pad_constant(x.as_slice::<T>()?, x.dims(), &pads, &shape, value)?;
        Ok(vec![output(shape, out)?])
    })
}

/// For each output position along one dim, the input position it mirrors.
fn mirror_map(dim: usize, before: usize, after: usize, symmetric: bool) -> Vec<usize> {
    let (d, b) = (dim as i64, before as i64);
    let off = i64::from(!symmetric);
    (0..(dim + before + after) as i64)
        .map(|o| {
            let i = o - b;
            let m = if i < 0 {
                -i - 1 + off
            } else if i >= d {
                2 * d - 1 - off - i
            } else {
                i
            };
            m as usize
        })
        .collect()
}

fn mirror_pad(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let x = &inputs[0];
    let rank = x.rank();
    if rank > 5 {
        return Err(unimplemented(format!(
            "MirrorPad: inputs rank not in [0,5]: {rank}"
        )));
    }
    let symmetric = a.string("mode")? == "SYMMETRIC";
    let pads = paddings(&inputs[1], rank)?;
    for (&d, &(b, af)) in x.dims().iter().zip(&pads) {
        if symmetric && (b > d || af > d) {
            return Err(invalid_argument(format!(
                "MirrorPad: paddings must be no greater than the dimension size: {b}, {af} \
                 greater than {d}"
            )));
        }
        if !symmetric && (b >= d || af >= d) {
            return Err(invalid_argument(format!(
                "MirrorPad: paddings must be less than the dimension size: {b}, {af} not less \
                 than {d}"
            )));
        }
    }
    let shape = padded_shape(x.dims(), &pads)?;
    if pads.iter().all(|&p| p == (0, 0)) {
        return Ok(vec![x.clone()]);
    }
    let maps: Vec<Vec<usize>> = x
        .dims()
        .iter()
        .zip(&pads)
        .map(|(&d, &(b, af))| mirror_map(d, b, af, symmetric))
        .collect();
    let istrides = x.shape().strides();
    let odims = shape.dims();
    with_dtype!(x.dtype(), T, {
        let src = x.as_slice::<T>()?;
        let mut out = try_with_capacity::<T>(shape.num_elements())?;
        if shape.num_elements() > 0 {
            let k = rank;
            let (row_before, row) = (pads[k - 1].0, x.dims()[k - 1]);
            let last = &maps[k - 1];
            let mut idx = vec![0usize; k - 1];
            let rows: usize = odims[..k - 1].iter().product();
            for _ in 0..rows {
                let base: usize = (0..k - 1).map(|d| maps[d][idx[d]] * istrides[d]).sum();
                let r = &src[base..base + row];
                out.extend(last[..row_before].iter().map(|&m| r[m]));
                out.extend_from_slice(r);
                out.extend(last[row_before + row..].iter().map(|&m| r[m]));
                // Next output row: an odometer over all but the last dim.
                for d in (0..k - 1).rev() {
                    idx[d] += 1;
                    if idx[d] < odims[d] {
                        break;
                    }
                    idx[d] = 0;
                }
            }
        }
        Ok(vec![output(shape, out)?])
    })
}

/// Appends `src` (a block of shape `dims[d..]` starting at `off`) tiled by `mult[d..]` to `out`.
fn tile_into<T: Element>(
    src: &[T],
    dims: &[usize],
    strides: &[usize],
    mult: &[usize],
    d: usize,
    off: usize,
    out: &mut Vec<T>,
) {
    let start = out.len();
    if d + 1 == dims.len() {
        let row = &src[off..off + dims[d]];
        for _ in 0..mult[d] {
            out.extend_from_slice(row);
        }
        return;
    }
    if mult[d] == 0 {
        return;
    }
    for i in 0..dims[d] {
        tile_into(src, dims, strides, mult, d + 1, off + i * strides[d], out);
    }
    let block = out.len() - start;
    for _ in 1..mult[d] {
        out.extend_from_within(start..start + block);
    }
}

fn tile(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let x = &inputs[0];
    let m = int_vector(&inputs[1], "Tile input 'multiples'")?;
    if m.len() != x.rank() {
        return Err(invalid_argument(format!(
            "Tile: expected input 'multiples' to be a vector of length {}, but got length {}",
            x.rank(),
            m.len()
        )));
    }
    let mut mult = Vec::with_capacity(m.len());
    let mut dims = Vec::with_capacity(m.len());
    for (i, (&mi, &d)) in m.iter().zip(x.dims()).enumerate() {
        let mi = to_dim(mi, &format!("Tile: multiples[{i}]"))?;
        mult.push(mi);
        dims.push(
            d.checked_mul(mi)
                .ok_or_else(|| invalid_argument("Tile: output dimension overflows"))?,
        );
    }
    let shape = Shape::new(dims)?;
    if mult.iter().all(|&v| v == 1) {
        return Ok(vec![x.clone()]);
    }
    with_dtype!(x.dtype(), T, {
        let src = x.as_slice::<T>()?;
        let mut out = try_with_capacity::<T>(shape.num_elements())?;
        if shape.num_elements() > 0 {
            let strides = x.shape().strides();
            tile_into(src, x.dims(), &strides, &mult, 0, 0, &mut out);
        }
        Ok(vec![output(shape, out)?])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_maps() {
        // [1,2,3] REFLECT pad (2,2): 3 2 1 2 3 2 1
        assert_eq!(mirror_map(3, 2, 2, false), vec![2, 1, 0, 1, 2, 1, 0]);
        // SYMMETRIC pad (2,2): 2 1 1 2 3 3 2
        assert_eq!(mirror_map(3, 2, 2, true), vec![1, 0, 0, 1, 2, 2, 1]);
    }

    #[test]
    fn tiles_and_pads() {
        let src = [1, 2, 3, 4];
        let mut out = Vec::new();
        tile_into(&src, &[2, 2], &[2, 1], &[2, 2], 0, 0, &mut out);
        assert_eq!(out, vec![1, 2, 1, 2, 3, 4, 3, 4, 1, 2, 1, 2, 3, 4, 3, 4]);
        let shape = Shape::new(vec![3, 4]).unwrap();
        let p = pad_constant(&src, &[2, 2], &[(1, 0), (1, 1)], &shape, 0).unwrap();
        assert_eq!(p, vec![0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0]);
    }
}
