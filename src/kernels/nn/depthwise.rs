//! DepthwiseConv2dNative (NHWC, filter [kh, kw, in_c, multiplier]) as a direct kernel: for each
//! output pixel, accumulate every valid tap's channel vector times the tap's filter vector. The
//! channel loop is contiguous in input, filter and output, so it vectorizes.

use super::conv::{with_output, Conv2dParams};
use super::fused::Fusion;
use super::window::dims4;
use crate::kernels::{KernelContext, KernelFactory::Simple};
use crate::ops::def::FLOAT;
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::Tensor;

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("DepthwiseConv2dNative", Simple(depthwise_op))
            .input("input", "T")
            .input("filter", "T")
            .type_attr("T", FLOAT)
            .ints_attr("strides", None)
            .enum_attr("padding", &["SAME", "VALID", "EXPLICIT"], None)
            .ints_attr("explicit_paddings", Some(&[]))
            .enum_attr("data_format", &["NHWC", "NCHW"], Some("NHWC"))
            .ints_attr("dilations", Some(&[1, 1, 1, 1])),
    );
}

fn depthwise_op(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let params = Conv2dParams::from_attrs(a, true, false)?;
    Ok(vec![depthwise(&i[0], &i[1], &params, None)?])
}

/// Depthwise convolution of `x` by `filter`, optionally fused.
pub fn depthwise(
    x: &Tensor,
    filter: &Tensor,
    p: &Conv2dParams,
    fusion: Option<&Fusion>,
) -> Result<Tensor> {
    let op = "DepthwiseConv2dNative";
    let [n, h, w, ci] = dims4(op, "input", x.dims())?;
    let [kh, kw, fci, mult] = dims4(op, "filter", filter.dims())?;
    if ci != fci {
        return Err(invalid_argument(format!(
            "{op}: input and filter must have the same depth: {ci} vs {fci}"
        )));
    }
    let co = ci
        .checked_mul(mult)
        .ok_or_else(|| invalid_argument(format!("{op}: output depth overflows")))?;
    let [dy, dx] = p.window((h, w), (kh, kw))?;
    let (xs, fs) = (x.f32s()?, filter.f32s()?);
    let (oh, ow) = (dy.output, dx.output);
    with_output(vec![n, oh, ow, co], fusion, |out, epi| {
        if co == 0 {
            return Ok(());
        }
        for (row, px) in out.chunks_exact_mut(co).enumerate() {
            let (b, rem) = (row / (oh * ow), row % (oh * ow));
            let (oy, ox) = (rem / ow, rem % ow);
            px.fill(0.0);
            for ky in 0..kh {
                let Some(iy) = (oy * dy.stride + ky * dy.dilation)
                    .checked_sub(dy.pad_before)
                    .filter(|&iy| iy < h)
                else {
                    continue;
                };
                for kx in 0..kw {
                    let Some(ix) = (ox * dx.stride + kx * dx.dilation)
                        .checked_sub(dx.pad_before)
                        .filter(|&ix| ix < w)
                    else {
                        continue;
                    };
                    let s = ((b * h + iy) * w + ix) * ci;
                    let t = (ky * kw + kx) * co;
                    let (Some(src), Some(taps)) = (xs.get(s..s + ci), fs.get(t..t + co)) else {
                        return Err(invalid_argument(format!("{op}: index out of range")));
                    };
                    if mult == 1 {
                        for ((o, &v), &f) in px.iter_mut().zip(src).zip(taps) {
                            *o += v * f;
                        }
                    } else {
                        for ((o, &v), f) in px
                            .chunks_exact_mut(mult)
                            .zip(src)
                            .zip(taps.chunks_exact(mult))
                        {
                            for (o, &f) in o.iter_mut().zip(f) {
                                *o += v * f;
                            }
                        }
                    }
                }
            }
            epi(row, 0, px);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::nn::window::Padding;

    #[test]
    fn multiplier_and_same_padding() {
        // 1x3x3x2 input, 2x2 filter, multiplier 2, SAME stride 1: pad_before 0, after 1.
        let x: Vec<f32> = (1..=18).map(|v| v as f32).collect();
        let f: Vec<f32> = (0..16).map(|v| (v % 5) as f32 - 2.0).collect();
        let xt = Tensor::from_slice(&[1, 3, 3, 2], &x).unwrap();
        let ft = Tensor::from_slice(&[2, 2, 2, 2], &f).unwrap();
        let p = Conv2dParams {
            strides: (1, 1),
            dilations: (1, 1),
            padding: Padding::Same,
        };
        let out = depthwise(&xt, &ft, &p, None).unwrap();
        assert_eq!(out.dims(), &[1, 3, 3, 4]);
        let o = out.f32s().unwrap();
        // Output (0,0), channel 0, q 1: taps (0,0),(0,1),(1,0),(1,1) on input channel 0.
        let xin = |y: usize, xx: usize, c: usize| x[(y * 3 + xx) * 2 + c];
        let fw = |ky: usize, kx: usize, c: usize, q: usize| f[((ky * 2 + kx) * 2 + c) * 2 + q];
        let want = xin(0, 0, 0) * fw(0, 0, 0, 1)
            + xin(0, 1, 0) * fw(0, 1, 0, 1)
            + xin(1, 0, 0) * fw(1, 0, 0, 1)
            + xin(1, 1, 0) * fw(1, 1, 0, 1);
        assert_eq!(o[1], want);
        // Bottom-right pixel, channel 1, q 0: only tap (0,0) is inside.
        assert_eq!(o[(8 * 4) + 2], xin(2, 2, 1) * fw(0, 0, 1, 0));
    }
}
