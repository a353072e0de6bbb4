//! StringNGrams: the n-grams of each row of a ragged string tensor (values + row splits), joined by
//! `separator`, with TF's padding (`left_pad`/`right_pad` `pad_width` times, -1: width - 1) and
//! `preserve_short_sequences` (a row too short for any n-gram gives one of all its tokens).

use super::strings_with_capacity;
use crate::kernels::two;
use crate::ops::def::INDEX;
use crate::ops::{AttrType, KernelContext, KernelFactory::Simple, NodeAttrs, OpBuilder, Registry};
use crate::status::{internal, invalid_argument, Result};
use crate::tensor::{DType, Data, Shape, Tensor};

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("StringNGrams", Simple(string_ngrams))
            .fixed_input("data", DType::String)
            .input("data_splits", "Tsplits")
            .string_attr("separator", None)
            .attr("ngram_widths", AttrType::ListInt, None)
            .string_attr("left_pad", None)
            .string_attr("right_pad", None)
            .int_attr("pad_width", None)
            .bool_attr("preserve_short_sequences", false)
            .type_attr_default("Tsplits", INDEX, DType::Int64),
    );
}

#[cold]
fn too_many() -> crate::status::Status {
    crate::status::resource_exhausted("StringNGrams: the n-grams do not fit in memory")
}

struct Spec<'a> {
    separator: &'a [u8],
    left_pad: &'a [u8],
    right_pad: &'a [u8],
    pad_width: i64,
}

impl Spec<'_> {
    fn pad(&self, width: i64) -> i64 {
        let p = if self.pad_width < 0 {
            width - 1
        } else {
            self.pad_width
        };
        p.min(width - 1)
    }

    /// How many n-grams of `width` a row of `len` tokens has (i128: widths come from attrs).
    fn count(&self, len: i64, width: i64) -> Result<usize> {
        let c = (i128::from(len) + 2 * i128::from(self.pad(width)) - i128::from(width) + 1).max(0);
        usize::try_from(c).map_err(|_| too_many())
    }

    /// Appends the `count` n-grams of width `width` of `tokens`.
    fn make(
        &self,
        tokens: &[Vec<u8>],
        count: usize,
        width: i64,
        out: &mut Vec<Vec<u8>>,
    ) -> Result<()> {
        out.try_reserve(count).map_err(|_| too_many())?;
        let pad = self.pad(width);
        let count = count as i64;
        for k in 0..count {
            let left = (pad - k).max(0);
            let right = (pad - (count - (k + 1))).max(0);
            let n_tokens = (width - left - right).max(0);
            let start = if left > 0 { 0 } else { k - pad };
            let taken = usize::try_from(start)
                .ok()
                .and_then(|s| tokens.get(s..s + n_tokens as usize))
                .ok_or_else(|| internal("StringNGrams: n-gram out of its row"))?;
            let items = std::iter::repeat_n(self.left_pad, left as usize)
                .chain(taken.iter().map(Vec::as_slice))
                .chain(std::iter::repeat_n(self.right_pad, right as usize));
            // The n-gram's size, checked before it is built (pads can be repeated very often).
            let size = (left as u128) * self.left_pad.len() as u128
                + (right as u128) * self.right_pad.len() as u128
                + taken.iter().map(|t| t.len() as u128).sum::<u128>()
                + (width.max(1) as u128 - 1) * self.separator.len() as u128;
            if size > crate::tensor::MAX_TENSOR_BYTES as u128 {
                return Err(too_many());
            }
            let mut gram = Vec::new();
            gram.try_reserve_exact(size as usize)
                .map_err(|_| too_many())?;
            for (i, item) in items.enumerate() {
                if i > 0 {
                    gram.extend_from_slice(self.separator);
                }
                gram.extend_from_slice(item);
            }
            out.push(gram);
        }
        Ok(())
    }
}

fn string_ngrams(
    a: &NodeAttrs,
    _: &mut KernelContext<'_>,
    inputs: &[Tensor],
) -> Result<Vec<Tensor>> {
    let (data, splits_t) = two(inputs, ["data", "data_splits"])?;
    let widths = a.ints("ngram_widths")?;
    if let Some(w) = widths.iter().find(|&&w| w <= 0) {
        return Err(invalid_argument(format!(
            "All ngram_widths must be greater than 0. Got: {w}"
        )));
    }
    let (separator, left_pad, right_pad) =
        (a.get("separator")?, a.get("left_pad")?, a.get("right_pad")?);
    let bytes = |v: &crate::ops::AttrValue| match v {
        crate::ops::AttrValue::Str(s) => Ok(s.clone()),
        _ => Err(invalid_argument("StringNGrams: string attrs expected")),
    };
    let (separator, left_pad, right_pad) = (bytes(separator)?, bytes(left_pad)?, bytes(right_pad)?);
    let spec = Spec {
        separator: &separator,
        left_pad: &left_pad,
        right_pad: &right_pad,
        pad_width: a.int("pad_width")?,
    };
    if data.rank() != 1 || splits_t.rank() != 1 {
        return Err(invalid_argument(format!(
            "data and data_splits must be vectors, got shapes {} and {}",
            data.shape(),
            splits_t.shape()
        )));
    }
    let tokens = data.strs()?;
    let splits = splits_t.to_i64_vec()?;
    let size = tokens.len() as i64;
    // TF's checks: splits start at 0, never decrease, stay within the data, end at its size.
    let mut prev = 0;
    if let Some(&first) = splits.first() {
        if first != 0 {
            return Err(invalid_argument(format!(
                "First split value must be 0, got {first}"
            )));
        }
        for &s in &splits[1..] {
            if s < prev || s > size {
                return Err(invalid_argument(format!(
                    "Invalid split value {s}, must be in [{prev}, {size}]"
                )));
            }
            prev = s;
        }
    }
    if prev != size {
        return Err(invalid_argument(format!(
            "Last split value must be data size. Expected {size}, got {prev}"
        )));
    }
    let preserve = a.bool("preserve_short_sequences")?;
    let rows = splits.len().saturating_sub(1);
    let mut out_splits = vec![0i64; splits.len()];
    let mut out = strings_with_capacity(0)?;
    for r in 0..rows {
        let row = &tokens[splits[r] as usize..splits[r + 1] as usize];
        let len = row.len() as i64;
        for &w in widths {
            spec.make(row, spec.count(len, w)?, w, &mut out)?;
        }
        if preserve && out.len() as i64 == out_splits[r] && len > 0 {
            if spec.pad_width < 0 {
                return Err(invalid_argument(format!(
                    "Pad width should be >= 0 when preserve_short_sequences is True and \
                     ngram_widths are not provided, got {}",
                    spec.pad_width
                )));
            }
            let width = spec
                .pad_width
                .checked_mul(2)
                .and_then(|p| p.checked_add(len))
                .ok_or_else(too_many)?;
            spec.make(row, 1, width, &mut out)?;
        }
        out_splits[r + 1] = out.len() as i64;
    }
    let n = out.len();
    let splits_out = match splits_t.data() {
        Data::I32(_) => Tensor::from_vec(
            Shape::from_dims(&[splits.len()])?,
            out_splits.iter().map(|&s| s as i32).collect(),
        )?,
        _ => Tensor::from_vec(Shape::from_dims(&[splits.len()])?, out_splits)?,
    };
    Ok(vec![
        Tensor::from_strings(Shape::from_dims(&[n])?, out)?,
        splits_out,
    ])
}
