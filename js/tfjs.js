// eager-wasm as a TensorFlow.js backend: `import 'eager-wasm/tfjs'` registers the backend
// 'eager-wasm' with @tensorflow/tfjs-core (a peer dependency of this entry only), and
// `await tf.setBackend('eager-wasm')` loads the wasm and runs every TF.js kernel as TF ops
// through an EagerContext (kernel cache, exact memory report).

import { registerBackend, registerKernel } from '@tensorflow/tfjs-core';
import { EagerError } from './errors.js';
import { init } from './runtime.js';
import { EagerWasmBackend } from './tfjs-backend.js';
import { KERNELS } from './tfjs-kernels.js';

export { EagerWasmBackend };
export const BACKEND_NAME = 'eager-wasm';

/** Options the backend's init() and EagerContext get (set before tf.setBackend('eager-wasm')). */
let backendOptions = {};

/**
 * Sets the options for the next creation of the backend: `init` (eager-wasm's init() options,
 * e.g. `{ relaxedSimd: false }`) and `context` (EagerContext options: `{ cache: { maxEntries } }`).
 */
export function setBackendOptions(options) {
  backendOptions = { ...options };
}

/**
 * A runtime error as TF.js's kernels word theirs: without the op name the runtime puts first, or
 * TF's closing period (the type, EagerError with its code, is kept).
 */
function asTfjsError(e) {
  // A kernel that already words its error as TF.js does (tfjsError) keeps it as it is.
  if (!(e instanceof EagerError) || e.tfjsWording === true) return e;
  const message = e.message.replace(/^[A-Z][A-Za-z0-9_]*: /, '').replace(/\.$/, '');
  return message === e.message ? e : new EagerError(e.code, message, { cause: e });
}

registerBackend(
  BACKEND_NAME,
  async () => {
    await init(backendOptions.init);
    return new EagerWasmBackend(backendOptions.context);
  },
  // Below tfjs-backend-wasm (priority 2) and the GPU backends: loading this entry does not take
  // over an app that registered others unless it asks with tf.setBackend('eager-wasm').
  1,
);

for (const [kernelName, fn] of KERNELS) {
  registerKernel({
    kernelName,
    backendName: BACKEND_NAME,
    kernelFunc: (args) => {
      try {
        return fn(args);
      } catch (e) {
        throw asTfjsError(e);
      } finally {
        args.backend.endKernel();
      }
    },
  });
}
