//! The process-wide op registry: built once, above every kernel family, from `kernels::register_all`
//! (the families register into `ops::Registry`, a leaf that knows none of them).

use crate::hash::FastBuild;
use crate::ops::{OpDef, Registry};
use crate::status::{not_found, Result};
use std::sync::OnceLock;

pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut reg = Registry::new(FastBuild);
        crate::kernels::register_all(&mut reg);
        reg
    })
}

/// Looks an op up, or NotFound naming it.
pub fn lookup(name: &str) -> Result<&'static OpDef> {
    registry()
        .get(name)
        .ok_or_else(|| not_found(format!("op '{name}' is not registered in eager-wasm")))
}
