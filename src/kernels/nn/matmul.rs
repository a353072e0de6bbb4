//! MatMul, BatchMatMul (equal batch dims) and BatchMatMulV2 (broadcast batch dims). float32 goes
//! through the blocked SGEMM; int32/int64 through a plain wrapping loop.

use super::epilogue::{with_output, Fusion};
use super::gemm::{gemm_into, sgemm, weight_ref, MatRef, PAR_MIN_WORK};
use crate::kernels::broadcast::broadcast_shapes;
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::parallel;
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_alloc, DType, Element, Shape, Tensor};

const TYPES: &[DType] = &[DType::Float32, DType::Int32, DType::Int64];

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("MatMul", Simple(matmul_op))
            .input("a", "T")
            .input("b", "T")
            .bool_attr("transpose_a", false)
            .bool_attr("transpose_b", false)
            .type_attr("T", TYPES)
            .bool_attr("grad_a", false)
            .bool_attr("grad_b", false),
    );
    for (name, f) in [
        ("BatchMatMul", batch_matmul_v1 as crate::ops::ComputeFn),
        ("BatchMatMulV2", batch_matmul_v2),
    ] {
        reg.add(
            OpBuilder::new(name, Simple(f))
                .input("x", "T")
                .input("y", "T")
                .type_attr("T", TYPES)
                .bool_attr("adj_x", false)
                .bool_attr("adj_y", false)
                .bool_attr("grad_x", false)
                .bool_attr("grad_y", false),
        );
    }
}

/// Integer element types multiplied with TF's (Eigen's) wrap-around semantics.
trait WrapInt: Element {
    fn mul_add(self, a: Self, b: Self) -> Self;
}

impl WrapInt for i32 {
    fn mul_add(self, a: i32, b: i32) -> i32 {
        self.wrapping_add(a.wrapping_mul(b))
    }
}

impl WrapInt for i64 {
    fn mul_add(self, a: i64, b: i64) -> i64 {
        self.wrapping_add(a.wrapping_mul(b))
    }
}

/// Shape of one matrix product: rows, depth, cols, and the transposes.
#[derive(Clone, Copy)]
struct Product {
    m: usize,
    k: usize,
    n: usize,
    ta: bool,
    tb: bool,
}

fn mismatch(a: &Tensor, b: &Tensor) -> crate::status::Status {
    invalid_argument(format!(
        "Matrix size-incompatible: In[0]: {}, In[1]: {}",
        a.shape(),
        b.shape()
    ))
}

/// Resolves m, k, n from the last two dims of each operand.
fn product(a: &Tensor, b: &Tensor, ta: bool, tb: bool) -> Result<Product> {
    let (ad, bd) = (a.dims(), b.dims());
    let (ar, br) = (ad.len(), bd.len());
    let (m, k) = if ta {
        (ad[ar - 1], ad[ar - 2])
    } else {
        (ad[ar - 2], ad[ar - 1])
    };
    let (k2, n) = if tb {
        (bd[br - 1], bd[br - 2])
    } else {
        (bd[br - 2], bd[br - 1])
    };
    if k != k2 {
        return Err(mismatch(a, b));
    }
    Ok(Product { m, k, n, ta, tb })
}

fn matmul_op(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let (ta, tb) = (a.bool("transpose_a")?, a.bool("transpose_b")?);
    Ok(crate::ops::one_output(match i[0].dtype() {
        DType::Float32 => matmul_f32(&i[0], &i[1], ta, tb, None)?,
        _ => {
            check_matrices(&i[0], &i[1])?;
            let p = product(&i[0], &i[1], ta, tb)?;
            batched(&i[0], &i[1], p, &[], &[], &[])?
        }
    }))
}

fn check_matrices(a: &Tensor, b: &Tensor) -> Result<()> {
    for (i, t) in [a, b].into_iter().enumerate() {
        if t.rank() != 2 {
            return Err(invalid_argument(format!(
                "In[{i}] is not a matrix. Instead it has shape {}",
                t.shape()
            )));
        }
    }
    Ok(())
}

/// 2-D float MatMul, optionally fused (the _FusedMatMul epilogue runs per output row).
pub fn matmul_f32(
    a: &Tensor,
    b: &Tensor,
    ta: bool,
    tb: bool,
    fusion: Option<&Fusion<'_>>,
) -> Result<Tensor> {
    check_matrices(a, b)?;
    let p = product(a, b, ta, tb)?;
    let x = a.f32s()?;
    with_output(vec![p.m, p.n], fusion, |out, epi| {
        gemm_into(
            MatRef::new(x, p.m, p.k, ta)?,
            weight_ref(b, p.k, p.n, tb, p.m)?,
            out,
            epi,
            0,
        )
    })
}

fn batch_matmul_v1(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let (x, y) = (&i[0], &i[1]);
    check_batch_ranks(x, y)?;
    if x.rank() != y.rank() {
        return Err(invalid_argument(format!(
            "In[0] and In[1] has different ndims: {} vs. {}",
            x.shape(),
            y.shape()
        )));
    }
    let r = x.rank();
    for d in 0..r - 2 {
        if x.dims()[d] != y.dims()[d] {
            return Err(invalid_argument(format!(
                "In[0].dim({d}) and In[1].dim({d}) must be the same: {} vs {}",
                x.shape(),
                y.shape()
            )));
        }
    }
    batch_matmul(a, x, y)
}

fn batch_matmul_v2(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    check_batch_ranks(&i[0], &i[1])?;
    batch_matmul(a, &i[0], &i[1])
}

fn check_batch_ranks(x: &Tensor, y: &Tensor) -> Result<()> {
    for (i, t) in [x, y].into_iter().enumerate() {
        if t.rank() < 2 {
            return Err(invalid_argument(format!(
                "In[{i}] ndims must be >= 2: {}",
                t.rank()
            )));
        }
    }
    Ok(())
}

fn batch_matmul(a: &NodeAttrs, x: &Tensor, y: &Tensor) -> Result<Vec<Tensor>> {
    let p = product(x, y, a.bool("adj_x")?, a.bool("adj_y")?)?;
    let xb = &x.dims()[..x.rank() - 2];
    let yb = &y.dims()[..y.rank() - 2];
    let ob = broadcast_shapes(xb, yb).map_err(|_| {
        invalid_argument(format!(
            "In[0] and In[1] must have compatible batch dimensions: {} vs. {}",
            x.shape(),
            y.shape()
        ))
    })?;
    Ok(crate::ops::one_output(batched(x, y, p, xb, yb, &ob)?))
}

/// For each output batch index, the matching batch index of an operand with batch dims `dims`
/// broadcast to `out`.
fn batch_index(dims: &[usize], out: &[usize]) -> Vec<usize> {
    let total: usize = out.iter().product();
    let offset = out.len() - dims.len();
    let mut strides = vec![0usize; out.len()];
    let mut s = 1;
    for i in (0..dims.len()).rev() {
        strides[i + offset] = if dims[i] == 1 { 0 } else { s };
        s *= dims[i];
    }
    (0..total)
        .map(|mut o| {
            let mut idx = 0;
            for d in (0..out.len()).rev() {
                idx += (o % out[d]) * strides[d];
                o /= out[d];
            }
            idx
        })
        .collect()
}

/// All products of a (broadcast) batch, in any supported dtype.
fn batched(
    x: &Tensor,
    y: &Tensor,
    p: Product,
    xb: &[usize],
    yb: &[usize],
    ob: &[usize],
) -> Result<Tensor> {
    let mut dims = ob.to_vec();
    dims.extend([p.m, p.n]);
    let shape = Shape::new(dims)?;
    if shape.num_elements() == 0 {
        // Also avoids indexing a huge batch of empty matrices.
        return Tensor::zeros(x.dtype(), shape);
    }
    let (xi, yi) = (batch_index(xb, ob), batch_index(yb, ob));
    let (xs, ys, os) = (p.m * p.k, p.k * p.n, p.m * p.n);
    let bad = || invalid_argument("batch matmul operand out of range");
    match x.dtype() {
        DType::Float32 => {
            let (xd, yd) = (x.f32s()?, y.f32s()?);
            let mut out = try_alloc::<f32>(shape.num_elements())?;
            if os > 0 {
                // With threads, blocks of whole products are tasks (each computed as on one).
                let batches = xi.len();
                let work = (batches * os).saturating_mul(p.k);
                let per_task = parallel::items_per_task(batches, work, PAR_MIN_WORK);
                parallel::for_each_chunk_mut(&mut out, per_task * os, |t, block| {
                    for (q, o) in block.chunks_exact_mut(os).enumerate() {
                        let at = t * per_task + q;
                        let (&i, &j) = xi.get(at).zip(yi.get(at)).ok_or_else(bad)?;
                        let a = xd.get(i * xs..(i + 1) * xs).ok_or_else(bad)?;
                        let b = yd.get(j * ys..(j + 1) * ys).ok_or_else(bad)?;
                        sgemm(
                            MatRef::new(a, p.m, p.k, p.ta)?,
                            MatRef::new(b, p.k, p.n, p.tb)?,
                            o,
                            &mut |_, _, _| {},
                        )?;
                    }
                    Ok(())
                })?;
            }
            Tensor::from_vec(shape, out)
        }
        DType::Int32 => int_batched::<i32>(x, y, p, &xi, &yi, shape),
        DType::Int64 => int_batched::<i64>(x, y, p, &xi, &yi, shape),
        d => Err(invalid_argument(format!("matmul does not support {d}"))),
    }
}

fn int_batched<T: WrapInt>(
    x: &Tensor,
    y: &Tensor,
    p: Product,
    xi: &[usize],
    yi: &[usize],
    shape: Shape,
) -> Result<Tensor> {
    let (xd, yd) = (x.as_slice::<T>()?, y.as_slice::<T>()?);
    let mut out = try_alloc::<T>(shape.num_elements())?;
    let (xs, ys, os) = (p.m * p.k, p.k * p.n, p.m * p.n);
    if os > 0 {
        for ((o, &bi), &bj) in out.chunks_exact_mut(os).zip(xi).zip(yi) {
            for i in 0..p.m {
                for j in 0..p.n {
                    let mut acc = T::default();
                    for q in 0..p.k {
                        let ai = if p.ta { q * p.m + i } else { i * p.k + q };
                        let bk = if p.tb { j * p.k + q } else { q * p.n + j };
                        let (Some(&av), Some(&bv)) = (xd.get(bi * xs + ai), yd.get(bj * ys + bk))
                        else {
                            return Err(invalid_argument("matmul operand out of range"));
                        };
                        acc = acc.mul_add(av, bv);
                    }
                    o[i * p.n + j] = acc;
                }
            }
        }
    }
    Tensor::from_vec(shape, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_batch_index() {
        assert_eq!(batch_index(&[2, 1], &[2, 3]), vec![0, 0, 0, 1, 1, 1]);
        assert_eq!(batch_index(&[3], &[2, 3]), vec![0, 1, 2, 0, 1, 2]);
        assert_eq!(batch_index(&[], &[2]), vec![0, 0]);
    }
}
