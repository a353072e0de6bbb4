//! Weight bytes to tensors: little-endian decoding and dequantization.

use crate::status::{invalid_argument, Result};
use crate::tensor::{try_with_capacity, DType, Data};

/// Decodes `n` little-endian elements of `dtype` from `bytes` (exact length required).
pub fn decode_le(dtype: DType, bytes: &[u8], n: usize) -> Result<Data> {
    let need = n.checked_mul(dtype.size_of()).unwrap_or(usize::MAX);
    if bytes.len() != need {
        return Err(invalid_argument(format!(
            "{} bytes given for {n} {dtype} values ({need} bytes expected)",
            bytes.len()
        )));
    }
    Ok(match dtype {
        DType::Float32 => {
            let mut v = try_with_capacity::<f32>(n)?;
            v.extend(
                bytes
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            );
            Data::F32(v)
        }
        DType::Int32 => {
            let mut v = try_with_capacity::<i32>(n)?;
            v.extend(
                bytes
                    .chunks_exact(4)
                    .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            );
            Data::I32(v)
        }
        DType::Int64 => {
            let mut v = try_with_capacity::<i64>(n)?;
            v.extend(bytes.chunks_exact(8).map(|c| {
                let mut a = [0u8; 8];
                a.copy_from_slice(c);
                i64::from_le_bytes(a)
            }));
            Data::I64(v)
        }
        DType::Bool => {
            let mut v = try_with_capacity::<bool>(n)?;
            v.extend(bytes.iter().map(|&b| b != 0));
            Data::Bool(v)
        }
        DType::Resource => return Err(invalid_argument("weights cannot be resources")),
    })
}
