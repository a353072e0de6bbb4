//! SimpleRNN, LSTM and GRU (both `reset_after` forms) stepped in Rust, one time step at a time as
//! TF ops (no graph control flow); masks (from `Masking` or `Embedding(mask_zero)`) carry the state
//! over masked steps as Keras does. Also `Bidirectional`.

use super::activation::Act;
use super::bind::{Binder, W};
use super::config::Cfg;
use super::run::{Run, Val};
use super::tf::{self, binary, mul, reshape};
use crate::ops::AttrValue;
use crate::status::{invalid_argument, unimplemented, Result};
use crate::tensor::{DType, Shape, Tensor};

#[derive(Clone, Copy, PartialEq)]
pub enum Cell {
    Simple,
    Lstm,
    Gru { reset_after: bool },
}

pub struct Rnn {
    pub cell: Cell,
    pub units: usize,
    act: Act,
    rec_act: Act,
    kernel: W,
    rec: W,
    bias: Option<W>,
    return_sequences: bool,
    pub return_state: bool,
    pub go_backwards: bool,
    /// Masked steps output zeros instead of repeating the previous output (Keras sets this on
    /// the two layers of a `Bidirectional` that returns sequences).
    pub zero_output_for_mask: bool,
}

/// How `Bidirectional` combines its two directions.
#[derive(Clone, Copy, PartialEq)]
pub enum Merge {
    /// Both outputs, separately.
    None,
    Concat,
    Sum,
    Mul,
    Ave,
}

impl Rnn {
    /// Reads an RNN layer's config; its weights live under `prefix` (and, inside a
    /// `Bidirectional`, under the sub-layer `sub`).
    pub fn build(
        class: &str,
        c: &Cfg,
        prefix: &str,
        sub: Option<&str>,
        b: &mut Binder,
        act: Act,
    ) -> Result<Rnn> {
        let cell = match class {
            "SimpleRNN" => Cell::Simple,
            "LSTM" => Cell::Lstm,
            _ => Cell::Gru {
                reset_after: c.bool("reset_after", true)?,
            },
        };
        if c.bool("time_major", false)? {
            return Err(unimplemented(format!(
                "layer '{}': time_major RNNs",
                c.layer
            )));
        }
        let units = c.count("units")?;
        let gates = match cell {
            Cell::Simple => 1,
            Cell::Lstm => 4,
            Cell::Gru { .. } => 3,
        };
        let rec_act = if cell == Cell::Simple {
            Act::Linear
        } else {
            Act::parse(c.str("recurrent_activation", "sigmoid")?)
                .map_err(|e| e.context(format!("layer '{}'", c.layer)))?
        };
        let g = Some(gates * units);
        let kernel = b.take(prefix, sub, "kernel", &[None, g])?;
        let rec = b.take(prefix, sub, "recurrent_kernel", &[Some(units), g])?;
        let bias = if c.bool("use_bias", true)? {
            let want: &[_] = match cell {
                Cell::Gru { reset_after: true } => &[Some(2), g],
                _ => &[g],
            };
            Some(b.take(prefix, sub, "bias", want)?)
        } else {
            None
        };
        Ok(Rnn {
            cell,
            units,
            act,
            rec_act,
            kernel,
            rec,
            bias,
            return_sequences: c.bool("return_sequences", false)?,
            return_state: c.bool("return_state", false)?,
            go_backwards: c.bool("go_backwards", false)?,
            zero_output_for_mask: false,
        })
    }

    pub fn return_sequences(&self) -> bool {
        self.return_sequences
    }

    /// Runs over `x` `[batch, time, features]`: the per-step outputs in processing order, and the
    /// final states (`h`, plus `c` for LSTM).
    fn steps(
        &self,
        run: &mut Run,
        x: &Tensor,
        mask: Option<&Tensor>,
    ) -> Result<(Vec<Tensor>, Vec<Tensor>)> {
        if x.rank() != 3 {
            return Err(invalid_argument(format!(
                "an RNN takes [batch, time, features], got shape {:?}",
                x.dims()
            )));
        }
        let d = tf::dims(x);
        let (batch, time, feat) = (d[0], d[1], d[2]);
        let u = self.units as i64;
        let k = run.weight(self.kernel)?;
        let rec = run.weight(self.rec)?;
        // Inputs times kernel for every step in one MatMul; the input bias too.
        let flat = reshape(run.ctx, x, &[batch * time, feat])?;
        let mut xw = tf::matmul(run.ctx, &flat, &k)?;
        let mut rec_bias = None;
        if let Some(bw) = self.bias {
            let bias = run.weight(bw)?;
            let in_bias = if self.cell == (Cell::Gru { reset_after: true }) {
                let rows = tf::unpack(run.ctx, &bias, 0)?;
                rec_bias = Some(rows[1].clone());
                rows[0].clone()
            } else {
                bias
            };
            xw = tf::bias_add(run.ctx, &xw, &in_bias)?;
        }
        let xw = reshape(run.ctx, &xw, &[batch, time, -1])?;
        let xs = if time > 0 {
            tf::unpack(run.ctx, &xw, 1)?
        } else {
            Vec::new()
        };
        let masks = match mask {
            Some(m) if time > 0 => {
                if m.dims() != [batch as usize, time as usize] {
                    return Err(invalid_argument(format!(
                        "mask of shape {:?} for an RNN input of shape {:?}",
                        m.dims(),
                        d
                    )));
                }
                let m = tf::expand_dims(run.ctx, m, 2)?;
                Some(tf::unpack(run.ctx, &m, 1)?)
            }
            _ => None,
        };
        // GRU without reset_after multiplies `r * h` by the candidate's block of the recurrent
        // kernel only: split it once.
        let rec_parts = if self.cell == (Cell::Gru { reset_after: false }) {
            let rz = tf::slice(run.ctx, &rec, &[0, 0], &[u, 2 * u])?;
            let rh = tf::slice(run.ctx, &rec, &[0, 2 * u], &[u, u])?;
            Some((rz, rh))
        } else {
            None
        };
        let zeros = Tensor::zeros(
            DType::Float32,
            Shape::new(vec![batch as usize, self.units])?,
        )?;
        let mut h = zeros.clone();
        let mut c = zeros.clone();
        let mut outs = Vec::with_capacity(time as usize);
        let order: Vec<usize> = if self.go_backwards {
            (0..time as usize).rev().collect()
        } else {
            (0..time as usize).collect()
        };
        for t in order {
            let xt = &xs[t];
            let (h_new, c_new) = match self.cell {
                Cell::Simple => {
                    let hu = tf::matmul(run.ctx, &h, &rec)?;
                    let z = tf::add(run.ctx, xt, &hu)?;
                    (self.act.apply(run.ctx, z)?, None)
                }
                Cell::Lstm => {
                    let hu = tf::matmul(run.ctx, &h, &rec)?;
                    let z = tf::add(run.ctx, xt, &hu)?;
                    let g = split(run, &z, 4)?;
                    let i = self.rec_act.apply(run.ctx, g[0].clone())?;
                    let f = self.rec_act.apply(run.ctx, g[1].clone())?;
                    let cand = self.act.apply(run.ctx, g[2].clone())?;
                    let o = self.rec_act.apply(run.ctx, g[3].clone())?;
                    let fc = mul(run.ctx, &f, &c)?;
                    let ig = mul(run.ctx, &i, &cand)?;
                    let c2 = tf::add(run.ctx, &fc, &ig)?;
                    let ac = self.act.apply(run.ctx, c2.clone())?;
                    (mul(run.ctx, &o, &ac)?, Some(c2))
                }
                Cell::Gru { reset_after } => {
                    let xg = split(run, xt, 3)?;
                    let (z, hh) = if reset_after {
                        let mut inner = tf::matmul(run.ctx, &h, &rec)?;
                        if let Some(rb) = &rec_bias {
                            inner = tf::bias_add(run.ctx, &inner, rb)?;
                        }
                        let ig = split(run, &inner, 3)?;
                        let zs = tf::add(run.ctx, &xg[0], &ig[0])?;
                        let z = self.rec_act.apply(run.ctx, zs)?;
                        let rs = tf::add(run.ctx, &xg[1], &ig[1])?;
                        let r = self.rec_act.apply(run.ctx, rs)?;
                        let rh = mul(run.ctx, &r, &ig[2])?;
                        let hh = tf::add(run.ctx, &xg[2], &rh)?;
                        (z, self.act.apply(run.ctx, hh)?)
                    } else {
                        let (rz, rh) = rec_parts.as_ref().expect("made for this cell");
                        let inner = tf::matmul(run.ctx, &h, rz)?;
                        let ig = split(run, &inner, 2)?;
                        let zs = tf::add(run.ctx, &xg[0], &ig[0])?;
                        let z = self.rec_act.apply(run.ctx, zs)?;
                        let rs = tf::add(run.ctx, &xg[1], &ig[1])?;
                        let r = self.rec_act.apply(run.ctx, rs)?;
                        let r_h = mul(run.ctx, &r, &h)?;
                        let rh_h = tf::matmul(run.ctx, &r_h, rh)?;
                        let hh = tf::add(run.ctx, &xg[2], &rh_h)?;
                        (z, self.act.apply(run.ctx, hh)?)
                    };
                    // h = z * h + (1 - z) * hh = hh + z * (h - hh)
                    let diff = binary(run.ctx, "Sub", &h, &hh)?;
                    {
                        let zd = mul(run.ctx, &z, &diff)?;
                        (tf::add(run.ctx, &hh, &zd)?, None)
                    }
                }
            };
            match &masks {
                // A masked step keeps the previous state and repeats the previous output (or
                // outputs zeros).
                Some(m) => {
                    if self.zero_output_for_mask {
                        outs.push(tf::select(run.ctx, &m[t], &h_new, &zeros)?);
                    }
                    h = tf::select(run.ctx, &m[t], &h_new, &h)?;
                    if let Some(c2) = c_new {
                        c = tf::select(run.ctx, &m[t], &c2, &c)?;
                    }
                    if !self.zero_output_for_mask {
                        outs.push(h.clone());
                    }
                }
                None => {
                    h = h_new;
                    if let Some(c2) = c_new {
                        c = c2;
                    }
                    outs.push(h.clone());
                }
            }
        }
        let states = if self.cell == Cell::Lstm {
            vec![h, c]
        } else {
            vec![h]
        };
        Ok((outs, states))
    }

    fn sequence(&self, run: &mut Run, outs: &[Tensor], batch: usize) -> Result<Tensor> {
        if outs.is_empty() {
            return Tensor::zeros(DType::Float32, Shape::new(vec![batch, 0, self.units])?);
        }
        tf::stack(run.ctx, outs, 1)
    }

    /// The layer's outputs: the sequence or the last output, then the states if `return_state`.
    pub fn call(&self, run: &mut Run, x: &Tensor, mask: Option<&Tensor>) -> Result<Vec<Val>> {
        let (outs, states) = self.steps(run, x, mask)?;
        let batch = x.dims()[0];
        let out = if self.return_sequences {
            Val {
                t: self.sequence(run, &outs, batch)?,
                mask: mask.cloned(),
            }
        } else {
            Val {
                t: states[0].clone(),
                mask: None,
            }
        };
        let mut v = vec![out];
        if self.return_state {
            v.extend(states.into_iter().map(|t| Val { t, mask: None }));
        }
        Ok(v)
    }
}

fn split(run: &mut Run, x: &Tensor, n: i64) -> Result<Vec<Tensor>> {
    tf::exec(
        run.ctx,
        "Split",
        &[Tensor::scalar(1i32), x.clone()],
        vec![("num_split", AttrValue::Int(n))],
    )
}

/// Both directions over `x`; the backward one's sequence is flipped back to input order.
pub fn bidirectional(
    run: &mut Run,
    fwd: &Rnn,
    bwd: &Rnn,
    merge: Merge,
    x: &Tensor,
    mask: Option<&Tensor>,
) -> Result<Vec<Val>> {
    let (fo, fs) = fwd.steps(run, x, mask)?;
    let (mut bo, bs) = bwd.steps(run, x, mask)?;
    let batch = x.dims()[0];
    let (a, b) = if fwd.return_sequences {
        bo.reverse();
        (
            fwd.sequence(run, &fo, batch)?,
            bwd.sequence(run, &bo, batch)?,
        )
    } else {
        (fs[0].clone(), bs[0].clone())
    };
    let out_mask = if fwd.return_sequences {
        mask.cloned()
    } else {
        None
    };
    let val = |t| Val {
        t,
        mask: out_mask.clone(),
    };
    Ok(match merge {
        Merge::None => vec![val(a), val(b)],
        Merge::Concat => vec![val(tf::concat(run.ctx, &[a, b], -1)?)],
        Merge::Sum => vec![val(tf::add(run.ctx, &a, &b)?)],
        Merge::Mul => vec![val(mul(run.ctx, &a, &b)?)],
        Merge::Ave => {
            let s = tf::add(run.ctx, &a, &b)?;
            vec![val(mul(run.ctx, &s, &tf::scalar(0.5))?)]
        }
    })
}
