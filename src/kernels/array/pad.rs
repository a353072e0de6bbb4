//! Growing a tensor: Pad/PadV2 (constant), MirrorPad (REFLECT/SYMMETRIC) and Tile. Each copies
//! whole input rows where it can.

use super::assemble::{assemble, zero_scalar, Emit, OUT};
use super::{int_vector, paddings, to_dim};
use crate::ops::def::{ANY, INDEX};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, unimplemented, Result};
use crate::tensor::{try_alloc, DType, Shape, Tensor};

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
            .strings_by_index()
            .input("input", "T")
            .input("paddings", "Tpaddings")
            .type_attr("T", ANY)
            .type_attr_default("Tpaddings", INDEX, DType::Int32)
            .enum_attr("mode", &["REFLECT", "SYMMETRIC"], None),
    );
    reg.add(
        OpBuilder::new("Tile", Simple(tile))
            .strings_by_index()
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

/// Emits the padded block of `dims[d..]` (input offset `off`) in output order: source 0 is the
/// input, source 1 the pad value; `ostrides` are the output's strides.
fn emit_padded(
    emit: &mut Emit<'_>,
    dims: &[usize],
    istrides: &[usize],
    ostrides: &[usize],
    pads: &[(usize, usize)],
    d: usize,
    off: usize,
) {
    let (before, after) = pads[d];
    emit(1, 0, before * ostrides[d], 0);
    if pads[d + 1..].iter().all(|&p| p == (0, 0)) {
        // No padding inside this dim (always so for the last): its block is one contiguous run
        // in both tensors (an image padded in height and width copies whole rows, not pixels).
        emit(0, off, dims[d] * istrides[d], 1);
    } else {
        for i in 0..dims[d] {
            emit_padded(
                emit,
                dims,
                istrides,
                ostrides,
                pads,
                d + 1,
                off + i * istrides[d],
            );
        }
    }
    emit(1, 0, after * ostrides[d], 0);
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
        return Ok(crate::ops::one_output(x.clone()));
    }
    if let Some((&(before, _), outer)) = pads.split_last() {
        if x.dtype() == DType::Float32 && inputs.len() == 2 && outer.iter().all(|&p| p == (0, 0)) {
            return Ok(crate::ops::one_output(pad_last_f32(x, before, shape)?));
        }
    }
    let zero;
    let value = match inputs.get(2) {
        Some(c) => c,
        None => {
            zero = zero_scalar(x.dtype())?;
            &zero
        }
    };
    let (istrides, ostrides) = (x.shape().strides(), shape.strides());
    Ok(crate::ops::one_output(assemble(
        &[x, value],
        x.dtype(),
        shape,
        &mut |emit| emit_padded(emit, x.dims(), &istrides, &ostrides, &pads, 0, 0),
    )?))
}

/// Zeros around the last axis only (a residual's channel padding): whole rows copied into a
/// zeroed output instead of two short runs per row through the copy engine.
fn pad_last_f32(x: &Tensor, before: usize, shape: Shape) -> Result<Tensor> {
    let xs = x.f32s()?;
    let mut out = try_alloc::<f32>(shape.num_elements())?;
    let (c, oc) = (x.dims().last(), shape.dims().last());
    if let (Some(&c), Some(&oc)) = (c, oc) {
        if c > 0 {
            for (o, i) in out.chunks_exact_mut(oc).zip(xs.chunks_exact(c)) {
                if let Some(o) = o.get_mut(before..before + c) {
                    o.copy_from_slice(i);
                }
            }
        }
    }
    Tensor::from_vec(shape, out)
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
        return Ok(crate::ops::one_output(x.clone()));
    }
    let maps: Vec<Vec<usize>> = x
        .dims()
        .iter()
        .zip(&pads)
        .map(|(&d, &(b, af))| mirror_map(d, b, af, symmetric))
        .collect();
    let istrides = x.shape().strides();
    let odims = shape.dims();
    let n = shape.num_elements();
    Ok(crate::ops::one_output(assemble(
        &[x],
        x.dtype(),
        shape.clone(),
        &mut |emit| {
            if n > 0 {
                // Rows along the last padded dim; the unpadded dims inside it move as blocks of
                // `inner` (an image padded in height and width: whole pixels, and the unmirrored
                // part of each row in one run).
                let k = pads
                    .iter()
                    .rposition(|&p| p != (0, 0))
                    .map_or(rank, |d| d + 1);
                let inner: usize = crate::kernels::num::prod(&x.dims()[k..]);
                let (row_before, row) = (pads[k - 1].0, x.dims()[k - 1]);
                let last = &maps[k - 1];
                let mut idx = vec![0usize; k - 1];
                let rows: usize = crate::kernels::num::prod(&odims[..k - 1]);
                for _ in 0..rows {
                    let base: usize = (0..k - 1).map(|d| maps[d][idx[d]] * istrides[d]).sum();
                    for &m in &last[..row_before] {
                        emit(0, base + m * inner, inner, 1);
                    }
                    emit(0, base, row * inner, 1);
                    for &m in &last[row_before + row..] {
                        emit(0, base + m * inner, inner, 1);
                    }
                    // Next output row: an odometer over the dims before the row's.
                    for d in (0..k - 1).rev() {
                        idx[d] += 1;
                        if idx[d] < odims[d] {
                            break;
                        }
                        idx[d] = 0;
                    }
                }
            }
        },
    )?))
}

/// Emits the block of shape `dims[d..]` at input offset `off`, tiled by `mult[d..]`; repeats
/// of a finished block are copied from the output itself. `pos` is the output length so far.
fn emit_tiled(
    emit: &mut Emit<'_>,
    dims: &[usize],
    strides: &[usize],
    mult: &[usize],
    d: usize,
    off: usize,
    pos: &mut usize,
) {
    let start = *pos;
    if d + 1 == dims.len() {
        for _ in 0..mult[d] {
            emit(0, off, dims[d], 1);
            *pos += dims[d];
        }
        return;
    }
    if mult[d] == 0 {
        return;
    }
    for i in 0..dims[d] {
        emit_tiled(emit, dims, strides, mult, d + 1, off + i * strides[d], pos);
    }
    let block = *pos - start;
    for _ in 1..mult[d] {
        emit(OUT, start, block, 1);
        *pos += block;
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
        return Ok(crate::ops::one_output(x.clone()));
    }
    let n = shape.num_elements();
    let strides = x.shape().strides();
    Ok(crate::ops::one_output(assemble(
        &[x],
        x.dtype(),
        shape,
        &mut |emit| {
            if n > 0 {
                emit_tiled(emit, x.dims(), &strides, &mult, 0, 0, &mut 0);
            }
        },
    )?))
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
        let x = Tensor::from_slice(&[2, 2], &[1i32, 2, 3, 4]).unwrap();
        let shape = Shape::new(vec![4, 4]).unwrap();
        let t = assemble(&[&x], DType::Int32, shape, &mut |emit| {
            emit_tiled(emit, &[2, 2], &[2, 1], &[2, 2], 0, 0, &mut 0)
        })
        .unwrap();
        assert_eq!(
            t.as_slice::<i32>().unwrap(),
            &[1, 2, 1, 2, 3, 4, 3, 4, 1, 2, 1, 2, 3, 4, 3, 4]
        );
        let zero = zero_scalar(DType::Int32).unwrap();
        let shape = Shape::new(vec![3, 4]).unwrap();
        let p = assemble(&[&x, &zero], DType::Int32, shape, &mut |emit| {
            emit_padded(emit, &[2, 2], &[2, 1], &[4, 1], &[(1, 0), (1, 1)], 0, 0)
        })
        .unwrap();
        assert_eq!(
            p.as_slice::<i32>().unwrap(),
            &[0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0]
        );
    }

    #[test]
    fn last_axis_f32_path_matches_the_copy_engine() {
        let x: Vec<f32> = (0..12).map(|v| v as f32 + 0.5).collect();
        let x = Tensor::from_slice(&[2, 3, 2], &x).unwrap();
        for (b, a) in [(0, 3), (2, 1), (1, 0)] {
            let pads = [(0, 0), (0, 0), (b, a)];
            let shape = padded_shape(x.dims(), &pads).unwrap();
            let fast = pad_last_f32(&x, b, shape.clone()).unwrap();
            let zero = zero_scalar(DType::Float32).unwrap();
            let (is, os) = (x.shape().strides(), shape.strides());
            let slow = assemble(&[&x, &zero], DType::Float32, shape, &mut |emit| {
                emit_padded(emit, x.dims(), &is, &os, &pads, 0, 0)
            })
            .unwrap();
            assert_eq!(fast.dims(), slow.dims());
            assert_eq!(fast.f32s().unwrap(), slow.f32s().unwrap(), "pads {b} {a}");
        }
    }
}
