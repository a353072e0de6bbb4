//! The rarer array ops TF.js models carry: BroadcastTo/BroadcastArgs, ReverseV2/Reverse, OneHot,
//! LinSpace, ShapeN, DepthToSpace/SpaceToDepth, the v1 forms Concat and Gather, and the
//! pass-throughs EnsureShape, Print and PlaceholderWithDefault. Data moves through the strided
//! copy (`gather_strided`) or `assemble`, so nothing here is instantiated per dtype.

use super::assemble::assemble;
use super::{gather, gather_strided, int_scalar, int_vector, to_dim};
use crate::kernels::num::{int_tensor, prod};
use crate::ops::def::{ANY, FLOAT, INDEX};
use crate::ops::{AttrDefault, AttrType, NodeAttrs, OpBuilder, Registry};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_with_capacity, DType, Shape, Tensor};

type Outputs = Result<Vec<Tensor>>;

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("BroadcastTo", Simple(broadcast_to))
            .strings_by_index()
            .input("input", "T")
            .input("shape", "Tidx")
            .type_attr("T", ANY)
            .type_attr_default("Tidx", INDEX, DType::Int32),
    );
    reg.add(
        OpBuilder::new("BroadcastArgs", Simple(broadcast_args))
            .input("s0", "T")
            .input("s1", "T")
            .type_attr_default("T", INDEX, DType::Int32),
    );
    reg.add(
        OpBuilder::new("ReverseV2", Simple(reverse_v2))
            .strings_by_index()
            .input("tensor", "T")
            .input("axis", "Tidx")
            .type_attr_default("Tidx", INDEX, DType::Int32)
            .type_attr("T", ANY),
    );
    reg.add(
        OpBuilder::new("Reverse", Simple(reverse_v1))
            .input("tensor", "T")
            .fixed_input("dims", DType::Bool)
            .type_attr("T", ANY),
    );
    reg.add(
        OpBuilder::new("OneHot", Simple(one_hot))
            .input("indices", "TI")
            .fixed_input("depth", DType::Int32)
            .input("on_value", "T")
            .input("off_value", "T")
            .int_attr("axis", Some(-1))
            .type_attr("T", ANY)
            .type_attr_default(
                "TI",
                &[DType::Int32, DType::Int64, DType::UInt8],
                DType::Int64,
            ),
    );
    reg.add(
        OpBuilder::new("LinSpace", Simple(lin_space))
            .input("start", "T")
            .input("stop", "T")
            .input("num", "Tidx")
            .type_attr("T", FLOAT)
            .type_attr_default("Tidx", INDEX, DType::Int32),
    );
    reg.add(
        OpBuilder::new("ShapeN", Simple(shape_n))
            .inputs_n("input", "N", "T")
            .type_attr("T", ANY)
            .type_attr_default("out_type", INDEX, DType::Int32),
    );
    for name in ["DepthToSpace", "SpaceToDepth"] {
        reg.add(
            OpBuilder::new(name, Simple(depth_space))
                .input("input", "T")
                .type_attr("T", ANY)
                .int_attr("block_size", None)
                .enum_attr(
                    "data_format",
                    &["NHWC", "NCHW", "NCHW_VECT_C"],
                    Some("NHWC"),
                ),
        );
    }
    reg.add(
        OpBuilder::new("Concat", Simple(concat_v1))
            .strings_by_index()
            .fixed_input("concat_dim", DType::Int32)
            .inputs_n_min("values", "N", "T", 2)
            .type_attr("T", ANY),
    );
    reg.add(
        OpBuilder::new("Gather", Simple(gather_v1))
            .strings_by_index()
            .input("params", "Tparams")
            .input("indices", "Tindices")
            .bool_attr("validate_indices", true)
            .type_attr("Tparams", ANY)
            .type_attr("Tindices", INDEX),
    );
    reg.add(
        OpBuilder::new("EnsureShape", Simple(ensure_shape))
            .input("input", "T")
            .attr("shape", AttrType::Shape, None)
            .type_attr("T", ANY),
    );
    reg.add(
        OpBuilder::new("PlaceholderWithDefault", Simple(first_input))
            .input("input", "dtype")
            .type_attr("dtype", ANY)
            .attr("shape", AttrType::Shape, Some(AttrDefault::UnknownShape)),
    );
    reg.add(
        OpBuilder::new("Print", Simple(first_input))
            .input("input", "T")
            .inputs_typed("data", "U")
            .type_attr("T", ANY)
            .string_attr("message", Some(""))
            .int_attr("first_n", Some(-1))
            .int_attr("summarize", Some(3)),
    );
}

fn first_input(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    Ok(crate::ops::one_output(inputs[0].clone()))
}

/// Row-major element strides of `dims`.
fn strides_of(dims: &[usize]) -> Vec<isize> {
    let mut s = vec![0isize; dims.len()];
    let mut acc = 1isize;
    for i in (0..dims.len()).rev() {
        s[i] = acc;
        acc *= dims[i] as isize;
    }
    s
}

fn dims_input(t: &Tensor, what: &str) -> Result<Vec<usize>> {
    int_vector(t, what)?
        .into_iter()
        .map(|d| to_dim(d, what))
        .collect()
}

pub(super) fn broadcast_to(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let x = &inputs[0];
    let out = dims_input(&inputs[1], "shape")?;
    let xd = x.dims();
    let fits = xd.len() <= out.len()
        && xd
            .iter()
            .zip(&out[out.len() - xd.len()..])
            .all(|(&a, &b)| a == b || a == 1);
    if !fits {
        return Err(invalid_argument(format!(
            "Unable to broadcast tensor of shape {} to tensor of shape {out:?}",
            x.shape()
        )));
    }
    if xd == out.as_slice() {
        return Ok(crate::ops::one_output(x.clone()));
    }
    let own = strides_of(xd);
    let off = out.len() - xd.len();
    let strides: Vec<isize> = (0..out.len())
        .map(|i| {
            if i < off || xd[i - off] == 1 {
                0
            } else {
                own[i - off]
            }
        })
        .collect();
    let shape = Shape::new(out.clone())?;
    Ok(crate::ops::one_output(gather_strided(
        x, 0, &out, &strides, shape,
    )?))
}

/// TF's BCast on the shape vectors themselves: equal dims, or a 1 against anything (a negative
/// dim included, as in TF).
fn broadcast_args(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let (s0, s1) = (int_vector(&inputs[0], "s0")?, int_vector(&inputs[1], "s1")?);
    let rank = s0.len().max(s1.len());
    let dim = |s: &[i64], k: usize| (k + s.len()).checked_sub(rank).map_or(1, |j| s[j]);
    let v = (0..rank)
        .map(|k| match (dim(&s0, k), dim(&s1, k)) {
            (x, y) if x == y || y == 1 => Ok(x),
            (1, y) => Ok(y),
            _ => Err(invalid_argument(format!(
                "Incompatible shapes: {s0:?} vs. {s1:?}"
            ))),
        })
        .collect::<Result<Vec<i64>>>()?;
    Ok(crate::ops::one_output(int_tensor(
        a.dtype("T")?,
        &[v.len()],
        &v,
    )?))
}

/// `x` with the dims flagged in `flip` reversed: a strided view with negative strides.
fn reverse_dims(x: &Tensor, flip: &[bool]) -> Result<Tensor> {
    let dims = x.dims();
    let mut strides = strides_of(dims);
    let mut offset = 0isize;
    for (d, &f) in flip.iter().enumerate() {
        if f && dims[d] > 0 {
            offset += (dims[d] as isize - 1) * strides[d];
            strides[d] = -strides[d];
        }
    }
    gather_strided(x, offset, dims, &strides, x.shape().clone())
}

fn reverse_v2(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let x = &inputs[0];
    let axes = int_vector(&inputs[1], "axis")?;
    let r = x.rank() as i64;
    let mut flip = vec![false; x.rank()];
    for (i, &ax) in axes.iter().enumerate() {
        if ax < -r || ax >= r {
            return Err(invalid_argument(format!(
                "'axis'[{i}] = {ax} is out of valid range [0, {})",
                r - 1
            )));
        }
        let ax = if ax < 0 { ax + r } else { ax } as usize;
        if flip[ax] {
            return Err(invalid_argument(format!(
                "axis {ax} specified more than once."
            )));
        }
        flip[ax] = true;
    }
    Ok(crate::ops::one_output(reverse_dims(x, &flip)?))
}

fn reverse_v1(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let x = &inputs[0];
    let flip = inputs[1].as_slice::<bool>()?;
    if inputs[1].rank() != 1 || flip.len() != x.rank() {
        return Err(invalid_argument(format!(
            "'dims' must have the same number of values as 'input' rank: input shape {}, dims \
             shape {}",
            x.shape(),
            inputs[1].shape()
        )));
    }
    Ok(crate::ops::one_output(reverse_dims(x, flip)?))
}

fn one_hot(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let (indices, on, off) = (&inputs[0], &inputs[2], &inputs[3]);
    let rank = indices.rank();
    let axis = a.int("axis")?;
    if axis < -1 || axis > rank as i64 {
        return Err(invalid_argument(format!(
            "Expected axis to be -1 or between [0, {}).  But received: {axis}",
            rank + 1
        )));
    }
    if inputs[1].rank() != 0 {
        return Err(invalid_argument(format!(
            "depth must be a scalar, but got: {}",
            inputs[1].shape()
        )));
    }
    let depth = int_scalar(&inputs[1], "depth", true)?;
    if depth < 0 {
        return Err(invalid_argument(format!(
            "depth must be non-negative, got: {depth}"
        )));
    }
    for (t, n) in [(on, "on_value"), (off, "off_value")] {
        if t.rank() != 0 {
            return Err(invalid_argument(format!(
                "{n} must be a scalar, but got: {}",
                t.shape()
            )));
        }
    }
    let depth = depth as usize;
    let axis = if axis < 0 { rank } else { axis as usize };
    let d = indices.dims();
    let (prefix, suffix) = (prod(&d[..axis]), prod(&d[axis..]));
    let mut out_dims = d[..axis].to_vec();
    out_dims.push(depth);
    out_dims.extend_from_slice(&d[axis..]);
    let shape = Shape::new(out_dims)?;
    let idx = indices.to_i64_vec()?;
    // Sources: 0 = on, 1 = off.
    Ok(crate::ops::one_output(assemble(
        &[on, off],
        on.dtype(),
        shape,
        &mut |emit| {
            for p in 0..prefix {
                for k in 0..depth {
                    for s in 0..suffix {
                        let hit = idx[p * suffix + s] == k as i64;
                        emit(if hit { 0 } else { 1 }, 0, 1, 0);
                    }
                }
            }
        },
    )?))
}

fn lin_space(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    for (t, n) in [
        (&inputs[0], "start"),
        (&inputs[1], "stop"),
        (&inputs[2], "num"),
    ] {
        if t.rank() != 0 {
            return Err(invalid_argument(format!(
                "{n} must be a scalar, got shape {}",
                t.shape()
            )));
        }
    }
    let (start, stop) = (inputs[0].f32s()?[0], inputs[1].f32s()?[0]);
    let num = int_scalar(&inputs[2], "num", true)?;
    if num <= 0 {
        return Err(invalid_argument(format!("Requires num > 0: {num}")));
    }
    let n = to_dim(num, "num")?;
    let mut out = try_with_capacity::<f32>(n)?;
    if n == 1 {
        out.push(start);
    } else {
        let step = (stop - start) / (n - 1) as f32;
        out.extend((0..n - 1).map(|i| start + step * i as f32));
        out.push(stop);
    }
    Ok(crate::ops::one_output(Tensor::from_vec(
        Shape::from_dims(&[n])?,
        out,
    )?))
}

fn shape_n(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let dt = a.dtype("out_type")?;
    inputs
        .iter()
        .map(|t| {
            let v: Vec<i64> = t.dims().iter().map(|&d| d as i64).collect();
            int_tensor(dt, &[v.len()], &v)
        })
        .collect()
}

fn depth_space(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let x = &inputs[0];
    let op = a.op();
    let bs = a.int("block_size")?;
    if bs < 2 {
        return Err(invalid_argument(format!(
            "Value for attr 'block_size' of {bs} must be at least minimum 2"
        )));
    }
    let f = a.string("data_format")?;
    if f != "NHWC" {
        return Err(invalid_argument(format!(
            "Only NHWC data_format supported on CPU. Got {f}"
        )));
    }
    if x.rank() != 4 {
        return Err(invalid_argument(format!(
            "Input rank should be: 4 instead of: {}",
            x.rank()
        )));
    }
    let bs = to_dim(bs, "block_size")?;
    let [n, h, w, c] = [x.dims()[0], x.dims()[1], x.dims()[2], x.dims()[3]];
    // Output dims are products with the block size: checked, as the block size is any int.
    let too_big = || invalid_argument(format!("{op}: block_size {bs} is too large"));
    let bb = bs.checked_mul(bs).ok_or_else(too_big)?;
    let (hb, wb, cb) = (
        h.checked_mul(bs).ok_or_else(too_big)?,
        w.checked_mul(bs).ok_or_else(too_big)?,
        c.checked_mul(bb).ok_or_else(too_big)?,
    );
    let (hw, cs) = (w * c, c as isize);
    let (view, strides, out): (Vec<usize>, Vec<isize>, Vec<usize>) = if op == "DepthToSpace" {
        if c % bb != 0 {
            return Err(invalid_argument(format!(
                "Input depth dimension {c} should be divisible by: {bb}"
            )));
        }
        let oc = c / bb;
        // out[b, y*bs+i, x*bs+j, k] = in[b, y, x, (i*bs + j)*oc + k]
        (
            vec![n, h, bs, w, bs, oc],
            vec![
                (h * hw) as isize,
                hw as isize,
                (bs * oc) as isize,
                cs,
                oc as isize,
                1,
            ],
            vec![n, hb, wb, oc],
        )
    } else {
        if h % bs != 0 || w % bs != 0 {
            return Err(invalid_argument(format!(
                "Image width {w} and height {h} should be divisible by block_size: {bs}"
            )));
        }
        // out[b, y, x, (i*bs + j)*c + k] = in[b, y*bs+i, x*bs+j, k]
        (
            vec![n, h / bs, w / bs, bs, bs, c],
            vec![
                (h * hw) as isize,
                (bs * hw) as isize,
                bs as isize * cs,
                hw as isize,
                cs,
                1,
            ],
            vec![n, h / bs, w / bs, cb],
        )
    };
    Ok(crate::ops::one_output(gather_strided(
        x,
        0,
        &view,
        &strides,
        Shape::new(out)?,
    )?))
}

fn concat_v1(a: &NodeAttrs, ctx: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let mut v2 = inputs[1..].to_vec();
    v2.push(inputs[0].clone());
    super::concat::concat_v2(a, ctx, &v2)
}

fn gather_v1(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    if inputs[0].rank() < 1 {
        return Err(invalid_argument(
            "Gather: params must be at least 1 dimensional",
        ));
    }
    Ok(crate::ops::one_output(gather(
        &inputs[0], &inputs[1], 0, 0,
    )?))
}

fn ensure_shape(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let x = &inputs[0];
    if let Some(want) = a.shape("shape")? {
        let ok = want.len() == x.rank()
            && want
                .iter()
                .zip(x.dims())
                .all(|(&w, &d)| w < 0 || w as u64 == d as u64);
        if !ok {
            return Err(invalid_argument(format!(
                "Shape of tensor {} is not compatible with expected shape {want:?}.",
                x.shape()
            )));
        }
    }
    Ok(crate::ops::one_output(x.clone()))
}
