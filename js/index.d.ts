// Types of the public eager-wasm API (hand-written for the wrapper in index.js; the wasm-bindgen
// glue it sits on has its own generated eager_wasm.d.ts).

/** TensorFlow status code names carried by `EagerError.code`. */
export type StatusCode =
  | 'InvalidArgument'
  | 'NotFound'
  | 'Unimplemented'
  | 'FailedPrecondition'
  | 'ResourceExhausted'
  | 'OutOfRange'
  | 'Internal'
  | 'Aborted'
  | 'Cancelled'
  | 'Unavailable';

/** Every failure of eager-wasm is thrown as an EagerError. */
export class EagerError extends Error {
  constructor(code: StatusCode, message: string, options?: { cause?: unknown });
  readonly name: 'EagerError';
  readonly code: StatusCode;
}

/** 'uint8' only when asked for (from a Uint8Array or Uint8ClampedArray); integer typed arrays alone make int32, as in TF.js. */
export type DType = 'float32' | 'int32' | 'int64' | 'bool' | 'uint8';
/** dtype of a tensor: a variable handle made by VarHandleOp has dtype 'resource'. */
export type TensorDType = DType | 'resource';

/** Values accepted by `ctx.tensor()`. */
export type TypedArray =
  | Float32Array
  | Float64Array
  | Int32Array
  | Int16Array
  | Int8Array
  | Uint32Array
  | Uint16Array
  | Uint8Array
  | Uint8ClampedArray
  | BigInt64Array
  | BigUint64Array;
export type ScalarLike = number | boolean | bigint;
export type NestedArray = ScalarLike[] | NestedArray[];
export type TensorLike = TypedArray | NestedArray | ScalarLike;

/** What `dataSync()` returns for each dtype. */
export type DataTypeMap = {
  float32: Float32Array;
  int32: Int32Array;
  int64: BigInt64Array;
  bool: Uint8Array;
  uint8: Uint8Array;
  resource: never;
};

/**
 * Loads and instantiates the wasm module; no argument needed in a browser or in Node 20. Of the
 * two builds, the relaxed-SIMD one (fused multiply-add in matmul/conv kernels) is loaded where the
 * engine validates relaxed-SIMD code, else the plain SIMD128 one; `{ relaxedSimd: false }` forces
 * the plain build. Pass a URL, Response, BufferSource or WebAssembly.Module of
 * `eager_wasm_bg.wasm` or `eager_wasm_relaxed_bg.wasm` to load that file. Idempotent. Rejects with
 * EagerError('Unavailable') if the module cannot be loaded.
 */
export function init(
  input?: InitOptions | URL | string | Response | BufferSource | WebAssembly.Module | Promise<Response>,
): Promise<void>;

export interface InitOptions {
  /** false: load the plain SIMD128 build even where relaxed SIMD is available. Default true. */
  relaxedSimd?: boolean;
}

/** Which build init() loaded. Throws EagerError('FailedPrecondition') before `await init()`. */
export function wasmFeatures(): { simd: true; relaxedSimd: boolean };

export class Tensor {
  private constructor();
  /** The context that owns the tensor. */
  readonly context: EagerContext;
  readonly dtype: TensorDType;
  readonly shape: number[];
  readonly rank: number;
  /** Number of elements. */
  readonly size: number;
  /** True after dispose(), tidy() or the context's dispose() released it. */
  readonly isDisposed: boolean;
  /** @internal numeric handle into the runtime's tensor table */
  readonly handle: number;
  /** A copy of the values. Throws EagerError('FailedPrecondition') once disposed. */
  dataSync(): Float32Array | Int32Array | BigInt64Array | Uint8Array;
  data(): Promise<Float32Array | Int32Array | BigInt64Array | Uint8Array>;
  /**
   * Copies the values into the start of `target` without allocating and returns `target`. It must
   * be the dtype's array type (Float32Array, Int32Array, BigInt64Array for int64, Uint8Array for
   * bool) and hold at least `size` elements; otherwise EagerError('InvalidArgument'). A real typed
   * array is required (a Proxy or look-alike is refused; a subclass's overrides are not used), and
   * a detached one is refused.
   */
  readInto<T extends Float32Array | Int32Array | BigInt64Array | Uint8Array>(target: T): T;
  /** Values as nested arrays (bigint for int64, boolean for bool). */
  arraySync(): any;
  array(): Promise<any>;
  /** Releases the tensor's memory. Idempotent. */
  dispose(): void;
  /** The values by dimension as TF.js prints them (long dims truncated); `verbose` adds dtype, rank, shape. */
  toString(verbose?: boolean): string;
  /** `console.log(this.toString(verbose))`. */
  print(verbose?: boolean): void;
}

export interface CacheOptions {
  /** Entry bound (LRU eviction). Infinity or null: unbounded. Default: unbounded. */
  maxEntries?: number | null;
  /** Byte bound on cached kernels (LRU eviction). Infinity or null: unbounded. */
  maxBytes?: number | null;
  /**
   * Ops never cached (made, run and dropped per call). Ops whose cache key is unique by nature
   * stay excluded whatever this list says.
   */
  exclude?: string[];
}

export interface EagerContextOptions {
  cache?: CacheOptions;
  /**
   * How model loads name their variables: 'anonymous' (TF's fix for #40171: one cached VarHandleOp
   * kernel serves all) or 'unique' (one shared_name per variable per load: the leak). Default
   * 'anonymous'.
   */
  resourceNames?: 'anonymous' | 'unique';
  /**
   * Loop iterations one model run may take, all its loops together (each loop entered counts one
   * too): a model that loops forever ends with EagerError 'ResourceExhausted' instead of hanging
   * the page. Default 1,000,000.
   */
  maxLoopIterations?: number;
}

export interface OpCacheStats {
  entries: number;
  bytes: number;
  hits: number;
  misses: number;
  evictions: number;
  bypassed: number;
  /**
   * Distinct cache keys seen (exact up to 256, then a HyperLogLog estimate; never more than the
   * misses and bypasses that brought keys in).
   */
  distinctKeys: number;
  distinctExact: boolean;
  /** Per attr of the op (in its declared order): how its values varied across the keys seen. */
  attrs: { [attr: string]: AttrVariation };
  /** Heap bytes of this per-attr tracking (bounded; beside `bytes`, which eviction can free). */
  attrBytes: number;
}

export interface AttrVariation {
  /** Distinct values seen (exact up to 128, then an estimate; never more than `distinctKeys`). */
  distinctValues: number;
  distinctExact: boolean;
  /** Takes a new value on almost every call (the attr that makes the op churn). */
  variesPerCall: boolean;
  /** The first value seen and the first that differed from it, rendered and truncated. */
  examples: string[];
}

export interface CacheWarning {
  op: string;
  /** Built from the figures: the attrs at fault, those constant, and the fix that fits. */
  message: string;
  /** The attrs that take a new value on almost every call (empty: only their combination does). */
  attrs: string[];
}

export interface CacheStats {
  entries: number;
  bytes: number;
  hits: number;
  misses: number;
  evictions: number;
  /** Lookups of excluded ops (kernel made for the call only). */
  bypassed: number;
  byOp: { [op: string]: OpCacheStats };
  /** Heap bytes of the per-attr tracking of every op (the sum of `byOp[op].attrBytes`). */
  attrBytes: number;
  /** Churn warnings: ops whose keys never repeat (e.g. VarHandleOp with unique names). */
  warnings: CacheWarning[];
}

export interface MemoryInfo {
  /** Live bytes of the Rust heap (exact; goes down when memory is released). */
  heapBytes: number;
  /** High-water mark of heapBytes. */
  heapPeakBytes: number;
  /** Reserved wasm linear memory (memory.buffer.byteLength): only grows. */
  wasmMemoryBytes: number;
  /** Live tensor buffers of the instance (a buffer shared by views counts once). */
  numTensors: number;
  tensorBytes: number;
  /** Resources (variables) of this context. */
  numResources: number;
  resourceBytes: number;
  /** Kernel cache of this context. */
  cacheEntries: number;
  cacheBytes: number;
}

/** An attr value in TF terms: the op's declared attr kind decides how it is read. */
export type AttrValue =
  | number
  | bigint
  | boolean
  | string
  | null
  | Uint8Array
  | Tensor
  | Array<number | bigint | boolean | string | null | number[]>;
export type Attrs = { [name: string]: AttrValue | undefined };

export interface TensorInfo {
  /** Signature name (e.g. 'x'). */
  name: string;
  /** Graph tensor name (e.g. 'x:0'). */
  tensorName: string;
  dtype: TensorDType;
  /** -1 for unknown dims; null for unknown rank. */
  shape: number[] | null;
  /** Inputs only: true when the input has a default (a PlaceholderWithDefault) and may be left
   * unfed; absent otherwise. */
  optional?: true;
}

export class GraphModel {
  protected constructor();
  readonly context: EagerContext;
  readonly inputs: TensorInfo[];
  readonly outputs: TensorInfo[];
  readonly isDisposed: boolean;
  /**
   * x: a Tensor (single-input models), Tensors in `inputs` order, or `{ [name or 'x:0']: Tensor }`.
   * One output: a Tensor; several: `{ [output name]: Tensor }`, an object without prototype (so an
   * output named `__proto__` or `constructor` is an ordinary key).
   */
  predict(x: Tensor | Tensor[] | { [name: string]: Tensor }): Tensor | { [name: string]: Tensor };
  /**
   * TF.js's `execute`: `outputs` names what to return (a signature output key, `'node:1'` or a
   * node name; intermediate nodes the outputs need are available), default the signature outputs.
   * One name: a Tensor; an array: Tensors in its order; no names: a Tensor for a one-output model,
   * else Tensors in `outputs` order.
   */
  execute(inputs: Tensor | Tensor[] | { [name: string]: Tensor }, outputs: string): Tensor;
  execute(inputs: Tensor | Tensor[] | { [name: string]: Tensor }, outputs: string[]): Tensor[];
  execute(inputs: Tensor | Tensor[] | { [name: string]: Tensor }): Tensor | Tensor[];
  /** `execute` as a Promise (what TF.js users call for control-flow models). */
  executeAsync(inputs: Tensor | Tensor[] | { [name: string]: Tensor }, outputs: string): Promise<Tensor>;
  executeAsync(inputs: Tensor | Tensor[] | { [name: string]: Tensor }, outputs: string[]): Promise<Tensor[]>;
  executeAsync(inputs: Tensor | Tensor[] | { [name: string]: Tensor }): Promise<Tensor | Tensor[]>;
  /** Runs once on zeros (unknown dims as 1) and disposes the result: kernels are cached before the first real input. */
  warmup(): void;
  /** Releases every variable and tensor of the model. Idempotent. */
  dispose(): void;
}

/**
 * A TF.js layers (Keras) model from `loadLayersModel`: `inputs` are its input layers (name, dtype,
 * `batch_input_shape`), `outputs` its output layers (shape null: not inferred).
 */
export class LayersModel extends GraphModel {}

/** Weights held in memory: one buffer (shards concatenated), one per shard, or by shard path. */
export type WeightsSource =
  | ArrayBuffer
  | SharedArrayBuffer
  | ArrayBufferView
  | Array<ArrayBuffer | SharedArrayBuffer | ArrayBufferView>
  | { [path: string]: ArrayBuffer | SharedArrayBuffer | ArrayBufferView };

export interface LoadOptions {
  /** Progress from 0 to 1: fetching up to 0.9, restoring weights the rest. */
  onProgress?: (fraction: number) => void;
  /** A fetch() to use instead of the global one. */
  fetch?: (input: string, init?: { signal?: AbortSignal }) => Promise<Response>;
}

export interface Conv2DOptions {
  strides?: number | [number, number] | [number, number, number, number];
  padding?: 'SAME' | 'VALID' | 'EXPLICIT';
  dilations?: number | [number, number] | [number, number, number, number];
  explicitPaddings?: number[];
  dataFormat?: 'NHWC' | 'NCHW';
}

export interface PoolOptions {
  filterSize?: number | [number, number] | [number, number, number, number];
  strides?: number | [number, number] | [number, number, number, number];
  padding?: 'SAME' | 'VALID';
  dataFormat?: 'NHWC' | 'NCHW';
}

/** Typed helpers over `execute` (each returns the op's first output). */
export interface Ops {
  matMul(a: Tensor, b: Tensor, options?: { transposeA?: boolean; transposeB?: boolean }): Tensor;
  conv2d(x: Tensor, filter: Tensor, options?: Conv2DOptions): Tensor;
  depthwiseConv2d(x: Tensor, filter: Tensor, options?: Conv2DOptions): Tensor;
  maxPool(x: Tensor, options?: PoolOptions): Tensor;
  avgPool(x: Tensor, options?: PoolOptions): Tensor;
  add(a: Tensor, b: Tensor): Tensor;
  sub(a: Tensor, b: Tensor): Tensor;
  mul(a: Tensor, b: Tensor): Tensor;
  div(a: Tensor, b: Tensor): Tensor;
  maximum(a: Tensor, b: Tensor): Tensor;
  minimum(a: Tensor, b: Tensor): Tensor;
  pow(a: Tensor, b: Tensor): Tensor;
  biasAdd(x: Tensor, bias: Tensor): Tensor;
  relu(x: Tensor): Tensor;
  relu6(x: Tensor): Tensor;
  sigmoid(x: Tensor): Tensor;
  tanh(x: Tensor): Tensor;
  exp(x: Tensor): Tensor;
  log(x: Tensor): Tensor;
  sqrt(x: Tensor): Tensor;
  neg(x: Tensor): Tensor;
  abs(x: Tensor): Tensor;
  softmax(x: Tensor): Tensor;
  identity(x: Tensor): Tensor;
  leakyRelu(x: Tensor, alpha?: number): Tensor;
  cast(x: Tensor, dtype: DType): Tensor;
  reshape(x: Tensor, shape: number[]): Tensor;
  transpose(x: Tensor, perm?: number[]): Tensor;
  sum(x: Tensor, axes: number[], keepDims?: boolean): Tensor;
}

export class EagerContext {
  /** Throws EagerError('FailedPrecondition') before `await init()`, 'InvalidArgument' on bad options. */
  constructor(options?: EagerContextOptions);
  readonly id: number;
  readonly isDisposed: boolean;
  readonly ops: Ops;
  /**
   * dtype as TF.js infers it (Float32Array/Float64Array -> float32; Int8/16/32, Uint8/16/32 and
   * Uint8ClampedArray -> int32; BigInt64Array/BigUint64Array -> int64; numbers -> float32,
   * booleans -> bool, bigints -> int64) unless `dtype` is given; shape inferred from nesting (rows
   * may be typed arrays) unless given. Every value is converted exactly or the call throws
   * EagerError('InvalidArgument'): strings, mixed types, out-of-range integers, ragged rows.
   */
  tensor(values: TensorLike, shape?: number[], dtype?: DType): Tensor;
  /** Runs a registered op by TF name with TF attr names; type attrs are inferred from inputs. */
  execute(op: string, inputs?: Tensor[], attrs?: Attrs): Tensor[];
  /**
   * Disposes every tensor made inside `fn` except those it returns, at any depth in arrays, plain or
   * null-prototype objects, Maps and Sets (class instances are not searched). The scope is closed
   * whatever throws; a result that cannot be read is EagerError('InvalidArgument').
   */
  tidy<T>(fn: () => T): T;
  tidy<T>(name: string, fn: () => T): T;
  /** Rejects with EagerError('Cancelled') if the context is disposed while loading. */
  loadGraphModel(
    source: string | URL | { modelJson: string | object; weights?: WeightsSource },
    options?: LoadOptions,
  ): Promise<GraphModel>;
  /**
   * A TF.js layers model (`format: 'layers-model'`, Keras config: what `tensorflowjs_converter
   * --input_format keras`, TF.js `model.save()` and Teachable Machine write); same sources and
   * options as `loadGraphModel`. Throws EagerError('Unimplemented') naming an unsupported layer.
   */
  loadLayersModel(
    source: string | URL | { modelJson: string | object; weights?: WeightsSource },
    options?: LoadOptions,
  ): Promise<LayersModel>;
  cacheStats(): CacheStats;
  cacheOptions(): { maxEntries: number; maxBytes: number; exclude: string[] };
  memory(): MemoryInfo;
  /** Changes only the given fields; evicts down to new bounds at once. */
  setCacheOptions(options: CacheOptions): void;
  /** Drops every cached kernel (statistics kept). */
  clearCache(): void;
  /** Drops every cached kernel and zeroes the statistics. */
  resetCache(): void;
  /**
   * Releases models, tensors, kernels and resources of the context. Idempotent. Loads under way are
   * aborted (downloads too) and reject with EagerError('Cancelled').
   */
  dispose(): void;
}

/** Names of every op the runtime implements, sorted. */
export function registeredOps(): string[];
/** Resets memory().heapPeakBytes to the current heap in use. */
export function resetPeakMemory(): void;
