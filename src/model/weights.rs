//! Weight bytes to tensors: where the bytes come from, little-endian decoding, dequantization.

use crate::status::{invalid_argument, Result};
use crate::tensor::{flush_denormal, try_with_capacity, DType, Data, C64};

/// The concatenated weight shards. Read weight by weight, so a source outside the Rust heap (a JS
/// ArrayBuffer) is never copied in whole: peak memory stays one copy of the weights.
pub trait WeightSource {
    fn byte_len(&self) -> usize;
    /// Fills `dst` with the bytes at `offset..offset + dst.len()` (always in range: checked first).
    fn read_into(&self, offset: usize, dst: &mut [u8]) -> Result<()>;

    /// The bytes at `offset..offset + len` in place, for a source already in memory (no copy).
    fn bytes_at(&self, _offset: usize, _len: usize) -> Option<&[u8]> {
        None
    }
}

impl WeightSource for [u8] {
    fn byte_len(&self) -> usize {
        self.len()
    }

    fn read_into(&self, offset: usize, dst: &mut [u8]) -> Result<()> {
        let src = self
            .bytes_at(offset, dst.len())
            .ok_or_else(|| invalid_argument("weight read out of range"))?;
        dst.copy_from_slice(src);
        Ok(())
    }

    fn bytes_at(&self, offset: usize, len: usize) -> Option<&[u8]> {
        self.get(offset..offset.checked_add(len)?)
    }
}

impl WeightSource for Vec<u8> {
    fn byte_len(&self) -> usize {
        self.len()
    }

    fn read_into(&self, offset: usize, dst: &mut [u8]) -> Result<()> {
        self.as_slice().read_into(offset, dst)
    }

    fn bytes_at(&self, offset: usize, len: usize) -> Option<&[u8]> {
        self.as_slice().bytes_at(offset, len)
    }
}

/// Bytes of one weight: in place if the source has them in memory, else read into `scratch` (a
/// fallibly grown buffer reused from weight to weight, so a load allocates it once).
pub fn read_weight<'s>(
    src: &'s (impl WeightSource + ?Sized),
    offset: usize,
    len: usize,
    scratch: &'s mut Vec<u8>,
) -> Result<&'s [u8]> {
    if let Some(b) = src.bytes_at(offset, len) {
        return Ok(b);
    }
    scratch.clear();
    scratch.try_reserve_exact(len).map_err(|_| {
        crate::status::resource_exhausted(format!("out of memory reading a weight of {len} bytes"))
    })?;
    scratch.resize(len, 0);
    src.read_into(offset, scratch)?;
    Ok(scratch)
}

/// Decodes `n` little-endian elements of `dtype` from `bytes` (exact length required).
pub fn decode_le(dtype: DType, bytes: &[u8], n: usize) -> Result<Data> {
    if dtype == DType::String {
        return crate::tensor::decode_strings(bytes, n).map(Data::Str);
    }
    let need = n.saturating_mul(dtype.size_of());
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
        DType::UInt8 => {
            let mut v = try_with_capacity::<u8>(n)?;
            v.extend_from_slice(bytes);
            Data::U8(v)
        }
        // numpy's complex64 bytes, as the converter writes them: real, imaginary, real...
        DType::Complex64 => {
            let mut v = try_with_capacity::<C64>(n)?;
            v.extend(bytes.chunks_exact(8).map(|c| {
                C64::new(
                    f32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                    f32::from_le_bytes([c[4], c[5], c[6], c[7]]),
                )
            }));
            Data::C64(v)
        }
        DType::Resource | DType::String => {
            return Err(invalid_argument("weights cannot be resources"))
        }
    })
}

/// `decode_le` for a model weight, with float32 denormals flushed (`flush_denormal`): one output
/// channel of denormal filter weights made a 3x3 32 -> 32 conv 13x slower (2.6 -> 34.7 ms,
/// native). Flushed while decoding: no extra pass over the weights.
pub fn decode_weight(dtype: DType, bytes: &[u8], n: usize) -> Result<Data> {
    if dtype != DType::Float32 || bytes.len() != n.saturating_mul(4) {
        return decode_le(dtype, bytes, n);
    }
    let mut v = try_with_capacity::<f32>(n)?;
    v.extend(
        bytes
            .chunks_exact(4)
            .map(|c| flush_denormal(f32::from_le_bytes([c[0], c[1], c[2], c[3]]))),
    );
    Ok(Data::F32(v))
}

/// Decodes `n` little-endian float64s, rounded to float32 as TF.js stores them.
pub fn decode_f64_as_f32(bytes: &[u8], n: usize) -> Result<Data> {
    if bytes.len() != n.saturating_mul(8) {
        return Err(invalid_argument(format!(
            "{} bytes given for {n} float64 values ({} bytes expected)",
            bytes.len(),
            n.saturating_mul(8)
        )));
    }
    let mut v = try_with_capacity::<f32>(n)?;
    v.extend(bytes.chunks_exact(8).map(|c| {
        let mut a = [0u8; 8];
        a.copy_from_slice(c);
        f64::from_le_bytes(a) as f32
    }));
    Ok(Data::F32(v))
}

/// Bytes one stored element takes (after quantization, if any).
pub fn stored_size(dtype: DType, quantization: Option<&str>) -> Result<usize> {
    Ok(match quantization {
        None => dtype.size_of(),
        Some("uint8") => 1,
        Some("uint16") | Some("float16") => 2,
        Some(other) => {
            return Err(invalid_argument(format!(
                "unknown weight quantization dtype '{other}' (expected uint8, uint16 or float16)"
            )))
        }
    })
}

/// Dequantizes as TF.js does: `q * scale + min` in double precision, then stored as float32
/// (rounded when the original dtype is an integer); IEEE half to float for float16.
pub fn dequantize(
    bytes: &[u8],
    n: usize,
    quant: &str,
    min: Option<f64>,
    scale: Option<f64>,
    dtype: DType,
) -> Result<Data> {
    let values: Vec<f32> = match quant {
        "float16" => {
            let mut v = try_with_capacity::<f32>(n)?;
            v.extend(
                bytes
                    .chunks_exact(2)
                    .map(|c| f16_to_f32(u16::from_le_bytes([c[0], c[1]]))),
            );
            v
        }
        "uint8" | "uint16" => {
            let (Some(min), Some(scale)) = (min, scale) else {
                return Err(invalid_argument(format!(
                    "{quant} quantized weight is missing 'min' or 'scale'"
                )));
            };
            let mut v = try_with_capacity::<f32>(n)?;
            if quant == "uint8" {
                v.extend(bytes.iter().map(|&q| (q as f64 * scale + min) as f32));
            } else {
                v.extend(
                    bytes
                        .chunks_exact(2)
                        .map(|c| (u16::from_le_bytes([c[0], c[1]]) as f64 * scale + min) as f32),
                );
            }
            v
        }
        other => {
            return Err(invalid_argument(format!(
                "unknown weight quantization dtype '{other}'"
            )))
        }
    };
    if values.len() != n {
        return Err(invalid_argument(format!(
            "quantized weight holds {} values, its shape needs {n}",
            values.len()
        )));
    }
    Ok(match dtype {
        DType::Float32 => Data::F32(values),
        DType::Int32 => Data::I32(values.iter().map(|v| v.round() as i32).collect()),
        other => {
            return Err(invalid_argument(format!(
                "quantized weights of dtype {other} are not supported"
            )))
        }
    })
}

/// IEEE 754 binary16 to binary32, including subnormals, infinities and NaN.
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let mant = (h & 0x3ff) as u32;
    let bits = match (exp, mant) {
        (0, 0) => sign,
        // Subnormal: m * 2^-24 (0x3380_0000 is 2^-24), exact in f32.
        (0, m) => {
            let v = m as f32 * f32::from_bits(0x3380_0000);
            return if sign != 0 { -v } else { v };
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, m) => sign | 0x7fc0_0000 | (m << 13),
        (e, m) => sign | ((e + 127 - 15) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_flush_denormals() {
        let vals = [
            1.5f32,
            -1e-40,
            1e-45,
            f32::MIN_POSITIVE,
            -0.0,
            3e-39,
            f32::NAN,
        ];
        let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        let Data::F32(got) = decode_weight(DType::Float32, &bytes, vals.len()).unwrap() else {
            panic!("not f32");
        };
        let bits: Vec<u32> = got.iter().map(|v| v.to_bits()).collect();
        let want = [1.5f32, -0.0, 0.0, f32::MIN_POSITIVE, -0.0, 0.0, f32::NAN];
        assert_eq!(bits, want.map(f32::to_bits));
        // Other dtypes and bad lengths as decode_le.
        assert!(decode_weight(DType::Float32, &bytes[1..], vals.len()).is_err());
        let ints = decode_weight(DType::Int32, &1i32.to_le_bytes(), 1).unwrap();
        assert!(matches!(ints, Data::I32(v) if v == [1]));
    }

    #[test]
    fn half_floats_decode() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x3555), 0.333_251_95);
        assert_eq!(f16_to_f32(0x0001), 5.960_464_5e-8);
        assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
        assert!(f16_to_f32(0x7e00).is_nan());
    }

    #[test]
    fn uint8_dequantizes_as_tfjs() {
        let d = dequantize(
            &[0, 1, 255],
            3,
            "uint8",
            Some(-1.0),
            Some(0.5),
            DType::Float32,
        )
        .unwrap();
        match d {
            Data::F32(v) => assert_eq!(v, vec![-1.0, -0.5, 126.5]),
            _ => panic!(),
        }
        assert!(dequantize(&[0], 1, "uint8", None, Some(1.0), DType::Float32).is_err());
    }
}
