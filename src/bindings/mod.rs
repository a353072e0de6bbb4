//! The wasm-bindgen surface: the only module that knows about JS. The JS wrapper (`js/index.js`)
//! turns these low-level exports (numeric tensor handles through a shared scratch buffer, op ids,
//! structured errors) into the public API.

mod attrs;
mod cell;
#[cfg(feature = "cold-split")]
mod cold_code;
mod context;
mod errors;
mod memory;
mod model;
mod state;
mod tensor;
mod threads;

use wasm_bindgen::prelude::*;

/// Installs the panic hook so that a true bug is reported legibly in the console. Returns where
/// the borrow epoch lives in wasm memory (`cell.rs`), for the on-demand part's loader.
#[wasm_bindgen(js_name = initRuntime)]
pub fn init_runtime() -> u32 {
    console_error_panic_hook::set_once();
    cell::epoch_address()
}

/// Heap high-water mark back to the current heap in use.
#[wasm_bindgen(js_name = resetHeapPeak)]
pub fn reset_heap_peak() {
    crate::memory::reset_heap_peak();
}
