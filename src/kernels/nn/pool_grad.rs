//! Gradients of the pools (MaxPoolGrad, AvgPoolGrad, MaxPool3DGrad, AvgPool3DGrad), NHWC/NDHWC,
//! as TF's CPU kernels compute them: AvgPool spreads each output's gradient evenly over the
//! window's cells inside the input; MaxPoolGrad gives it to the first maximum of the window in
//! row-major order (TF's argmax: NaN only when it comes first); MaxPool3DGrad gives it to every
//! cell within 1e-5 of `orig_output` (TF's CPU mask, ties included). Plain window loops.

use super::pool::geometry;
use super::volume::{dims5, padding, spatial3, Win3};
use super::window::{padding_attrs, require_channels_last_grad};
use crate::ops::def::FLOAT;
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_alloc, DType, Shape, Tensor};

pub fn register(reg: &mut Registry) {
    let attrs = |b: OpBuilder, explicit: bool, d3: bool| {
        let b = b.ints_attr("ksize", None).ints_attr("strides", None);
        let b = match (explicit, d3) {
            (true, _) => padding_attrs(b, &["NHWC", "NCHW"]),
            (false, false) => b.enum_attr("padding", &["SAME", "VALID"], None).enum_attr(
                "data_format",
                &["NHWC", "NCHW"],
                Some("NHWC"),
            ),
            (false, true) => b.enum_attr("padding", &["SAME", "VALID"], None).enum_attr(
                "data_format",
                &["NDHWC", "NCDHW"],
                Some("NDHWC"),
            ),
        };
        b.type_attr_default("T", FLOAT, DType::Float32)
    };
    reg.add(attrs(
        OpBuilder::new("MaxPoolGrad", Simple(pool_grad))
            .input("orig_input", "T")
            .input("orig_output", "T")
            .input("grad", "T"),
        true,
        false,
    ));
    reg.add(
        attrs(
            OpBuilder::new("MaxPool3DGrad", Simple(pool_grad))
                .input("orig_input", "TInput")
                .input("orig_output", "TInput")
                .input("grad", "T"),
            false,
            true,
        )
        .type_attr_default("TInput", FLOAT, DType::Float32),
    );
    for (name, d3) in [("AvgPoolGrad", false), ("AvgPool3DGrad", true)] {
        reg.add(attrs(
            OpBuilder::new(name, Simple(pool_grad))
                .fixed_input("orig_input_shape", DType::Int32)
                .input("grad", "T"),
            false,
            d3,
        ));
    }
}

/// How a window's gradient reaches its input cells.
#[derive(Clone, Copy)]
enum Rule<'a> {
    Avg,
    /// MaxPoolGrad: to the first maximum of `x` in the window.
    FirstMax(&'a [f32]),
    /// MaxPool3DGrad: to every cell of `x` within 1e-5 of the forward output `y`.
    NearMax(&'a [f32], &'a [f32]),
}

fn pool_grad(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    require_channels_last_grad(a)?;
    let op = a.op();
    let d3 = op.contains("3D");
    let max = op.starts_with("Max");
    let rank = if d3 { 5 } else { 4 };
    let dy = &i[i.len() - 1];
    let x_dims: Vec<usize> = if max {
        for (t, what) in i.iter().zip(["orig_input", "orig_output", "grad"]) {
            if t.rank() != rank {
                return Err(invalid_argument(format!(
                    "{op}: {what} must be {rank}-dimensional, got shape {}",
                    t.shape()
                )));
            }
        }
        i[0].dims().to_vec()
    } else {
        let s = i[0].as_slice::<i32>()?;
        if i[0].rank() != 1 || s.len() != rank {
            return Err(invalid_argument(format!(
                "{op}: orig_input_shape must be 1-dimensional and {rank} elements, got shape {}",
                i[0].shape()
            )));
        }
        if dy.rank() != rank {
            return Err(invalid_argument(format!(
                "{op}: grad must be {rank}-dimensional, got shape {}",
                dy.shape()
            )));
        }
        let v: Vec<i64> = s.iter().map(|&d| d as i64).collect();
        Shape::from_i64(&v)?.dims().to_vec()
    };
    let (n, c, win) = if d3 {
        let [n, d, h, w, c] = dims5(op, "orig_input", &x_dims)?;
        let p = padding(a)?;
        let g = Win3::new(
            [d, h, w],
            spatial3(a, "ksize", false)?,
            spatial3(a, "strides", false)?,
            [1, 1, 1],
            p,
        )?;
        (n, c, g)
    } else {
        let ([n, _, _, c], win) = geometry(a, &x_dims, max)?;
        (n, c, Win3::from_2d(&win))
    };
    let mut want = vec![n];
    want.extend_from_slice(&win.out[3 - (rank - 2)..]);
    want.push(c);
    let expect = |t: &Tensor, what: &str| {
        if t.dims() != want {
            return Err(invalid_argument(format!(
                "{op}: Expected {what} shape to be {want:?}, but got {}",
                t.shape()
            )));
        }
        Ok(())
    };
    let rule = if max {
        expect(&i[1], "orig_output")?;
        if d3 {
            Rule::NearMax(i[0].f32s()?, i[1].f32s()?)
        } else {
            Rule::FirstMax(i[0].f32s()?)
        }
    } else {
        Rule::Avg
    };
    expect(dy, "grad")?;
    let shape = Shape::new(x_dims)?;
    let mut dx = try_alloc::<f32>(shape.num_elements())?;
    spread(&win, n, c, rule, dy.f32s()?, &mut dx);
    Ok(crate::ops::one_output(Tensor::from_vec(shape, dx)?))
}

/// Adds each output cell's gradient `g` into `dx` over its window by `rule`. The shapes are
/// checked: `dx` is [n, input..., c], `g` (and a rule's `y`) [n, out..., c].
fn spread(w: &Win3, n: usize, c: usize, rule: Rule<'_>, g: &[f32], dx: &mut [f32]) {
    if c == 0 {
        return;
    }
    let (m, vol) = (w.cells(), w.input.iter().product::<usize>() * c);
    let mut cells = Vec::new();
    for img in 0..n {
        for q in 0..m {
            cells.clear();
            w.taps(w.position(q), c, |_, at| cells.push(img * vol + at));
            let Some(&first) = cells.first() else {
                continue;
            };
            let row = (img * m + q) * c;
            let gs = &g[row..row + c];
            match rule {
                Rule::Avg => {
                    let k = cells.len() as f32;
                    for &at in &cells {
                        for (d, &v) in dx[at..at + c].iter_mut().zip(gs) {
                            *d += v / k;
                        }
                    }
                }
                Rule::FirstMax(x) => {
                    for (ch, &v) in gs.iter().enumerate() {
                        let mut best = first + ch;
                        for &at in &cells[1..] {
                            if x[best] < x[at + ch] {
                                best = at + ch;
                            }
                        }
                        dx[best] += v;
                    }
                }
                Rule::NearMax(x, y) => {
                    for &at in &cells {
                        for ch in 0..c {
                            if (x[at + ch] - y[row + ch]).abs() < 1e-5 {
                                dx[at + ch] += gs[ch];
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::nn::window::{windowed_output, Padding};

    #[test]
    fn max_grad_first_maximum_wins_ties() {
        // 3x3, 2x2 windows, stride 1: ties go to the first maximum in row-major order.
        let x = [1f32, 3., 3., 3., 2., 3., 0., 3., 1.];
        let d = windowed_output(3, 2, 1, 1, Padding::Valid, (0, 0)).unwrap();
        let mut dx = vec![0.0; 9];
        let g = [1., 10., 100., 1000.];
        spread(
            &Win3::from_2d(&[d, d]),
            1,
            1,
            Rule::FirstMax(&x),
            &g,
            &mut dx,
        );
        assert_eq!(dx, [0., 11., 0., 100., 0., 1000., 0., 0., 0.]);
    }

    #[test]
    fn huge_window_costs_only_its_cells() {
        // SAME with a window of 2^30: one output per input cell, each window clipped to the
        // 2x2 input (4 cells), not 2^60 taps.
        let d = windowed_output(2, 1 << 30, 1, 1, Padding::Same, (0, 0)).unwrap();
        let mut dx = vec![0.0; 4];
        spread(&Win3::from_2d(&[d, d]), 1, 1, Rule::Avg, &[4.; 4], &mut dx);
        assert_eq!(dx, [4.; 4]);
        let x = [1f32, 2., 4., 3.];
        let mut dx = vec![0.0; 4];
        spread(
            &Win3::from_2d(&[d, d]),
            1,
            1,
            Rule::FirstMax(&x),
            &[1.; 4],
            &mut dx,
        );
        assert_eq!(dx, [0., 0., 4., 0.]);
    }
}
