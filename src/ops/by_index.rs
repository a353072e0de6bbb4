//! String tensors through the kernels that only move or compare elements (gathers, concat, slices,
//! Fill, Equal, Select...): each string input becomes an int32 tensor of ids, one per distinct
//! string, the kernel runs on those, and its int32 outputs are mapped back to the strings. Equal
//! strings share an id, so comparing ids compares strings, and a moved id names an equal string.

use super::{Kernel, KernelContext};
use crate::hash::FastBuild;
use crate::status::{internal, invalid_argument, Result};
use crate::tensor::{Data, Tensor};
use std::collections::HashMap;

struct ByIndex {
    inner: Box<dyn Kernel>,
}

pub(super) fn wrap(inner: Box<dyn Kernel>) -> Box<dyn Kernel> {
    Box::new(ByIndex { inner })
}

impl Kernel for ByIndex {
    fn compute(&self, ctx: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let mut pool: Vec<&[u8]> = Vec::new();
        let mut ids: HashMap<&[u8], i32, FastBuild> = HashMap::default();
        let mut stand_ins = Vec::with_capacity(inputs.len());
        for t in inputs {
            let Data::Str(v) = t.data() else {
                stand_ins.push(t.clone());
                continue;
            };
            let mut row = crate::tensor::try_with_capacity::<i32>(v.len())?;
            for s in v {
                let next = i32::try_from(pool.len())
                    .map_err(|_| invalid_argument("too many distinct strings for one op"))?;
                let id = *ids.entry(s.as_slice()).or_insert_with(|| {
                    pool.push(s);
                    next
                });
                row.push(id);
            }
            stand_ins.push(Tensor::from_vec(t.shape().clone(), row)?);
        }
        let outputs = self.inner.compute(ctx, &stand_ins)?;
        outputs
            .into_iter()
            .map(|o| {
                // An alias of a stand-in (Reshape, Squeeze...) views the string input anew.
                if let Some(i) = stand_ins.iter().position(|s| s.shares_buffer(&o)) {
                    return inputs[i].reshaped(o.shape().clone());
                }
                let Data::I32(v) = o.data() else {
                    return Ok(o);
                };
                let mut out = crate::tensor::try_alloc_strings(0)?;
                out.try_reserve_exact(v.len())
                    .map_err(|_| crate::status::resource_exhausted("out of memory for strings"))?;
                for &id in v {
                    let s = usize::try_from(id)
                        .ok()
                        .and_then(|i| pool.get(i))
                        .ok_or_else(|| internal("a string op produced an unknown element id"))?;
                    out.push(s.to_vec());
                }
                Tensor::from_strings(o.shape().clone(), out)
            })
            .collect()
    }
}
