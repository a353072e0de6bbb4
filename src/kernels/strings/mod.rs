//! String ops (TF's string_ops family as the TF.js converter maps it): StringSplit, StringNGrams,
//! StringToHashBucketFast (FarmHash Fingerprint64, `fingerprint`), StaticRegexReplace, and the
//! lookup-table ops (`table`), whose keys are mostly strings.

mod fingerprint;
mod ngrams;
mod regex_replace;
mod split;
mod table;

use crate::ops::Registry;
use crate::status::{invalid_argument, resource_exhausted, Result};
use crate::tensor::Tensor;

pub use fingerprint::fingerprint64;

pub fn register(reg: &mut Registry) {
    split::register(reg);
    ngrams::register(reg);
    fingerprint::register(reg);
    regex_replace::register(reg);
    table::register(reg);
}

/// The single element of a scalar string input (StringSplit's delimiter).
fn scalar_str<'a>(t: &'a Tensor, what: &str) -> Result<&'a [u8]> {
    if t.rank() != 0 {
        return Err(invalid_argument(format!(
            "{what} must be a scalar, got shape {}",
            t.shape()
        )));
    }
    Ok(&t.strs()?[0])
}

/// An empty string vector with room for `n` elements (fallible: `n` comes from the input).
fn strings_with_capacity(n: usize) -> Result<Vec<Vec<u8>>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| resource_exhausted(format!("out of memory for {n} strings")))?;
    Ok(v)
}
