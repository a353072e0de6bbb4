//! UnsortedSegmentSum/Max/Min/Prod as TF 2.18's CPU kernel: rows of `data` (the dims
//! `segment_ids` covers flattened) folded into `num_segments` output rows; negative ids are
//! dropped, ids past the end are InvalidArgument, empty segments hold the fold's initial value.

use super::num::{limits, narrow, prod, widen, Num, WITH_U8};
use crate::ops::def::INDEX;
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_alloc, DType, Shape, Tensor};

pub fn register(reg: &mut Registry) {
    for name in [
        "UnsortedSegmentSum",
        "UnsortedSegmentMax",
        "UnsortedSegmentMin",
        "UnsortedSegmentProd",
    ] {
        reg.add(
            OpBuilder::new(name, Simple(unsorted_segment))
                .input("data", "T")
                .input("segment_ids", "Tindices")
                .input("num_segments", "Tnumsegments")
                .type_attr("T", WITH_U8)
                .type_attr("Tindices", INDEX)
                .type_attr_default("Tnumsegments", INDEX, DType::Int32),
        );
    }
}

fn unsorted_segment(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let (data, ids, num) = (&i[0], &i[1], &i[2]);
    if num.rank() != 0 {
        return Err(invalid_argument(format!(
            "num_segments should be a scalar, not shape {}",
            num.shape()
        )));
    }
    let k = ids.rank();
    if !data.dims().starts_with(ids.dims()) {
        return Err(invalid_argument(format!(
            "data.shape = {} does not start with segment_ids.shape = {}",
            data.shape(),
            ids.shape()
        )));
    }
    let rows = num.to_i64_vec()?[0];
    let rows = usize::try_from(rows).map_err(|_| {
        invalid_argument(format!(
            "Input num_segments == {rows} must not be negative."
        ))
    })?;
    let inner = prod(&data.dims()[k..]);
    let shape = Shape::from_dims(&[&[rows][..], &data.dims()[k..]].concat())?;
    let op = a.op();
    // (initial value, index of the fold): sum, max, min, prod.
    let (lo, hi) = limits(data.dtype());
    let (init, fold) = match op {
        "UnsortedSegmentMax" => (lo, 1),
        "UnsortedSegmentMin" => (hi, 2),
        "UnsortedSegmentProd" => (1.0, 3),
        _ => (0.0, 0),
    };
    // TF checks the ids only when there is data to fold.
    let ids = if data.num_elements() > 0 {
        ids.to_i64_vec()?
    } else {
        Vec::new()
    };
    if let Some((at, &bad)) = ids.iter().enumerate().find(|(_, &j)| j >= rows as i64) {
        return Err(invalid_argument(format!(
            "segment_ids[{at}] = {bad} is out of range [0, {rows})"
        )));
    }
    fn run<T: Num>(
        data: &Tensor,
        ids: &[i64],
        inner: usize,
        shape: Shape,
        init: T,
        fold: u8,
    ) -> Result<Tensor> {
        let v = data.as_slice::<T>()?;
        let mut out = try_alloc::<T>(shape.num_elements())?;
        out.fill(init);
        for (r, &j) in ids.iter().enumerate() {
            let Ok(j) = usize::try_from(j) else { continue };
            let dst = &mut out[j * inner..(j + 1) * inner];
            for (d, &x) in dst.iter_mut().zip(&v[r * inner..(r + 1) * inner]) {
                // Max and min as std::max(x, d) and std::min(x, d): a NaN is kept only until
                // the next value, as in TF.
                *d = match fold {
                    0 => d.add(x),
                    1 if x < *d => *d,
                    2 if *d < x => *d,
                    3 => d.mul(x),
                    _ => x,
                };
            }
        }
        Tensor::from_vec(shape, out)
    }
    let dtype = data.dtype();
    let data = &widen(data)?;
    let out = crate::with_num!(data.dtype(), op, T, {
        run::<T>(data, &ids, inner, shape, T::from_f64(init), fold)
    })?;
    Ok(crate::ops::one_output(narrow(out, dtype)?))
}
