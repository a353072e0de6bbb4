//! Sliding-window geometry shared by convolutions and pools: attr validation (strides, dilations,
//! padding) and TF's output-size / padding arithmetic (`GetWindowedOutputSizeVerbose`).

use crate::ops::{NodeAttrs, OpBuilder};
use crate::status::{invalid_argument, unimplemented, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Padding {
    Same,
    Valid,
    /// Per spatial dim (before, after) for H and W.
    Explicit([(usize, usize); 2]),
}

/// One spatial dimension of a window: output size and padding before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dim1 {
    pub input: usize,
    pub window: usize,
    pub stride: usize,
    pub dilation: usize,
    pub output: usize,
    pub pad_before: usize,
}

/// Output size and leading padding exactly as TF computes them; `explicit` is (before, after).
/// Signed math with truncating division mirrors TF's int64 arithmetic (VALID with a window larger
/// than the input can give 0 rather than an error).
pub fn windowed_output(
    input: usize,
    window: usize,
    stride: usize,
    dilation: usize,
    padding: Padding,
    explicit: (usize, usize),
) -> Result<Dim1> {
    let to_i = |v: usize| i64::try_from(v).map_err(|_| invalid_argument("window size too large"));
    let (inp, k, s, d) = (to_i(input)?, to_i(window)?, to_i(stride)?, to_i(dilation)?);
    if s <= 0 {
        return Err(invalid_argument("stride must be > 0"));
    }
    let eff = k
        .checked_sub(1)
        .and_then(|x| x.checked_mul(d))
        .and_then(|x| x.checked_add(1))
        .ok_or_else(|| invalid_argument("effective window size overflows"))?;
    let (out, pad) = match padding {
        Padding::Valid => ((inp - eff + s) / s, 0),
        Padding::Same => {
            let out = (inp + s - 1) / s;
            let needed = ((out - 1) * s + eff - inp).max(0);
            (out, needed / 2)
        }
        Padding::Explicit(_) => {
            let (b, a) = (to_i(explicit.0)?, to_i(explicit.1)?);
            // In i128: padded size and window can each be near i64::MAX.
            let out = (inp as i128 + b as i128 + a as i128 - eff as i128 + s as i128) / s as i128;
            let out = i64::try_from(out)
                .map_err(|_| invalid_argument("explicit padding makes the output too large"))?;
            (out, b)
        }
    };
    if out < 0 {
        return Err(invalid_argument(format!(
            "Computed output size would be negative: {out} [input_size: {input}, \
             effective_filter_size: {eff}, stride: {stride}]"
        )));
    }
    // Checked, not `as`: on wasm32 a large padding's output size would wrap.
    let (output, pad_before) = match (usize::try_from(out), usize::try_from(pad)) {
        (Ok(o), Ok(p)) => (o, p),
        _ => {
            return Err(invalid_argument(format!(
                "Computed output size {out} is too large [input_size: {input}, padding: {pad}]"
            )))
        }
    };
    Ok(Dim1 {
        input,
        window,
        stride,
        dilation,
        output,
        pad_before,
    })
}

/// Declares the window-padding attrs every conv and pool op shares, in TF's order: `padding`
/// (SAME, VALID or EXPLICIT), `explicit_paddings`, and `data_format` among `formats` (NHWC default).
pub fn padding_attrs(b: OpBuilder, formats: &'static [&'static str]) -> OpBuilder {
    b.enum_attr("padding", &["SAME", "VALID", "EXPLICIT"], None)
        .ints_attr("explicit_paddings", Some(&[]))
        .enum_attr("data_format", formats, Some("NHWC"))
}

/// Largest explicit padding accepted (TF's int32 shape arithmetic): larger values would overflow a
/// 32-bit `usize` on wasm32 and wrap to a small, wrong output size.
pub const MAX_EXPLICIT_PADDING: i64 = i32::MAX as i64;

/// Reads the `padding` attr (and `explicit_paddings` when the op has it) for NHWC 4-D inputs.
pub fn padding_attr(a: &NodeAttrs, has_explicit: bool) -> Result<Padding> {
    let p = a.string("padding")?;
    let explicit: &[i64] = if has_explicit {
        a.ints("explicit_paddings")?
    } else {
        &[]
    };
    match p.as_str() {
        "SAME" | "VALID" => {
            if !explicit.is_empty() {
                return Err(invalid_argument(format!(
                    "explicit_paddings must be empty if padding is not EXPLICIT, got {explicit:?}"
                )));
            }
            Ok(if p == "SAME" {
                Padding::Same
            } else {
                Padding::Valid
            })
        }
        "EXPLICIT" => {
            if explicit.len() != 8 {
                return Err(invalid_argument(format!(
                    "explicit_paddings attribute must contain 8 values, but got: {}",
                    explicit.len()
                )));
            }
            if explicit.iter().any(|&v| v < 0) {
                return Err(invalid_argument(format!(
                    "All elements of explicit_paddings must be nonnegative, got {explicit:?}"
                )));
            }
            if explicit.iter().any(|&v| v > MAX_EXPLICIT_PADDING) {
                return Err(invalid_argument(format!(
                    "explicit_paddings must be at most {MAX_EXPLICIT_PADDING}, got {explicit:?}"
                )));
            }
            if explicit[0] != 0 || explicit[1] != 0 || explicit[6] != 0 || explicit[7] != 0 {
                return Err(invalid_argument(
                    "Nonzero explicit padding in the batch or depth dimensions is not supported",
                ));
            }
            let u = |v: i64| {
                usize::try_from(v).map_err(|_| invalid_argument("explicit padding too large"))
            };
            Ok(Padding::Explicit([
                (u(explicit[2])?, u(explicit[3])?),
                (u(explicit[4])?, u(explicit[5])?),
            ]))
        }
        other => Err(invalid_argument(format!("unknown padding \"{other}\""))),
    }
}

/// Rejects data formats other than NHWC (legit in TF, not supported here).
pub fn require_nhwc(a: &NodeAttrs) -> Result<()> {
    let f = a.string("data_format")?;
    if f != "NHWC" {
        return Err(unimplemented(format!(
            "{}: data_format {f} is not supported (only NHWC)",
            a.op()
        )));
    }
    Ok(())
}

/// Rejects data formats other than NHWC / NDHWC as TF's CPU gradient kernels do (InvalidArgument,
/// where the forward kernels' refusal is Unimplemented).
pub fn require_channels_last_grad(a: &NodeAttrs) -> Result<()> {
    let f = a.string("data_format")?;
    if f != "NHWC" && f != "NDHWC" {
        return Err(invalid_argument(format!(
            "{}: only NHWC / NDHWC data_format is supported on CPU, got {f}",
            a.op()
        )));
    }
    Ok(())
}

/// A 4-entry NHWC attr list (strides, dilations, ksize) as spatial (h, w) after checking that it
/// has 4 entries, is positive, and is 1 in the batch and depth dims (`batch_depth_code` chooses
/// the error TF raises for that).
pub fn spatial_pair(
    a: &NodeAttrs,
    name: &str,
    unimplemented_batch_depth: bool,
) -> Result<(usize, usize)> {
    let v = a.ints(name)?;
    if v.len() != 4 {
        return Err(invalid_argument(format!(
            "Sliding window {name} field must specify 4 dimensions, got {}",
            v.len()
        )));
    }
    if v[0] != 1 || v[3] != 1 {
        let msg =
            format!("Current implementation does not yet support {name} in the batch and depth dimensions, got {v:?}");
        return Err(if unimplemented_batch_depth {
            unimplemented(msg)
        } else {
            invalid_argument(msg)
        });
    }
    if v[1] <= 0 || v[2] <= 0 {
        return Err(invalid_argument(format!(
            "{name} should be larger than 0 in the spatial dimensions, got {v:?}"
        )));
    }
    let u = |x: i64| usize::try_from(x).map_err(|_| invalid_argument(format!("{name} too large")));
    Ok((u(v[1])?, u(v[2])?))
}

/// Both spatial dims of a 2-D window over an NHWC input of `(h, w)`.
pub fn windowed_2d(
    (h, w): (usize, usize),
    (kh, kw): (usize, usize),
    (sh, sw): (usize, usize),
    (dh, dw): (usize, usize),
    padding: Padding,
) -> Result<[Dim1; 2]> {
    let (eh, ew) = match padding {
        Padding::Explicit(p) => (p[0], p[1]),
        _ => ((0, 0), (0, 0)),
    };
    Ok([
        windowed_output(h, kh, sh, dh, padding, eh)?,
        windowed_output(w, kw, sw, dw, padding, ew)?,
    ])
}

/// Dims of a rank-4 tensor or InvalidArgument naming the input.
pub fn dims4(op: &str, what: &str, dims: &[usize]) -> Result<[usize; 4]> {
    <[usize; 4]>::try_from(dims).map_err(|_| {
        invalid_argument(format!(
            "{op}: {what} must be 4-dimensional, got shape {dims:?}"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_padding_matches_tf() {
        // in 5, k 3, s 2 -> out 3, needed (2*2+3-5)=2 -> before 1
        let d = windowed_output(5, 3, 2, 1, Padding::Same, (0, 0)).unwrap();
        assert_eq!((d.output, d.pad_before), (3, 1));
        // in 4, k 3, s 2 -> out 2, needed (2+3-4)=1 -> before 0
        let d = windowed_output(4, 3, 2, 1, Padding::Same, (0, 0)).unwrap();
        assert_eq!((d.output, d.pad_before), (2, 0));
        // dilation 2: eff 5; in 4, s 1: out 4, needed 3+5-4=4 -> 2
        let d = windowed_output(4, 3, 1, 2, Padding::Same, (0, 0)).unwrap();
        assert_eq!((d.output, d.pad_before), (4, 2));
    }

    #[test]
    fn valid_truncates_like_cpp() {
        // (2 - 5 + 2) / 2 = -1/2 = 0 in C++
        assert_eq!(
            windowed_output(2, 5, 2, 1, Padding::Valid, (0, 0))
                .unwrap()
                .output,
            0
        );
        assert!(windowed_output(2, 5, 1, 1, Padding::Valid, (0, 0)).is_err());
        let e = Padding::Explicit([(1, 2), (0, 0)]);
        let d = windowed_output(3, 3, 1, 1, e, (1, 2)).unwrap();
        assert_eq!((d.output, d.pad_before), (4, 1));
    }
}
