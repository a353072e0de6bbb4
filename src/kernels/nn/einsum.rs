//! Einsum over one or two float32 operands, as Keras' EinsumDense and attention layers emit it
//! (`abc,cd->abd`, `aecd,abcd->acbe`, `...ij,...jk->...ik`). Every label not in the output is
//! contracted (an operand lacking it is read with stride 0, which sums the other one over it), so
//! one strided view per operand plus a batched SGEMM covers products, sums and transposes. A label
//! repeated in an operand reads its diagonal (one strided view).

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
        // As TF's kernel: tf.einsum splits longer products into pairwise Einsum nodes.
        return Err(invalid_argument(format!(
            "Expecting 1 or 2 input subscripts in equation '{eq}' but got: {}",
            inputs.len()
        )));
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
    let mut labels: Vec<Vec<u32>> = specs
        .iter()
        .zip(inputs)
        .enumerate()
        .map(|(k, (s, t))| expand(s, t.rank(), &format!("input {k}")))
        .collect::<Result<_>>()?;
    // A label repeated within an operand reads its diagonal.
    let mut diag = Vec::with_capacity(inputs.len());
    for (l, t) in labels.iter_mut().zip(inputs) {
        diag.push(diagonal(t, l)?);
    }
    let inputs = &diag[..];
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
    let mut uniq = out_labels.clone();
    dedup(&mut uniq);
    if uniq.len() != out_labels.len() {
        // TF writes such outputs' diagonals (`i->ii`); no model has been seen to need it.
        return Err(unimplemented(format!(
            "Einsum: a label repeated in the output is not supported: '{eq}'"
        )));
    }
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
        .filter(|&l| !has(&out_labels, l))
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
    let k: usize = crate::kernels::num::prod(&sz(&contracted));

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
        return Ok(crate::ops::one_output(Tensor::from_vec(out_shape, out)?));
    }
    let (la, lb) = (&labels[0], &labels[1]);
    let batch: Vec<u32> = out_labels
        .iter()
        .copied()
        .filter(|&l| has(la, l) && has(lb, l))
        .collect();
    let free_a: Vec<u32> = out_labels
        .iter()
        .copied()
        .filter(|&l| !has(&batch, l) && has(la, l))
        .collect();
    let free_b: Vec<u32> = out_labels
        .iter()
        .copied()
        .filter(|&l| !has(&batch, l) && !has(la, l))
        .collect();
    let nb: usize = crate::kernels::num::prod(&sz(&batch));
    let m: usize = crate::kernels::num::prod(&sz(&free_a));
    let n: usize = crate::kernels::num::prod(&sz(&free_b));
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
    Ok(crate::ops::one_output(view(&p, &have, &out_labels, &size)?))
}

/// Whether `labels` holds `l`: out of line (inlined, `contains` is vectorized at each use), and
/// not `contains` itself, whose vectorized loop is larger, for lists of a few labels.
#[inline(never)]
#[allow(clippy::manual_contains)]
fn has(labels: &[u32], l: u32) -> bool {
    labels.iter().any(|&x| x == l)
}

fn label_name(l: u32) -> String {
    if l >= ELLIPSIS {
        "...".to_string()
    } else {
        char::from_u32(l).map_or_else(String::new, String::from)
    }
}

/// Keeps the first occurrence of each label.
fn dedup(labels: &mut Vec<u32>) {
    let mut k = 0;
    while k < labels.len() {
        if has(&labels[..k], labels[k]) {
            labels.remove(k);
        } else {
            k += 1;
        }
    }
}

/// Row-major strides of `dims`.
fn strides(dims: &[usize]) -> Vec<isize> {
    let mut s = vec![1isize; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * dims[i + 1] as isize;
    }
    s
}

/// `t`'s diagonal over its repeated labels (each kept once, `labels` deduplicated in place).
fn diagonal(t: &Tensor, labels: &mut Vec<u32>) -> Result<Tensor> {
    let mut uniq = labels.clone();
    dedup(&mut uniq);
    if uniq.len() == labels.len() {
        return Ok(t.clone());
    }
    let (d, own) = (t.dims(), strides(t.dims()));
    let mut dims = vec![0usize; uniq.len()];
    let mut st = vec![0isize; uniq.len()];
    for (i, l) in labels.iter().enumerate() {
        let u = uniq.iter().position(|x| x == l).unwrap_or(0);
        if st[u] != 0 && dims[u] != d[i] {
            return Err(invalid_argument(format!(
                "Expected dimension {} at axis {i} of the input shaped {} but got dimension {}",
                dims[u],
                t.shape(),
                d[i]
            )));
        }
        dims[u] = d[i];
        st[u] += own[i].max(1);
    }
    // Strides of size-1 or empty dims never move; empty ones give an empty diagonal.
    *labels = uniq;
    gather_strided(t, 0, &dims, &st, Shape::new(dims.clone())?)
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
        let n: usize = crate::kernels::num::prod(&dims);
        if n > 0 {
            // A stretched empty operand: nothing to read, the sum over it is zero.
            return Tensor::from_vec(Shape::new(dims)?, try_alloc::<f32>(n)?);
        }
    }
    gather_strided(t, 0, &dims, &strides, Shape::new(dims.clone())?)
}

#[cfg(test)]
mod tests {
    use crate::ops::AttrValue;
    use crate::status::Code;
    use crate::tensor::Tensor;
    use crate::EagerContext;

    #[test]
    fn three_operands_are_invalid_as_in_tf() {
        // TF's graph construction rejects them, so no TF fixture holds this case.
        let x = Tensor::from_slice(&[2, 2], &[1f32, 2., 3., 4.]).unwrap();
        let r = EagerContext::default().execute(
            "Einsum",
            &[x.clone(), x.clone(), x],
            vec![("equation", AttrValue::Str(b"ij,jk,kl->il".to_vec()))],
        );
        assert_eq!(r.err().map(|e| e.code), Some(Code::InvalidArgument));
    }

    #[test]
    fn a_label_repeated_in_the_output_is_unimplemented() {
        let x = Tensor::from_slice(&[3], &[1f32, 2., 3.]).unwrap();
        let r = EagerContext::default().execute(
            "Einsum",
            &[x],
            vec![("equation", AttrValue::Str(b"i->ii".to_vec()))],
        );
        assert_eq!(r.err().map(|e| e.code), Some(Code::Unimplemented));
    }
}
