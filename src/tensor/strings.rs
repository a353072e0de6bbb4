//! String tensors' byte form across boundaries (JS, weights): each element as a 4-byte
//! little-endian length and its bytes, the layout TF.js's weight files use for string weights.

use crate::status::{invalid_argument, resource_exhausted, Result};

/// The elements of `v`, length-prefixed, one after another.
pub fn encode_strings(v: &[Vec<u8>]) -> Result<Vec<u8>> {
    let mut total = 0usize;
    for s in v {
        if u32::try_from(s.len()).is_err() {
            return Err(invalid_argument("a string element is over 4 GiB"));
        }
        total = total
            .checked_add(4 + s.len())
            .ok_or_else(|| resource_exhausted("string tensor too large to encode"))?;
    }
    let mut out = Vec::new();
    out.try_reserve_exact(total)
        .map_err(|_| resource_exhausted(format!("out of memory encoding {total} bytes")))?;
    for s in v {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s);
    }
    Ok(out)
}

/// Reads `n` length-prefixed elements from the start of `bytes`; returns them and the bytes used.
pub fn decode_strings_prefix(bytes: &[u8], n: usize) -> Result<(Vec<Vec<u8>>, usize)> {
    let short = || invalid_argument(format!("string data ends before its {n} elements do"));
    // Every element takes at least its 4-byte length: bounds the allocation by the input.
    if n > bytes.len() / 4 {
        return Err(short());
    }
    let mut out = Vec::new();
    out.try_reserve_exact(n)
        .map_err(|_| resource_exhausted(format!("out of memory decoding {n} strings")))?;
    let mut pos = 0usize;
    for _ in 0..n {
        let len_bytes = bytes.get(pos..pos + 4).ok_or_else(short)?;
        let len = u32::from_le_bytes([len_bytes[0], len_bytes[1], len_bytes[2], len_bytes[3]]);
        let start = pos + 4;
        let end = start.checked_add(len as usize).ok_or_else(short)?;
        out.push(bytes.get(start..end).ok_or_else(short)?.to_vec());
        pos = end;
    }
    Ok((out, pos))
}

/// `decode_strings_prefix` that must use all of `bytes`.
pub fn decode_strings(bytes: &[u8], n: usize) -> Result<Vec<Vec<u8>>> {
    let (v, used) = decode_strings_prefix(bytes, n)?;
    if used != bytes.len() {
        return Err(invalid_argument(format!(
            "{} bytes given for {n} strings ({used} used)",
            bytes.len()
        )));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_truncation() {
        let v = vec![b"ab".to_vec(), vec![], vec![0xff, 0]];
        let e = encode_strings(&v).unwrap();
        assert_eq!(e.len(), 4 * 3 + 4);
        assert_eq!(decode_strings(&e, 3).unwrap(), v);
        assert!(decode_strings(&e[..e.len() - 1], 3).is_err());
        assert!(decode_strings(&e, 2).is_err());
        assert!(decode_strings(&[255, 255, 255, 255], 1).is_err());
        assert!(decode_strings(&[], usize::MAX / 2).is_err());
    }
}
