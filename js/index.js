// eager-wasm: the public JS API. A thin layer over the wasm-bindgen exports (./eager_wasm.js):
// ergonomics only (typed-array conversion, nested arrays, result shapes, fetching); cache, memory,
// validation and lifetime logic live in Rust (src/bindings/).
//
// Modules, one concern each: runtime.js (init), errors.js (EagerError), io.js (the scratch buffer
// tensor handles cross the boundary through), tensor.js, context.js, model.js, fetch.js,
// model-text.js (the model.json text cache), ops.js (ctx.ops and the chainable Tensor methods),
// pixels.js (ctx.fromPixels).

export { EagerError } from './errors.js';
export { init, registeredOps, resetPeakMemory, wasmFeatures } from './runtime.js';
export { Tensor } from './tensor.js';
export { EagerContext, dispose, keep } from './context.js';
export { GraphModel, LayersModel } from './model.js';
