// The threaded build's workers: started by init() on the instance's shared memory, each running
// js/thread-worker.js. The pool itself (how kernels cut their work, how workers wait) is Rust's
// (src/parallel.rs); this only starts the threads and tells the runtime how many it got.

import { isNode } from './runtime.js';

/** How long a worker may take to start before init() goes on without it. */
const START_TIMEOUT_MS = 20_000;

/** The default thread count: the cores there are (the calling thread included), at most 8. */
export async function defaultThreadCount() {
  let cores = 1;
  if (isNode) {
    const name = 'node:os';
    const os = await import(/* @vite-ignore */ name);
    cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  } else if (typeof navigator === 'object' && navigator !== null) {
    cores = navigator.hardwareConcurrency ?? 1;
  }
  return Math.max(1, Math.min(8, Math.floor(cores) || 1));
}

/**
 * The process's Node flags for a worker, without those that only apply to the main script
 * (`--input-type`, `-e`/`-p` and their code), which make a worker fail to start.
 */
function workerExecArgv() {
  const out = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (['-e', '--eval', '-p', '--print'].includes(a)) {
      i++;
      continue;
    }
    if (/^(--input-type|--eval|--print)(=|$)/.test(a) || a === '-i' || a === '--interactive') continue;
    out.push(a);
  }
  return out;
}

/**
 * Starts `count` workers on `module` + `memory` and resolves to those that came up (each is then
 * inside the runtime's worker loop). Workers never hold the process open in Node.
 */
export async function startWorkers(module, memory, count) {
  let make;
  if (isNode) {
    const name = 'node:worker_threads';
    const { Worker } = await import(/* @vite-ignore */ name);
    make = () => {
      const url = new URL('./thread-worker.js', import.meta.url);
      let w;
      try {
        w = new Worker(url, { execArgv: workerExecArgv() });
      } catch {
        w = new Worker(url, { execArgv: [] }); // a flag workers do not take (V8's are process-wide)
      }
      return {
        post: (m) => w.postMessage(m),
        on: (f) => w.once('message', f),
        fail: (f) => w.once('error', f),
        terminate: () => w.terminate(),
        // A listener keeps the worker referenced, and a worker in its loop never ends: without
        // listeners and unref'd, it does not hold the process open.
        release: () => {
          w.removeAllListeners();
          w.unref();
        },
      };
    };
  } else {
    make = () => {
      // One literal, so that bundlers see the worker and emit it.
      const w = new Worker(new URL('./thread-worker.js', import.meta.url), { type: 'module', name: 'eager-wasm' });
      return {
        post: (m) => w.postMessage(m),
        on: (f) => w.addEventListener('message', (e) => f(e.data)),
        fail: (f) => w.addEventListener('error', (e) => f(e)),
        terminate: () => w.terminate(),
        release: () => {},
      };
    };
  }
  const started = await Promise.all(
    Array.from({ length: count }, () => {
      let w;
      try {
        w = make();
      } catch {
        return null;
      }
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          w.terminate();
          resolve(null);
        }, START_TIMEOUT_MS);
        const done = (ok) => {
          clearTimeout(timer);
          w.release();
          if (!ok) w.terminate();
          resolve(ok ? w : null);
        };
        w.on((m) => done(m?.ready === true));
        w.fail(() => done(false));
        w.post({ module, memory });
      });
    }),
  );
  return started.filter((w) => w !== null).length;
}
