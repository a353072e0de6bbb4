// A thread of the threaded build: a Web Worker (module worker) or a Node worker_threads worker.
// It instantiates the threaded module on the page's shared memory, says it is ready, and then
// lives in the runtime's worker loop (src/parallel.rs), which never returns: the worker sleeps in
// `memory.atomic.wait32` between jobs and is ended with its page (or unref'd, in Node).

import { initSync, threadWorkerLoop, threadWorkerTrapped } from './eager_wasm_threads.js';

function start({ module, memory }, post) {
  try {
    initSync({ module, memory });
  } catch (e) {
    post({ error: String(e?.message ?? e) });
    return;
  }
  post({ ready: true });
  try {
    threadWorkerLoop();
  } catch (e) {
    // The loop never returns: this is a trap in a task (a bug). The op's caller is waiting for
    // that task; tell the pool, so that the op fails and later ops run without this worker.
    // Not rethrown: in Node a worker's uncaught error would take the process down with it.
    threadWorkerTrapped();
    console.error('eager-wasm: a worker thread trapped (a bug, please report it):', e);
  }
}

if (typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope) {
  self.addEventListener('message', (e) => start(e.data, (m) => self.postMessage(m)), { once: true });
} else {
  // (No top-level await: bundlers emit workers as classic scripts by default.)
  const name = 'node:worker_threads';
  import(/* @vite-ignore */ name).then(({ parentPort }) => {
    parentPort.once('message', (data) => start(data, (m) => parentPort.postMessage(m)));
  });
}
