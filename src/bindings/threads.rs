//! The threaded build's pool (`crate::parallel`), seen from JS: `js/threads.js` starts the workers,
//! each of which enters `threadWorkerLoop` on the shared memory, then reports their count.

use wasm_bindgen::prelude::*;

/// Whether this is a threaded build (shared memory, atomics).
#[wasm_bindgen(js_name = threadsBuild)]
pub fn threads_build() -> bool {
    cfg!(target_feature = "atomics")
}

/// A worker's whole life: wait for jobs and run their tasks. Never returns in a threaded build;
/// elsewhere returns at once (there is nothing to wait for).
#[wasm_bindgen(js_name = threadWorkerLoop)]
pub fn thread_worker_loop() {
    if cfg!(target_feature = "atomics") {
        crate::parallel::worker_loop()
    }
}

/// Called by a worker whose wasm trapped (`parallel::worker_trapped`): the op that was running
/// fails instead of waiting for it for good, and later ops run on the calling thread.
#[wasm_bindgen(js_name = threadWorkerTrapped)]
pub fn thread_worker_trapped() {
    crate::parallel::worker_trapped();
}

/// Sets the number of workers jobs are cut for (0: the calling thread alone). Only a threaded
/// build has workers: elsewhere the count stays 0.
#[wasm_bindgen(js_name = setThreadWorkers)]
pub fn set_thread_workers(workers: u32) {
    if cfg!(target_feature = "atomics") {
        crate::parallel::set_worker_count(workers as usize);
    }
}

/// Threads a kernel may use, the calling one included.
#[wasm_bindgen(js_name = threadCount)]
pub fn thread_count() -> u32 {
    crate::parallel::threads() as u32
}
