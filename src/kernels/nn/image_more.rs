//! Rarer image ops of detection and segmentation models, as TF's CPU kernels compute them:
//! CropAndResize (bilinear / nearest, extrapolation value), MaxPoolWithArgmax and Dilation2D
//! (grayscale morphological dilation) with its two backprops, ImageProjectiveTransformV3 (Keras'
//! random rotation / translation layers). Plain loops: none is hot.

use super::window::{dims4, padding_attr, spatial_pair, windowed_output, Padding};
use crate::kernels::math::cast_tensor;
use crate::kernels::num::{narrow, widen, Num, WITH_U8};
use crate::ops::def::INDEX;
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, out_of_range, Result};
use crate::tensor::{try_alloc, DType, Shape, Tensor};

type Outputs = Result<Vec<Tensor>>;

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("CropAndResize", Simple(crop_and_resize))
            .input("image", "T")
            .fixed_input("boxes", DType::Float32)
            .fixed_input("box_ind", DType::Int32)
            .fixed_input("crop_size", DType::Int32)
            .type_attr("T", WITH_U8)
            .enum_attr("method", &["bilinear", "nearest"], Some("bilinear"))
            .float_attr("extrapolation_value", 0.0),
    );
    reg.add(
        OpBuilder::new("MaxPoolWithArgmax", Simple(max_pool_argmax))
            .input("input", "T")
            .ints_attr("ksize", None)
            .ints_attr("strides", None)
            .type_attr_default("Targmax", INDEX, DType::Int64)
            .enum_attr("padding", &["SAME", "VALID"], None)
            .bool_attr("include_batch_in_index", false)
            .type_attr("T", WITH_U8),
    );
    reg.add(
        OpBuilder::new("ImageProjectiveTransformV3", Simple(projective_transform))
            .input("images", "dtype")
            .fixed_input("transforms", DType::Float32)
            .fixed_input("output_shape", DType::Int32)
            .fixed_input("fill_value", DType::Float32)
            .type_attr("dtype", WITH_U8)
            .enum_attr("interpolation", &["NEAREST", "BILINEAR"], None)
            .enum_attr(
                "fill_mode",
                &["REFLECT", "WRAP", "CONSTANT", "NEAREST"],
                Some("CONSTANT"),
            ),
    );
    for name in [
        "Dilation2D",
        "Dilation2DBackpropInput",
        "Dilation2DBackpropFilter",
    ] {
        let mut op = OpBuilder::new(name, Simple(dilation2d))
            .input("input", "T")
            .input("filter", "T");
        if name != "Dilation2D" {
            op = op.input("out_backprop", "T");
        }
        reg.add(
            op.type_attr("T", WITH_U8)
                .ints_attr("strides", None)
                .ints_attr("rates", None)
                .enum_attr("padding", &["SAME", "VALID"], None),
        );
    }
}

fn crop_and_resize(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let (image, boxes, box_ind, crop) = (&i[0], &i[1], &i[2], &i[3]);
    let [b, h, w, c] = dims4("CropAndResize", "input image", image.dims())?;
    if h == 0 || w == 0 {
        return Err(invalid_argument("image dimensions must be positive"));
    }
    if boxes.rank() != 2 || boxes.dims()[1] != 4 {
        return Err(invalid_argument(format!(
            "boxes must be 2-D [num_boxes, 4], got shape {}",
            boxes.shape()
        )));
    }
    let n = boxes.dims()[0];
    if box_ind.rank() != 1 || box_ind.dims()[0] != n {
        return Err(invalid_argument(format!(
            "box_index has incompatible shape: {} for {n} boxes",
            box_ind.shape()
        )));
    }
    let cs = crop.as_slice::<i32>()?;
    if crop.rank() != 1 || cs.len() != 2 {
        return Err(invalid_argument(format!(
            "crop_size must be 1-D with two elements, got shape {}",
            crop.shape()
        )));
    }
    if cs[0] <= 0 || cs[1] <= 0 {
        return Err(invalid_argument("crop dimensions must be positive"));
    }
    let (ch, cw) = (cs[0] as usize, cs[1] as usize);
    let bi = box_ind.as_slice::<i32>()?;
    if bi.iter().any(|&k| k < 0 || k as usize >= b) {
        // OutOfRange, as TF's CPU kernel.
        return Err(out_of_range(format!(
            "box_index has values outside [0, batch_size) (batch_size {b})"
        )));
    }
    let shape = Shape::new(vec![n, ch, cw, c])?;
    let nearest = a.string("method")? == "nearest";
    let extrapolate = a.float("extrapolation_value")?;
    let img = cast_tensor(image, DType::Float32)?;
    let (px, bx) = (img.f32s()?, boxes.f32s()?);
    let mut out = try_alloc::<f32>(shape.num_elements())?;
    let at = |k: usize, y: usize, x: usize| ((k * h + y) * w + x) * c;
    for (m, o) in out
        .chunks_exact_mut((ch * cw * c).max(1))
        .enumerate()
        .take(n)
    {
        let (y1, x1, y2, x2) = (bx[m * 4], bx[m * 4 + 1], bx[m * 4 + 2], bx[m * 4 + 3]);
        let k = bi[m] as usize;
        let (hs, ws) = (
            if ch > 1 {
                (y2 - y1) * (h - 1) as f32 / (ch - 1) as f32
            } else {
                0.0
            },
            if cw > 1 {
                (x2 - x1) * (w - 1) as f32 / (cw - 1) as f32
            } else {
                0.0
            },
        );
        for y in 0..ch {
            let iy = if ch > 1 {
                y1 * (h - 1) as f32 + y as f32 * hs
            } else {
                0.5 * (y1 + y2) * (h - 1) as f32
            };
            let row = &mut o[y * cw * c..(y + 1) * cw * c];
            if iy < 0.0 || iy > (h - 1) as f32 {
                row.fill(extrapolate);
                continue;
            }
            for x in 0..cw {
                let ix = if cw > 1 {
                    x1 * (w - 1) as f32 + x as f32 * ws
                } else {
                    0.5 * (x1 + x2) * (w - 1) as f32
                };
                let dst = &mut row[x * c..(x + 1) * c];
                if ix < 0.0 || ix > (w - 1) as f32 {
                    dst.fill(extrapolate);
                    continue;
                }
                if nearest {
                    let s = at(k, iy.round() as usize, ix.round() as usize);
                    dst.copy_from_slice(&px[s..s + c]);
                    continue;
                }
                let (ty, by) = (iy.floor() as usize, iy.ceil() as usize);
                let (lx, rx) = (ix.floor() as usize, ix.ceil() as usize);
                let (yl, xl) = (iy - ty as f32, ix - lx as f32);
                for (ci, d) in dst.iter_mut().enumerate() {
                    let tl = px[at(k, ty, lx) + ci];
                    let tr = px[at(k, ty, rx) + ci];
                    let bl = px[at(k, by, lx) + ci];
                    let br = px[at(k, by, rx) + ci];
                    let top = tl + (tr - tl) * xl;
                    let bottom = bl + (br - bl) * xl;
                    *d = top + (bottom - top) * yl;
                }
            }
        }
    }
    Ok(crate::ops::one_output(Tensor::from_vec(shape, out)?))
}

/// Window geometry of a 2-D NHWC window op with SAME/VALID padding: (out h, out w, pad top,
/// pad left), the window being `(kh, kw)` taps `rates` apart.
fn geometry(
    (h, w): (usize, usize),
    (kh, kw): (usize, usize),
    (sh, sw): (usize, usize),
    (rh, rw): (usize, usize),
    p: Padding,
) -> Result<(usize, usize, usize, usize)> {
    let dy = windowed_output(h, kh, sh, rh, p, (0, 0))?;
    let dx = windowed_output(w, kw, sw, rw, p, (0, 0))?;
    Ok((dy.output, dx.output, dy.pad_before, dx.pad_before))
}

fn max_pool_argmax(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let x = &i[0];
    let [n, h, w, c] = dims4("MaxPoolWithArgmax", "input", x.dims())?;
    let k = spatial_pair(a, "ksize", false)?;
    let s = spatial_pair(a, "strides", false)?;
    let p = padding_attr(a, false)?;
    let (oh, ow, pt, pl) = geometry((h, w), k, s, (1, 1), p)?;
    let shape = Shape::new(vec![n, oh, ow, c])?;
    let with_batch = a.bool("include_batch_in_index")?;
    fn run<T: Num>(
        x: &Tensor,
        [n, h, w, c]: [usize; 4],
        (oh, ow, pt, pl): (usize, usize, usize, usize),
        (k, s): ((usize, usize), (usize, usize)),
        with_batch: bool,
    ) -> Result<(Vec<T>, Vec<i64>)> {
        let v = x.as_slice::<T>()?;
        let total = n * oh * ow * c;
        let mut out = try_alloc::<T>(total)?;
        let mut arg = try_alloc::<i64>(total)?;
        let mut o = 0;
        for b in 0..n {
            for y in 0..oh {
                for xo in 0..ow {
                    for ch in 0..c {
                        let mut best: Option<(T, usize)> = None;
                        for ky in 0..k.0 {
                            let iy = (y * s.0 + ky) as isize - pt as isize;
                            if iy < 0 || iy as usize >= h {
                                continue;
                            }
                            for kx in 0..k.1 {
                                let ix = (xo * s.1 + kx) as isize - pl as isize;
                                if ix < 0 || ix as usize >= w {
                                    continue;
                                }
                                let at = ((b * h + iy as usize) * w + ix as usize) * c + ch;
                                if best.is_none_or(|(m, _)| v[at] > m) {
                                    best = Some((v[at], at));
                                }
                            }
                        }
                        if let Some((m, at)) = best {
                            out[o] = m;
                            arg[o] = if with_batch { at } else { at - b * h * w * c } as i64;
                        }
                        o += 1;
                    }
                }
            }
        }
        Ok((out, arg))
    }
    let geo = (oh, ow, pt, pl);
    let dtype = x.dtype();
    let x = &widen(x)?;
    let (values, arg) = crate::with_num!(x.dtype(), "MaxPoolWithArgmax", T, {
        let (o, g) = run::<T>(x, [n, h, w, c], geo, (k, s), with_batch)?;
        Ok((Tensor::from_vec(shape.clone(), o)?, g))
    })?;
    let argmax = crate::kernels::num::int_tensor(a.dtype("Targmax")?, shape.dims(), &arg)?;
    Ok(vec![narrow(values, dtype)?, argmax])
}

/// A Dilation2D's checked geometry: NHWC input dims, filter (h, w), output (h, w), padding
/// (top, left), strides and rates.
struct Dilation {
    x: [usize; 4],
    f: (usize, usize),
    out: (usize, usize),
    pad: (usize, usize),
    s: (usize, usize),
    r: (usize, usize),
}

/// TF's ParseAttributes + ParseSizes, shared by Dilation2D and its two backprops.
fn dilation_args(a: &NodeAttrs, x: &Tensor, f: &Tensor) -> Result<Dilation> {
    let s = spatial_pair(a, "strides", true)?;
    let r = spatial_pair(a, "rates", true)?;
    let p = padding_attr(a, false)?;
    let x_dims = dims4(a.op(), "input", x.dims())?;
    if f.rank() != 3 {
        return Err(invalid_argument(format!(
            "filter must be 3-dimensional: {}",
            f.shape()
        )));
    }
    let (fh, fw, fc) = (f.dims()[0], f.dims()[1], f.dims()[2]);
    if fc != x_dims[3] {
        return Err(invalid_argument(format!(
            "input and filter must have the same depth: {} vs {fc}",
            x_dims[3]
        )));
    }
    let (oh, ow, pt, pl) = geometry((x_dims[1], x_dims[2]), (fh, fw), s, r, p)?;
    Ok(Dilation {
        x: x_dims,
        f: (fh, fw),
        out: (oh, ow),
        pad: (pt, pl),
        s,
        r,
    })
}

/// TF's dilation scan: for each output element in order, the max of input + filter over the
/// window's taps inside the image, from `lowest` up, replaced only by a strictly greater value
/// (so the first of tied taps wins), passed to `visit(output index, max, input index, filter
/// index)`. With no tap above `lowest`, the indices are TF's defaults: the window's corner clamped
/// into the image, and the filter's first tap.
fn dilation_scan<T: Num>(
    x: &[T],
    f: &[T],
    d: &Dilation,
    lowest: T,
    mut visit: impl FnMut(usize, T, usize, usize),
) {
    let [n, h, w, c] = d.x;
    let (fh, fw) = d.f;
    // Tap offsets in i64: `(k - 1) * rate` fits (the geometry checked it), not always a wasm usize.
    let at = |o: usize, s: usize, p: usize, k: usize, r: usize| {
        (o as i64) * (s as i64) - p as i64 + (k as i64) * (r as i64)
    };
    let mut o = 0;
    for b in 0..n {
        for y in 0..d.out.0 {
            let hb = at(y, d.s.0, d.pad.0, 0, 0);
            for xo in 0..d.out.1 {
                let wb = at(xo, d.s.1, d.pad.1, 0, 0);
                for ch in 0..c {
                    let mut best = (lowest, hb.max(0) as usize, wb.max(0) as usize, 0);
                    for ky in 0..fh {
                        let iy = at(y, d.s.0, d.pad.0, ky, d.r.0);
                        if iy < 0 || iy as u64 >= h as u64 {
                            continue;
                        }
                        for kx in 0..fw {
                            let ix = at(xo, d.s.1, d.pad.1, kx, d.r.1);
                            if ix < 0 || ix as u64 >= w as u64 {
                                continue;
                            }
                            let (iy, ix) = (iy as usize, ix as usize);
                            let val =
                                x[((b * h + iy) * w + ix) * c + ch].add(f[(ky * fw + kx) * c + ch]);
                            if val > best.0 {
                                best = (val, iy, ix, ky * fw + kx);
                            }
                        }
                    }
                    visit(
                        o,
                        best.0,
                        ((b * h + best.1) * w + best.2) * c + ch,
                        best.3 * c + ch,
                    );
                    o += 1;
                }
            }
        }
    }
}

/// Dilation2D, Dilation2DBackpropInput and Dilation2DBackpropFilter: one scan; the backprops add
/// each output gradient at the input pixel / filter tap of its maximum.
fn dilation2d(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let (x, f) = (&i[0], &i[1]);
    let d = dilation_args(a, x, f)?;
    let [n, _, _, c] = d.x;
    let out_shape = Shape::new(vec![n, d.out.0, d.out.1, c])?;
    let backprop = a.op() != "Dilation2D";
    if backprop {
        let g = &i[2];
        if g.rank() != 4 {
            return Err(invalid_argument(format!(
                "out_backprop must be 4-dimensional{}",
                g.shape()
            )));
        }
        if g.shape() != &out_shape {
            return Err(invalid_argument("out_backprop has incompatible size."));
        }
    }
    let to_filter = a.op() == "Dilation2DBackpropFilter";
    let shape = match (backprop, to_filter) {
        (false, _) => out_shape,
        (true, false) => x.shape().clone(),
        (true, true) => f.shape().clone(),
    };
    fn run<T: Num>(
        (x, f, g): (&Tensor, &Tensor, Option<&Tensor>),
        d: &Dilation,
        lowest: T,
        to_filter: bool,
        shape: Shape,
    ) -> Result<Tensor> {
        let (x, f) = (x.as_slice::<T>()?, f.as_slice::<T>()?);
        let g = g.map(|g| g.as_slice::<T>()).transpose()?;
        let mut out = try_alloc::<T>(shape.num_elements())?;
        dilation_scan(x, f, d, lowest, |o, v, xi, fi| match g {
            None => out[o] = v,
            Some(g) => {
                // `get_mut`: TF skips a default index into an empty input or filter.
                if let Some(dst) = out.get_mut(if to_filter { fi } else { xi }) {
                    *dst = dst.add(g[o]);
                }
            }
        });
        Tensor::from_vec(shape, out)
    }
    let dtype = x.dtype();
    let lowest = crate::kernels::num::limits(dtype).0;
    let (x, f) = (&widen(x)?, &widen(f)?);
    let g = i.get(2).map(widen).transpose()?;
    let out = crate::with_num!(x.dtype(), a.op(), T, {
        run::<T>(
            (x, f, g.as_ref()),
            &d,
            T::from_f64(lowest),
            to_filter,
            shape,
        )
    })?;
    Ok(crate::ops::one_output(narrow(out, dtype)?))
}

/// TF's `MapCoordinate`: folds an out-of-range source coordinate back into `[0, len - 1]` by the
/// fill mode (CONSTANT leaves it, for the fill value to apply).
fn map_coordinate(mode: &str, c: f32, len: usize) -> f32 {
    let lenf = len as f32;
    // TF's clamp, std::max(v, 0) then std::min(.., len - 1): an empty axis gives -1, read as the
    // fill value (f32::clamp would panic there), and a NaN stays NaN (f32::max would make it 0).
    let clamp = |v: f32| {
        let v = if v < 0.0 { 0.0 } else { v };
        if lenf - 1.0 < v {
            lenf - 1.0
        } else {
            v
        }
    };
    match mode {
        "REFLECT" => {
            let mut v = c;
            if v < 0.0 {
                if len <= 1 {
                    v = 0.0;
                } else {
                    let sz2 = 2.0 * lenf;
                    if v < sz2 {
                        v += sz2 * (-v / sz2).trunc();
                    }
                    v = if v < -lenf { v + sz2 } else { -v - 1.0 };
                }
            } else if v > lenf - 1.0 {
                if len <= 1 {
                    v = 0.0;
                } else {
                    let sz2 = 2.0 * lenf;
                    v -= sz2 * (v / sz2).trunc();
                    if v >= lenf {
                        v = sz2 - v - 1.0;
                    }
                }
            }
            clamp(v)
        }
        "WRAP" => {
            let mut v = c;
            if v < 0.0 {
                if len <= 1 {
                    v = 0.0;
                } else {
                    let sz = lenf - 1.0;
                    v += lenf * ((-v / sz).trunc() + 1.0);
                }
            } else if v > lenf - 1.0 {
                if len <= 1 {
                    v = 0.0;
                } else {
                    let sz = lenf - 1.0;
                    v -= lenf * (v / sz).trunc();
                }
            }
            clamp(v)
        }
        "NEAREST" => clamp(c),
        _ => c,
    }
}

fn projective_transform(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Outputs {
    let (images, transforms, out_shape, fill) = (&i[0], &i[1], &i[2], &i[3]);
    let [b, h, w, c] = dims4("ImageProjectiveTransformV3", "images", images.dims())?;
    let td = transforms.dims();
    if transforms.rank() != 2 || td[1] != 8 || (td[0] != 1 && td[0] != b) {
        return Err(invalid_argument(format!(
            "Input transform should be num_images x 8 or 1 x 8, got shape {}",
            transforms.shape()
        )));
    }
    let os = out_shape.as_slice::<i32>()?;
    if out_shape.rank() != 1 || os.len() != 2 {
        return Err(invalid_argument(format!(
            "output shape must be 1-dimensional with two elements, got shape {}",
            out_shape.shape()
        )));
    }
    if os[0] <= 0 || os[1] <= 0 {
        return Err(invalid_argument("output dimensions must be positive"));
    }
    if fill.rank() != 0 {
        return Err(invalid_argument(format!(
            "fill_value must be a scalar, got shape {}",
            fill.shape()
        )));
    }
    let (oh, ow) = (os[0] as usize, os[1] as usize);
    let shape = Shape::new(vec![b, oh, ow, c])?;
    let mode = a.string("fill_mode")?;
    let bilinear = a.string("interpolation")? == "BILINEAR";
    let dtype = images.dtype();
    // The fill value as T, then as float for interpolation, as TF's generator sees it.
    let fill_t = cast_tensor(&cast_tensor(fill, dtype)?, DType::Float32)?;
    let fv = fill_t.f32s()?[0];
    let img = cast_tensor(images, DType::Float32)?;
    let (px, tf) = (img.f32s()?, transforms.f32s()?);
    let mut out = try_alloc::<f32>(shape.num_elements())?;
    let read = |k: usize, y: i64, x: i64, ch: usize| -> f32 {
        if y >= 0 && (y as usize) < h && x >= 0 && (x as usize) < w {
            px[((k * h + y as usize) * w + x as usize) * c + ch]
        } else {
            fv
        }
    };
    let mut o = 0;
    for k in 0..b {
        let t = if td[0] == 1 {
            &tf[..8]
        } else {
            &tf[k * 8..k * 8 + 8]
        };
        for y in 0..oh {
            for x in 0..ow {
                let (xf, yf) = (x as f32, y as f32);
                let proj = t[6] * xf + t[7] * yf + 1.0;
                let (sx, sy) = if proj == 0.0 {
                    (f32::NAN, f32::NAN)
                } else {
                    (
                        map_coordinate(&mode, (t[0] * xf + t[1] * yf + t[2]) / proj, w),
                        map_coordinate(&mode, (t[3] * xf + t[4] * yf + t[5]) / proj, h),
                    )
                };
                // Out-of-image taps read the fill value one by one (TF 2.18 has no early
                // whole-pixel fill for CONSTANT); only an infinite projection fills outright.
                let outside = proj == 0.0;
                for ch in 0..c {
                    out[o] = if outside {
                        fv
                    } else if !bilinear {
                        // A NaN coordinate is outside, as C++'s int64 cast of NaN (Rust's is 0).
                        let at = |v: f32| if v.is_nan() { -1 } else { v.round() as i64 };
                        read(k, at(sy), at(sx), ch)
                    } else {
                        let (y0, x0) = (sy.floor(), sx.floor());
                        let (y1, x1) = (y0 + 1.0, x0 + 1.0);
                        let top = (x1 - sx) * read(k, y0 as i64, x0 as i64, ch)
                            + (sx - x0) * read(k, y0 as i64, x1 as i64, ch);
                        let bottom = (x1 - sx) * read(k, y1 as i64, x0 as i64, ch)
                            + (sx - x0) * read(k, y1 as i64, x1 as i64, ch);
                        (y1 - sy) * top + (sy - y0) * bottom
                    };
                    o += 1;
                }
            }
        }
    }
    Ok(crate::ops::one_output(cast_tensor(
        &Tensor::from_vec(shape, out)?,
        dtype,
    )?))
}

#[cfg(test)]
mod tests {
    use crate::{AttrValue, EagerContext, Tensor};

    /// A rate whose tap offsets overflow a 32-bit usize (TF's int32 attrs cannot say it; this
    /// runtime takes i64): SAME padding centres the window, only the middle tap is inside, and no
    /// offset wraps into the image.
    #[test]
    fn dilation_with_a_huge_rate_reads_only_real_taps() {
        let mut ctx = EagerContext::default();
        let x = Tensor::from_slice(&[1, 1, 2, 1], &[1f32, 2.]).unwrap();
        let f = Tensor::from_slice(&[3, 1, 1], &[0f32, 5., 7.]).unwrap();
        let g = Tensor::from_slice(&[1, 1, 2, 1], &[1f32, 1.]).unwrap();
        let ints = |v: &[i64]| AttrValue::ListInt(v.to_vec());
        let attrs = || {
            vec![
                ("strides", ints(&[1, 1, 1, 1])),
                ("rates", ints(&[1, 1 << 31, 1, 1])),
                ("padding", AttrValue::Str(b"SAME".to_vec())),
            ]
        };
        let out = ctx
            .execute("Dilation2D", &[x.clone(), f.clone()], attrs())
            .unwrap();
        assert_eq!(out[0].f32s().unwrap(), &[6., 7.]);
        let bp = ctx
            .execute("Dilation2DBackpropFilter", &[x, f, g], attrs())
            .unwrap();
        assert_eq!(bp[0].f32s().unwrap(), &[0., 2., 0.]);
    }

    /// An image with an empty width: every output pixel is the fill value, no clamp panic.
    #[test]
    fn projective_transform_of_an_empty_axis_fills() {
        let mut ctx = EagerContext::default();
        let images = Tensor::from_slice(&[1, 2, 0, 1], &[] as &[f32]).unwrap();
        let t = Tensor::from_slice(&[1, 8], &[1f32, 0., 0., 0., 1., 0., 0., 0.]).unwrap();
        let size = Tensor::from_slice(&[2], &[2i32, 2]).unwrap();
        for mode in ["REFLECT", "WRAP", "NEAREST", "CONSTANT"] {
            let out = ctx
                .execute(
                    "ImageProjectiveTransformV3",
                    &[
                        images.clone(),
                        t.clone(),
                        size.clone(),
                        Tensor::scalar(3f32),
                    ],
                    vec![
                        ("interpolation", AttrValue::Str(b"BILINEAR".to_vec())),
                        ("fill_mode", AttrValue::Str(mode.as_bytes().to_vec())),
                    ],
                )
                .unwrap();
            assert_eq!(out[0].f32s().unwrap(), &[3f32; 4], "{mode}");
        }
    }
}
