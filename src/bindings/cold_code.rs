//! The loader import of the split release build (`scripts/cold-split`): the primary module's stubs
//! for cold functions call it the first time one runs, and `js/cold-code.js` instantiates the cold
//! module on the same memory. Nothing in Rust calls it; the splitter finds it by name.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(raw_module = "./cold-code.js")]
extern "C" {
    #[wasm_bindgen(js_name = loadColdCode)]
    fn load_cold_code();
}

/// Keeps the import in the module: wasm-bindgen and wasm-opt drop unused imports, and only the
/// splitter's stubs, added after them, call it. (Calling it loads the cold module, as any stub would;
/// the JS wrapper loads it ahead with `loadColdCodeAsync` instead.)
#[wasm_bindgen(js_name = loadColdCodeNow)]
pub fn load_cold_code_now() {
    load_cold_code();
}
