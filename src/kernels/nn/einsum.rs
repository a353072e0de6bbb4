//! Einsum over one or two float32 operands, as Keras' EinsumDense and attention layers emit it
//! (`abc,cd->abd`, `aecd,abcd->acbe`, `...ij,...jk->...ik`). Every label not in the output is
//! contracted (an operand lacking it is read with stride 0, which sums the other one over it), so
//! one strided view per operand plus a batched SGEMM covers products, sums and transposes.

use super::gemm::{sgemm, MatRef};
use crate::kernels::array::gather_strided;
use crate::ops::def::FLOAT;
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, unimplemented, Result};
use crate::tensor::{try_alloc, Shape, Tensor};

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("Einsum", Simple(einsum))
            .inputs_n("inputs", "N", "T")
            .string_attr("equation", None)
            .type_attr("T", FLOAT),
    );
}

/// Size of each label (a few; a vector is smaller in wasm than a map).
#[derive(Default)]
struct Sizes(Vec<(u32, usize)>);

impl Sizes {
    fn get(&self, l: u32) -> Option<usize> {
        self.0.iter().find(|e| e.0 == l).map(|e| e.1)
    }
    fn at(&self, l: u32) -> usize {
        self.get(l).unwrap_or(1)
    }
    /// The size slot of `l`, inserted as `d` when new.
    fn entry(&mut self, l: u32, d: usize) -> &mut usize {
        let k = match self.0.iter().position(|e| e.0 == l) {
            Some(k) => k,
            None => {
                self.0.push((l, d));
                self.0.len() - 1
            }
        };
        &mut self.0[k].1
    }
}

/// Ellipsis dims become labels 256.. (numbered from the right, so they broadcast right-aligned).
const ELLIPSIS: u32 = 256;

/// One operand's labels, with its ellipsis expanded to `rank - explicit labels` dims.
fn expand(spec: &str, rank: usize, what: &str) -> Result<Vec<u32>> {
    let explicit = spec.chars().filter(|c| c.is_ascii_alphabetic()).count();
    let mut out = Vec::with_capacity(rank);
    let mut rest = spec;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("...") {
            let n = rank
                .checked_sub(explicit)
                .ok_or_else(|| bad_rank(what, rank, spec))?;
            out.extend((0..n).map(|k| ELLIPSIS + (n - 1 - k) as u32));
            rest = &rest[3..];
        } else if c.is_ascii_alphabetic() {
            out.push(c as u32);
            rest = &rest[1..];
        } else {
            return Err(invalid_argument(format!(
                "Einsum: invalid character '{c}' in equation subscripts '{spec}'"
            )));
        }
    }
    if out.len() != rank {
        return Err(bad_rank(what, rank, spec));
    }
    Ok(out)
}

fn bad_rank(what: &str, rank: usize, spec: &str) -> crate::status::Status {
    invalid_argument(format!(
        "Einsum: {what} has rank {rank}, which does not match its subscripts '{spec}'"
    ))
}

fn einsum(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let eq: String = a
        .string("equation")?
        .chars()
        .filter(|c| *c != ' ')
        .collect();
    if inputs.len() > 2 {
        return Err(unimplemented(
            "Einsum: more than two operands are not supported",
        ));
    }
    let (lhs, r) = match eq.split_once("->") {
        Some((l, r)) if !r.contains("->") => (l, r),
        _ => {
            return Err(invalid_argument(format!(
                "Expecting exactly one '->' in einsum equation: {eq}"
            )))
        }
    };
    let specs: Vec<&str> = lhs.split(',').collect();
    if specs.len() != inputs.len() {
        return Err(invalid_argument(format!(
            "Einsum: expected {} inputs for equation '{eq}', got {}",
            specs.len(),
            inputs.len()
        )));
    }
    let labels: Vec<Vec<u32>> = specs
        .iter()
        .zip(inputs)
        .enumerate()
        .map(|(k, (s, t))| expand(s, t.rank(), &format!("input {k}")))
        .collect::<Result<_>>()?;
    for l in &labels {
        if (1..l.len()).any(|k| l[..k].contains(&l[k])) {
            return Err(unimplemented(format!(
                "Einsum: a label repeated within one operand (a diagonal) is not supported: '{eq}'"
            )));
        }
    }
    // Sizes of every label: equal where shared, except ellipsis dims, which broadcast from 1.
    let mut size = Sizes::default();
    for (l, t) in labels.iter().zip(inputs) {
        for (&lab, &d) in l.iter().zip(t.dims()) {
            let s = size.entry(lab, d);
            if *s != d {
                if lab >= ELLIPSIS && (*s == 1 || d == 1) {
                    // Broadcast: a size-1 dim stretches to the other (even to 0).
                    if *s == 1 {
                        *s = d;
                    }
                } else {
                    return Err(invalid_argument(format!(
                        "Einsum: label '{}' has size {} in one operand and {d} in another \
                         (equation '{eq}')",
                        label_name(lab),
                        *s
                    )));
                }
            }
        }
    }
    let rank = r.chars().filter(|c| c.is_ascii_alphabetic()).count()
        + size.0.iter().filter(|&&(l, _)| l >= ELLIPSIS).count() * usize::from(r.contains("..."));
    let out_labels = expand(r, rank, "the output")?;
    if let Some(&l) = out_labels.iter().find(|&&l| size.get(l).is_none()) {
        return Err(invalid_argument(format!(
            "Einsum: output label '{}' appears in no input (equation '{eq}')",
            label_name(l)
        )));
    }
    // Contracted labels in a fixed (sorted) order.
    let mut contracted: Vec<u32> = size
        .0
        .iter()
        .map(|&(l, _)| l)
        .filter(|l| !out_labels.contains(l))
        .collect();
    for k in 1..contracted.len() {
        let mut j = k;
        while j > 0 && contracted[j - 1] > contracted[j] {
            contracted.swap(j - 1, j);
            j -= 1;
        }
    }
    let sz = |ls: &[u32]| -> Vec<usize> { ls.iter().map(|&l| size.at(l)).collect() };
    let out_shape = Shape::new(sz(&out_labels))?;
    let k: usize = sz(&contracted).iter().product();

    if inputs.len() == 1 {
        // Transpose to [output..., contracted...] and sum each row of `k`.
        let order: Vec<u32> = out_labels.iter().chain(&contracted).copied().collect();
        let v = view(&inputs[0], &labels[0], &order, &size)?;
        let x = v.f32s()?;
        let mut out = try_alloc::<f32>(out_shape.num_elements())?;
        if k > 0 {
            for (o, row) in out.iter_mut().zip(x.chunks_exact(k)) {
                *o = row.iter().sum();
            }
        }
        return Ok(vec![Tensor::from_vec(out_shape, out)?]);
    }
    let (la, lb) = (&labels[0], &labels[1]);
    let batch: Vec<u32> = out_labels
        .iter()
        .copied()
        .filter(|l| la.contains(l) && lb.contains(l))
        .collect();
    let free_a: Vec<u32> = out_labels
        .iter()
        .copied()
        .filter(|l| !batch.contains(l) && la.contains(l))
        .collect();
    let free_b: Vec<u32> = out_labels
        .iter()
        .copied()
        .filter(|l| !batch.contains(l) && !la.contains(l))
        .collect();
    let nb: usize = sz(&batch).iter().product();
    let m: usize = sz(&free_a).iter().product();
    let n: usize = sz(&free_b).iter().product();
    let order_a: Vec<u32> = [&batch[..], &free_a, &contracted].concat();
    let order_b: Vec<u32> = [&batch[..], &contracted, &free_b].concat();
    let va = view(&inputs[0], la, &order_a, &size)?;
    let vb = view(&inputs[1], lb, &order_b, &size)?;
    let (xa, xb) = (va.f32s()?, vb.f32s()?);
    let mut prod = try_alloc::<f32>(nb * m * n)?;
    if m * n > 0 {
        for bi in 0..nb {
            let c = &mut prod[bi * m * n..(bi + 1) * m * n];
            let a_mat = MatRef::new(&xa[bi * m * k..(bi + 1) * m * k], m, k, false)?;
            let b_mat = MatRef::new(&xb[bi * k * n..(bi + 1) * k * n], k, n, false)?;
            sgemm(a_mat, b_mat, c, &mut |_, _, _| {})?;
        }
    }
    // [batch, free_a, free_b] to the output's label order.
    let have: Vec<u32> = [&batch[..], &free_a, &free_b].concat();
    let p = Tensor::from_vec(Shape::new(sz(&have))?, prod)?;
    Ok(vec![view(&p, &have, &out_labels, &size)?])
}

fn label_name(l: u32) -> String {
    if l >= ELLIPSIS {
        "...".to_string()
    } else {
        char::from_u32(l).map_or_else(String::new, String::from)
    }
}

/// `t` (whose dims carry `labels`) laid out contiguously in `order`; labels it lacks, or has
/// with size 1 where `size` is larger, are read with stride 0.
fn view(t: &Tensor, labels: &[u32], order: &[u32], size: &Sizes) -> Result<Tensor> {
    let d = t.dims();
    let mut own = vec![0isize; d.len()];
    let mut acc = 1isize;
    for i in (0..d.len()).rev() {
        own[i] = acc;
        acc *= d[i] as isize;
    }
    let dims: Vec<usize> = order.iter().map(|&l| size.at(l)).collect();
    let strides: Vec<isize> = order
        .iter()
        .map(|&l| match labels.iter().position(|&x| x == l) {
            Some(i) if d[i] == size.at(l) => own[i],
            _ => 0,
        })
        .collect();
    if t.num_elements() == 0 {
        let n: usize = dims.iter().product();
        if n > 0 {
            // A stretched empty operand: nothing to read, the sum over it is zero.
            return Tensor::from_vec(Shape::new(dims)?, try_alloc::<f32>(n)?);
        }
    }
    gather_strided(t, 0, &dims, &strides, Shape::new(dims.clone())?)
}
