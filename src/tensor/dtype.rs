//! Element types, with the names TF (`DT_FLOAT`), TF.js (`float32`) and the byte sizes.

use crate::status::{invalid_argument, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Float32,
    Int32,
    Int64,
    Bool,
    /// Unsigned 8-bit (image bytes).
    UInt8,
    /// A handle to a resource (a variable); the tensor holds one handle, not data.
    Resource,
    /// Complex of two float32s (TF's `std::complex<float>`): real, then imaginary.
    Complex64,
    /// Byte strings (TF's DT_STRING): each element owns its bytes, not necessarily UTF-8.
    String,
}

impl DType {
    pub const ALL: [DType; 8] = [
        DType::Float32,
        DType::Int32,
        DType::Int64,
        DType::Bool,
        DType::UInt8,
        DType::Resource,
        DType::Complex64,
        DType::String,
    ];

    pub fn size_of(self) -> usize {
        match self {
            DType::Float32 | DType::Int32 => 4,
            DType::Int64 | DType::Complex64 => 8,
            DType::Bool | DType::UInt8 => 1,
            DType::Resource => std::mem::size_of::<super::handle::ResourceHandle>(),
            // The element itself; a string tensor's bytes are counted by `Data::byte_len`.
            DType::String => std::mem::size_of::<Vec<u8>>(),
        }
    }

    /// TF.js / JS name.
    pub fn name(self) -> &'static str {
        match self {
            DType::Float32 => "float32",
            DType::Int32 => "int32",
            DType::Int64 => "int64",
            DType::Bool => "bool",
            DType::UInt8 => "uint8",
            DType::Resource => "resource",
            DType::Complex64 => "complex64",
            DType::String => "string",
        }
    }

    /// TF enum name, as in AttrValue JSON (`{"type":"DT_FLOAT"}`).
    pub fn tf_name(self) -> &'static str {
        match self {
            DType::Float32 => "DT_FLOAT",
            DType::Int32 => "DT_INT32",
            DType::Int64 => "DT_INT64",
            DType::Bool => "DT_BOOL",
            DType::UInt8 => "DT_UINT8",
            DType::Resource => "DT_RESOURCE",
            DType::Complex64 => "DT_COMPLEX64",
            DType::String => "DT_STRING",
        }
    }

    /// Accepts either naming (`float32`, `DT_FLOAT`, `float`).
    pub fn parse(s: &str) -> Result<DType> {
        Ok(match s {
            "float32" | "float" | "DT_FLOAT" => DType::Float32,
            "int32" | "DT_INT32" => DType::Int32,
            "int64" | "DT_INT64" => DType::Int64,
            "bool" | "DT_BOOL" => DType::Bool,
            "uint8" | "DT_UINT8" => DType::UInt8,
            "resource" | "DT_RESOURCE" => DType::Resource,
            "complex64" | "DT_COMPLEX64" => DType::Complex64,
            "string" | "DT_STRING" => DType::String,
            // TF's variant tensors (TensorList handles) are resource handles here.
            "variant" | "DT_VARIANT" => DType::Resource,
            other => {
                return Err(invalid_argument(format!(
                    "unsupported dtype '{other}' (supported: float32, int32, int64, bool, uint8, complex64, string)"
                )))
            }
        })
    }

    pub fn is_numeric(self) -> bool {
        matches!(
            self,
            DType::Float32 | DType::Int32 | DType::Int64 | DType::UInt8
        )
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// `x`, or the zero of its sign if it is a float32 denormal. TF's CPU executor runs every op with
/// denormals flushed to zero and read as zero (`ScopedFlushDenormal`,
/// tensorflow/core/platform/denormal.h); wasm cannot set those modes, and an x86 core takes ~100
/// cycles for each operation on a denormal operand. Trained weights carry them (a dead channel,
/// BatchNorm folded into the conv before it): flushing weights once, where they are decoded or
/// packed, computes as TF does at full speed.
#[inline]
pub fn flush_denormal(x: f32) -> f32 {
    let b = x.to_bits();
    // Exponent bits all zero: zero or denormal; either way the signed zero.
    if b & 0x7f80_0000 == 0 {
        f32::from_bits(b & 0x8000_0000)
    } else {
        x
    }
}
