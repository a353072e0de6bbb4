//! eager-wasm: an eager TensorFlow-op runtime for WebAssembly with an observable kernel cache.

// The threaded build (nightly, shared memory) sleeps its workers on `memory.atomic.wait32`.
#![cfg_attr(target_feature = "atomics", feature(stdarch_wasm_atomic_wait))]

pub mod eager;
mod handles;
pub mod hash;
pub mod kernels;
pub mod memory;
pub mod model;
pub mod ops;
pub mod parallel;
pub mod registry;
pub mod resource;
pub mod status;
pub mod tensor;

#[cfg(target_arch = "wasm32")]
mod bindings;

pub use eager::{CacheOptions, CacheStats, ContextOptions, EagerContext, ResourceNaming};
pub use memory::MemoryReport;
pub use ops::AttrValue;
pub use status::{Code, Result, Status};
pub use tensor::{DType, Shape, Tensor};
