//! The wasm-bindgen surface: the only module that knows about JS.

use wasm_bindgen::prelude::*;

/// Installs the panic hook so that a true bug is reported legibly in the console.
#[wasm_bindgen(js_name = initRuntime)]
pub fn init_runtime() {
    console_error_panic_hook::set_once();
}
