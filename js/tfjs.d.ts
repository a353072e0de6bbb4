// Types of eager-wasm/tfjs: the TensorFlow.js backend 'eager-wasm'.
import type { KernelBackend } from '@tensorflow/tfjs-core';
import type { CacheStats, EagerContext, EagerContextOptions, InitOptions, MemoryInfo } from './index.js';

/** The name `tf.setBackend()` takes: 'eager-wasm'. */
export declare const BACKEND_NAME: 'eager-wasm';

/** What the backend adds to `tf.memory()`: the runtime's exact report under `eagerWasm`. */
export interface EagerWasmBackendMemory {
  unreliable: false;
  eagerWasm: MemoryInfo;
}

/** The backend `tf.backend()` returns while 'eager-wasm' is active. */
export declare class EagerWasmBackend extends KernelBackend {
  constructor(contextOptions?: EagerContextOptions);
  /** The EagerContext every kernel runs on (its cache options, cacheStats(), memory()). */
  readonly context: EagerContext;
  memory(): EagerWasmBackendMemory;
  /** The kernel cache's statistics. */
  cacheStats(): CacheStats;
}

export interface BackendOptions {
  /** eager-wasm's init() options (which build to load). */
  init?: InitOptions;
  /** Options of the EagerContext the backend runs on (kernel cache bounds and policies). */
  context?: EagerContextOptions;
}

/** Sets the options the backend is created with; call before `tf.setBackend('eager-wasm')`. */
export declare function setBackendOptions(options: BackendOptions): void;
