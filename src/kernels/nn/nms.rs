//! NonMaxSuppression V2-V5 with TF's CPU algorithm: candidates above the score threshold in a
//! max-queue (ties: lower box index first), greedy selection against earlier picks, each
//! candidate compared with a pick at most once; V5's soft-NMS decays scores by a Gaussian of the
//! IoU and re-queues them. V4/V5 can pad the indices to `max_output_size`.

use crate::kernels::num::f32_scalar;
use crate::ops::def::FLOAT;
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_alloc, DType, Shape, Tensor};
use std::collections::BinaryHeap;

pub fn register(reg: &mut Registry) {
    for name in [
        "NonMaxSuppressionV2",
        "NonMaxSuppressionV3",
        "NonMaxSuppressionV4",
        "NonMaxSuppressionV5",
    ] {
        let mut b = OpBuilder::new(name, Simple(nms))
            .input("boxes", "T")
            .input("scores", "T")
            .fixed_input("max_output_size", DType::Int32);
        let th = if name == "NonMaxSuppressionV5" {
            "T"
        } else {
            "T_threshold"
        };
        b = b.input("iou_threshold", th);
        if name != "NonMaxSuppressionV2" {
            b = b.input("score_threshold", th);
        }
        if name == "NonMaxSuppressionV5" {
            b = b.input("soft_nms_sigma", "T");
        }
        b = b.type_attr_default("T", FLOAT, DType::Float32);
        if name != "NonMaxSuppressionV5" {
            b = b.type_attr_default("T_threshold", FLOAT, DType::Float32);
        }
        if name == "NonMaxSuppressionV4" || name == "NonMaxSuppressionV5" {
            b = b.bool_attr("pad_to_max_output_size", false);
        }
        reg.add(b);
    }
}

/// A queued candidate; `Ord` makes the heap pop the highest score, then the lowest index.
#[derive(Clone, Copy)]
struct Candidate {
    index: usize,
    score: f32,
    /// Picks before this one have already been compared with it.
    begin: usize,
}

impl PartialEq for Candidate {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == std::cmp::Ordering::Equal
    }
}
impl Eq for Candidate {}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Candidate {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.score
            .partial_cmp(&o.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(o.index.cmp(&self.index))
    }
}

/// TF's IOU: corners in either order; 0 when either box has no area.
fn iou(b: &[f32], i: usize, j: usize) -> f32 {
    let (p, q) = (&b[i * 4..i * 4 + 4], &b[j * 4..j * 4 + 4]);
    let (y0i, y1i) = (p[0].min(p[2]), p[0].max(p[2]));
    let (x0i, x1i) = (p[1].min(p[3]), p[1].max(p[3]));
    let (y0j, y1j) = (q[0].min(q[2]), q[0].max(q[2]));
    let (x0j, x1j) = (q[1].min(q[3]), q[1].max(q[3]));
    let ai = (y1i - y0i) * (x1i - x0i);
    let aj = (y1j - y0j) * (x1j - x0j);
    if ai <= 0.0 || aj <= 0.0 {
        return 0.0;
    }
    let ih = (y1i.min(y1j) - y0i.max(y0j)).max(0.0);
    let iw = (x1i.min(x1j) - x0i.max(x0j)).max(0.0);
    let inter = ih * iw;
    inter / (ai + aj - inter)
}

fn nms(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let op = a.op();
    let v5 = op == "NonMaxSuppressionV5";
    let padded = (op == "NonMaxSuppressionV4" || v5) && a.bool("pad_to_max_output_size")?;
    let (boxes, scores) = (&i[0], &i[1]);
    if i[2].rank() != 0 {
        return Err(invalid_argument(format!(
            "max_output_size must be 0-D, got shape {}",
            i[2].shape()
        )));
    }
    let iou_th = f32_scalar(&i[3], "iou_threshold")?;
    if !(0.0..=1.0).contains(&iou_th) {
        return Err(invalid_argument("iou_threshold must be in [0, 1]"));
    }
    let score_th = match i.get(4) {
        Some(t) => f32_scalar(t, "score_threshold")?,
        None => f32::MIN,
    };
    let sigma = match i.get(5) {
        Some(t) => f32_scalar(t, "soft_nms_sigma")?,
        None => 0.0,
    };
    if sigma < 0.0 {
        return Err(invalid_argument("soft_nms_sigma_val must be >= 0"));
    }
    if boxes.rank() != 2 {
        return Err(invalid_argument(format!(
            "boxes must be 2-D{} (Shape must be rank 2 but is rank {})",
            boxes.shape(),
            boxes.rank()
        )));
    }
    let num = boxes.dims()[0];
    if boxes.dims()[1] != 4 {
        return Err(invalid_argument(format!(
            "boxes must have 4 columns (Dimension must be 4 but is {})",
            boxes.dims()[1]
        )));
    }
    if scores.rank() != 1 {
        return Err(invalid_argument(format!(
            "scores must be 1-D{} (Shape must be rank 1 but is rank {})",
            scores.shape(),
            scores.rank()
        )));
    }
    if scores.dims()[0] != num {
        return Err(invalid_argument(format!(
            "scores has incompatible shape (Dimensions must be equal, but are {num} and {})",
            scores.dims()[0]
        )));
    }
    let max_out = i[2].as_slice::<i32>()?[0];
    if max_out < 0 {
        return Err(invalid_argument("output size must be non-negative"));
    }
    let max_out = max_out as usize;
    let (b, s) = (boxes.f32s()?, scores.f32s()?);
    let mut queue: BinaryHeap<Candidate> = s
        .iter()
        .enumerate()
        .filter(|(_, &v)| v > score_th)
        .map(|(index, &score)| Candidate {
            index,
            score,
            begin: 0,
        })
        .collect();
    let soft = sigma > 0.0;
    let scale = if soft { -0.5 / sigma } else { 0.0 };
    let weight = |sim: f32| {
        if soft || sim <= iou_th {
            (scale * sim * sim).exp()
        } else {
            0.0
        }
    };
    let mut picked: Vec<usize> = Vec::new();
    let mut picked_scores: Vec<f32> = Vec::new();
    while picked.len() < max_out {
        let Some(mut c) = queue.pop() else { break };
        let original = c.score;
        let mut hard = false;
        for j in (c.begin..picked.len()).rev() {
            let sim = iou(b, c.index, picked[j]);
            c.score *= weight(sim);
            if !soft && sim > iou_th {
                hard = true;
                break;
            }
            if c.score <= score_th {
                break;
            }
        }
        c.begin = picked.len();
        if !hard {
            if c.score == original {
                picked.push(c.index);
                picked_scores.push(c.score);
            } else if c.score > score_th {
                queue.push(c);
            }
        }
    }
    let valid = picked.len();
    // Padded outputs are sized by max_output_size: allocated fallibly (it can be any int32).
    let len = if padded { max_out } else { valid };
    let mut idx = try_alloc::<i32>(len)?;
    for (d, &p) in idx.iter_mut().zip(&picked) {
        *d = p as i32;
    }
    let mut out = vec![Tensor::from_vec(Shape::from_dims(&[len])?, idx)?];
    if v5 {
        let mut sc = try_alloc::<f32>(len)?;
        sc[..valid].copy_from_slice(&picked_scores);
        out.push(Tensor::from_vec(Shape::from_dims(&[len])?, sc)?);
    }
    if op == "NonMaxSuppressionV4" || v5 {
        out.push(Tensor::scalar(valid as i32));
    }
    Ok(out)
}
