//! 3-D (volumetric, NDHWC) Conv3D, MaxPool3D and AvgPool3D. The convolution is im2col in strips
//! with SGEMM; the pools are plain window loops (AvgPool3D averages the taps inside the volume,
//! as TF does for SAME padding). Rare in TF.js models: compact over fast.

use super::gemm::{sgemm, MatRef};
use super::window::{windowed_output, Padding};
use crate::ops::def::FLOAT;
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, unimplemented, Result};
use crate::tensor::{try_alloc, Shape, Tensor};

type Outputs = Result<Vec<Tensor>>;

/// Patch-buffer budget per GEMM strip, in floats (1 MiB).
const STRIP_FLOATS: usize = 1 << 18;

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("Conv3D", Simple(conv3d))
            .input("input", "T")
            .input("filter", "T")
            .type_attr("T", FLOAT)
            .ints_attr("strides", None)
            .enum_attr("padding", &["SAME", "VALID"], None)
            .enum_attr("data_format", &["NDHWC", "NCDHW"], Some("NDHWC"))
            .ints_attr("dilations", Some(&[1, 1, 1, 1, 1])),
    );
    for name in ["MaxPool3D", "AvgPool3D"] {
        reg.add(
            OpBuilder::new(name, Simple(pool3d))
                .input("input", "T")
                .ints_attr("ksize", None)
                .ints_attr("strides", None)
                .enum_attr("padding", &["SAME", "VALID"], None)
                .enum_attr("data_format", &["NDHWC", "NCDHW"], Some("NDHWC"))
                .type_attr("T", FLOAT),
        );
    }
}

/// A 5-entry NDHWC attr (strides, ksize, dilations) as its 3 spatial values; 1 in batch/depth.
fn spatial3(a: &NodeAttrs, name: &str) -> Result<[usize; 3]> {
    let v = a.ints(name)?;
    if v.len() != 5 {
        return Err(invalid_argument(format!(
            "{}: {name} must have 5 elements, got {}",
            a.op(),
            v.len()
        )));
    }
    if v[0] != 1 || v[4] != 1 {
        return Err(unimplemented(format!(
            "{}: {name} in the batch and depth dimensions must be 1, got {v:?}",
            a.op()
        )));
    }
    let mut out = [0usize; 3];
    for k in 0..3 {
        out[k] = usize::try_from(v[k + 1])
            .ok()
            .filter(|&x| x > 0)
            .ok_or_else(|| invalid_argument(format!("{}: {name} must be positive", a.op())))?;
    }
    Ok(out)
}

fn padding(a: &NodeAttrs) -> Result<Padding> {
    if a.string("data_format")? != "NDHWC" {
        return Err(unimplemented(format!(
            "{}: only data_format NDHWC is supported",
            a.op()
        )));
    }
    Ok(if a.string("padding")? == "SAME" {
        Padding::Same
    } else {
        Padding::Valid
    })
}

fn dims5(op: &str, what: &str, t: &Tensor) -> Result<[usize; 5]> {
    <[usize; 5]>::try_from(t.dims()).map_err(|_| {
        invalid_argument(format!(
            "{op}: {what} must be 5-dimensional, got shape {}",
            t.shape()
        ))
    })
}

/// Per spatial dim: (output size, padding before).
fn geometry(
    input: [usize; 3],
    window: [usize; 3],
    strides: [usize; 3],
    dil: [usize; 3],
    p: Padding,
) -> Result<[(usize, usize); 3]> {
    let mut g = [(0, 0); 3];
    for k in 0..3 {
        let d = windowed_output(input[k], window[k], strides[k], dil[k], p, (0, 0))?;
        g[k] = (d.output, d.pad_before);
    }
    Ok(g)
}

/// Calls `f(k, input offset)` for every window tap inside the volume, for output position `o`.
#[allow(clippy::too_many_arguments)]
fn for_taps(
    o: [usize; 3],
    input: [usize; 3],
    window: [usize; 3],
    strides: [usize; 3],
    dil: [usize; 3],
    g: &[(usize, usize); 3],
    c: usize,
    mut f: impl FnMut(usize, usize),
) {
    let mut k = 0;
    for a in 0..window[0] {
        let z = (o[0] * strides[0] + a * dil[0]) as isize - g[0].1 as isize;
        for b in 0..window[1] {
            let y = (o[1] * strides[1] + b * dil[1]) as isize - g[1].1 as isize;
            for e in 0..window[2] {
                let x = (o[2] * strides[2] + e * dil[2]) as isize - g[2].1 as isize;
                let inside = [z, y, x]
                    .iter()
                    .zip(&input)
                    .all(|(&p, &n)| p >= 0 && (p as usize) < n);
                if inside {
                    f(
                        k,
                        ((z as usize * input[1] + y as usize) * input[2] + x as usize) * c,
                    );
                }
                k += 1;
            }
        }
    }
}

fn conv3d(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let p = padding(a)?;
    let strides = spatial3(a, "strides")?;
    let dil = spatial3(a, "dilations")?;
    if dil != [1, 1, 1] {
        // As TF's CPU kernel (TF.js has no dilated conv3d either).
        return Err(invalid_argument(
            "CPU implementation of Conv3D currently only supports dilated rates of 1.",
        ));
    }
    let [n, d, h, w, c] = dims5("Conv3D", "input", &i[0])?;
    let [kd, kh, kw, fc, co] = dims5("Conv3D", "filter", &i[1])?;
    if fc != c {
        return Err(invalid_argument(format!(
            "Conv3D: input depth must be equal to filter depth: {c} vs {fc}"
        )));
    }
    let (input, window) = ([d, h, w], [kd, kh, kw]);
    let g = geometry(input, window, strides, dil, p)?;
    let shape = Shape::new(vec![n, g[0].0, g[1].0, g[2].0, co])?;
    let mut out = try_alloc::<f32>(shape.num_elements())?;
    // Checked: with co = 0 the filter holds nothing, whatever its other dims say.
    let k = [kh, kw, c]
        .iter()
        .try_fold(kd, |a, &b| a.checked_mul(b))
        .ok_or_else(|| invalid_argument("Conv3D: filter too large"))?;
    let m = g[0].0 * g[1].0 * g[2].0;
    if out.is_empty() || k == 0 {
        return Ok(crate::ops::one_output(Tensor::from_vec(shape, out)?));
    }
    let (x, f) = (i[0].f32s()?, i[1].f32s()?);
    let b = MatRef::new(f, k, co, false)?;
    let strip = (STRIP_FLOATS / k).clamp(1, m);
    let mut col = try_alloc::<f32>(strip * k)?;
    let vol = d * h * w * c;
    for img in 0..n {
        let src = &x[img * vol..(img + 1) * vol];
        for r0 in (0..m).step_by(strip) {
            let rows = strip.min(m - r0);
            let patches = &mut col[..rows * k];
            patches.fill(0.0);
            for r in 0..rows {
                let q = r0 + r;
                let o = [q / (g[1].0 * g[2].0), (q / g[2].0) % g[1].0, q % g[2].0];
                let row = &mut patches[r * k..(r + 1) * k];
                for_taps(o, input, window, strides, dil, &g, c, |t, at| {
                    row[t * c..(t + 1) * c].copy_from_slice(&src[at..at + c]);
                });
            }
            let dst = &mut out[(img * m + r0) * co..(img * m + r0 + rows) * co];
            sgemm(
                MatRef::new(patches, rows, k, false)?,
                b,
                dst,
                &mut |_, _, _| {},
            )?;
        }
    }
    Ok(crate::ops::one_output(Tensor::from_vec(shape, out)?))
}

fn pool3d(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let p = padding(a)?;
    let window = spatial3(a, "ksize")?;
    let strides = spatial3(a, "strides")?;
    let [n, d, h, w, c] = dims5(a.op(), "input", &i[0])?;
    let input = [d, h, w];
    let g = geometry(input, window, strides, [1, 1, 1], p)?;
    let shape = Shape::new(vec![n, g[0].0, g[1].0, g[2].0, c])?;
    let mut out = try_alloc::<f32>(shape.num_elements())?;
    let max = a.op() == "MaxPool3D";
    let x = i[0].f32s()?;
    let vol = d * h * w * c;
    let mut o = 0;
    for img in 0..n {
        let src = &x[img * vol..(img + 1) * vol];
        for z in 0..g[0].0 {
            for y in 0..g[1].0 {
                for xo in 0..g[2].0 {
                    let acc = &mut out[o..o + c];
                    acc.fill(if max { f32::MIN } else { 0.0 });
                    let mut count = 0usize;
                    for_taps(
                        [z, y, xo],
                        input,
                        window,
                        strides,
                        [1, 1, 1],
                        &g,
                        c,
                        |_, at| {
                            count += 1;
                            for (q, &v) in acc.iter_mut().zip(&src[at..at + c]) {
                                *q = if max { q.max(v) } else { *q + v };
                            }
                        },
                    );
                    if !max && count > 0 {
                        let inv = 1.0 / count as f32;
                        acc.iter_mut().for_each(|q| *q *= inv);
                    }
                    o += c;
                }
            }
        }
    }
    Ok(crate::ops::one_output(Tensor::from_vec(shape, out)?))
}
