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
/** Every dtype a Tensor can have (TF.js's name for it). */
export type DataType = TensorDType;

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
export type NestedArray = ScalarLike[] | TypedArray[] | NestedArray[];
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

/** One value of each dtype, as `arraySync()` gives it. */
export type ElementTypeMap = {
  float32: number;
  int32: number;
  int64: bigint;
  bool: boolean;
  uint8: number;
  resource: never;
};
/** Values of type T nested to any depth (a scalar is depth 0). */
export type Nested<T> = T | Nested<T>[];
/** A Tensor, or values `ctx.tensor()` accepts (made into a tensor for the call, then disposed). */
export type TensorOrLike = Tensor | TensorLike;
/** Values that make a float32 tensor when no dtype is given. */
export type Float32Like = Float32Array | Float64Array | number | NestedNumbers;
export type NestedNumbers = number[] | Exclude<TypedArray, BigInt64Array | BigUint64Array>[] | NestedNumbers[];
export type Int32Like = Int32Array | Int16Array | Int8Array | Uint32Array | Uint16Array | Uint8Array | Uint8ClampedArray;
export type Int64Like = BigInt64Array | BigUint64Array | bigint | Nested<bigint>[];
/** TF.js's pad: 'same', 'valid', a number (explicit, every side) or [[top, bottom], [left, right]] etc. per dim. */
export type Padding = 'same' | 'valid' | 'SAME' | 'VALID' | number | [number, number][];
/** One number for both spatial dims, [h, w], or TF's 4 numbers. */
export type Spatial = number | [number, number] | [number, number, number, number];

/**
 * Loads and instantiates the wasm module; no argument needed in a browser or in Node 20. The
 * default build runs graph models; `{ layers: true }` loads the one that also reads the layers
 * (Keras) format (about 85 KB more gzipped). Of each, the relaxed-SIMD build (fused multiply-add in
 * matmul/conv kernels) is loaded where the engine validates relaxed-SIMD code, else the plain
 * SIMD128 one; `{ relaxedSimd: false }` forces the plain build. Pass a URL, Response, BufferSource
 * or WebAssembly.Module of one of the `eager_wasm*_bg.wasm` files to load that file. Idempotent:
 * the first call decides. Rejects with EagerError('Unavailable') if the module cannot be loaded.
 *
 * Each build comes in two parts: the `_bg.wasm` init() loads holds what typical vision models and
 * the API's common paths run; the rest (rare ops and dtypes, most error paths) is in the matching
 * `_cold.wasm` next to it, loaded the first time it is needed: ahead, asynchronously, by
 * `loadGraphModel` for a model with ops outside the common set, else synchronously at the call (in a
 * browser, a synchronous request). `{ coldCode: 'at-init' }` loads both parts at init. If the cold
 * part cannot be loaded, the call that needed it throws EagerError('Unavailable').
 */
export function init(
  input?: InitOptions | URL | string | Response | BufferSource | WebAssembly.Module | Promise<Response>,
): Promise<void>;

export interface InitOptions {
  /** false: load the plain SIMD128 build even where relaxed SIMD is available. Default true. */
  relaxedSimd?: boolean;
  /** true: load the build that also reads layers (Keras) models (`loadLayersModel`). Default false. */
  layers?: boolean;
  /** When to load the build's on-demand part (`_cold.wasm`): at first need (default) or at init. */
  coldCode?: 'on-demand' | 'at-init';
}

/**
 * Which build init() loaded: `split` if it comes in two parts (false only for development builds,
 * `npm run build -- --no-split`), `coldCodeLoaded` once its on-demand part is loaded. Throws
 * EagerError('FailedPrecondition') before `await init()`.
 */
export function wasmFeatures(): {
  simd: true;
  relaxedSimd: boolean;
  layers: boolean;
  split: boolean;
  coldCodeLoaded: boolean;
};

/**
 * A tensor in wasm memory. `D` is its dtype: `dataSync()` returns that dtype's typed array and
 * `arraySync()` its values nested. The op methods (`t.add(b)`, `t.reshape(shape)`, ...) are
 * `ctx.ops` helpers with `t` first: see `Ops`.
 */
export class Tensor<D extends DataType = DataType> {
  private constructor();
  /** The context that owns the tensor. */
  readonly context: EagerContext;
  readonly dtype: D;
  readonly shape: number[];
  readonly rank: number;
  /** Number of elements. */
  readonly size: number;
  /** True after dispose(), tidy() or the context's dispose() released it. */
  readonly isDisposed: boolean;
  /** @internal numeric handle into the runtime's tensor table */
  readonly handle: number;
  /** A copy of the values. Throws EagerError('FailedPrecondition') once disposed. */
  dataSync(): DataTypeMap[D];
  data(): Promise<DataTypeMap[D]>;
  /**
   * Copies the values into the start of `target` without allocating and returns `target`. It must
   * be the dtype's array type (Float32Array, Int32Array, BigInt64Array for int64, Uint8Array for
   * bool and uint8) and hold at least `size` elements; otherwise EagerError('InvalidArgument'). A
   * real typed array is required (a Proxy or look-alike is refused; a subclass's overrides are not
   * used), and a detached one is refused.
   */
  readInto<T extends DataTypeMap[D]>(target: T): T;
  /**
   * Values as nested arrays (bigint for int64, boolean for bool); a scalar for rank 0. Name the
   * nesting you know (`t.arraySync<number[][]>()`): it is checked against the dtype.
   */
  arraySync<A extends Nested<ElementTypeMap[D]> = Nested<ElementTypeMap[D]>>(): A;
  array<A extends Nested<ElementTypeMap[D]> = Nested<ElementTypeMap[D]>>(): Promise<A>;
  /** Releases the tensor's memory. Idempotent. */
  dispose(): void;
  /** The values by dimension as TF.js prints them (long dims truncated); `verbose` adds dtype, rank, shape. */
  toString(verbose?: boolean): string;
  /** `console.log(this.toString(verbose))`. */
  print(verbose?: boolean): void;

  // Chainable ops: each is the `ctx.ops` helper of the same name with this tensor first.
  abs(): Tensor<D>; acos(): Tensor<D>; acosh(): Tensor<D>; asin(): Tensor<D>; asinh(): Tensor<D>;
  atan(): Tensor<D>; atanh(): Tensor<D>; ceil(): Tensor<D>; cos(): Tensor<D>; cosh(): Tensor<D>;
  elu(): Tensor<D>; erf(): Tensor<D>; exp(): Tensor<D>; expm1(): Tensor<D>; floor(): Tensor<D>;
  identity(): Tensor<D>; clone(): Tensor<D>; log(): Tensor<D>; log1p(): Tensor<D>; neg(): Tensor<D>;
  onesLike(): Tensor<D>; zerosLike(): Tensor<D>; reciprocal(): Tensor<D>; relu(): Tensor<D>;
  relu6(): Tensor<D>; round(): Tensor<D>; rsqrt(): Tensor<D>; selu(): Tensor<D>; sigmoid(): Tensor<D>;
  sign(): Tensor<D>; sin(): Tensor<D>; sinh(): Tensor<D>; softplus(): Tensor<D>; sqrt(): Tensor<D>;
  square(): Tensor<D>; tan(): Tensor<D>; tanh(): Tensor<D>;
  isFinite(): Tensor<'bool'>; isInf(): Tensor<'bool'>; isNaN(): Tensor<'bool'>; logicalNot(): Tensor<'bool'>;
  add<E extends DataType = D>(b: Tensor<E> | TensorLike): Tensor<Widen<D, E>>;
  sub<E extends DataType = D>(b: Tensor<E> | TensorLike): Tensor<Widen<D, E>>;
  mul<E extends DataType = D>(b: Tensor<E> | TensorLike): Tensor<Widen<D, E>>;
  div<E extends DataType = D>(b: Tensor<E> | TensorLike): Tensor<Widen<D, E>>;
  floorDiv<E extends DataType = D>(b: Tensor<E> | TensorLike): Tensor<Widen<D, E>>;
  mod<E extends DataType = D>(b: Tensor<E> | TensorLike): Tensor<Widen<D, E>>;
  maximum<E extends DataType = D>(b: Tensor<E> | TensorLike): Tensor<Widen<D, E>>;
  minimum<E extends DataType = D>(b: Tensor<E> | TensorLike): Tensor<Widen<D, E>>;
  pow<E extends DataType = D>(b: Tensor<E> | TensorLike): Tensor<Widen<D, E>>;
  squaredDifference<E extends DataType = D>(b: Tensor<E> | TensorLike): Tensor<Widen<D, E>>;
  atan2<E extends DataType = D>(b: Tensor<E> | TensorLike): Tensor<Widen<D, E>>;
  divNoNan<E extends DataType = D>(b: Tensor<E> | TensorLike): Tensor<Widen<D, E>>;
  prelu(alpha: TensorOrLike): Tensor<D>;
  biasAdd(bias: TensorOrLike): Tensor<D>;
  equal(b: TensorOrLike): Tensor<'bool'>; notEqual(b: TensorOrLike): Tensor<'bool'>;
  greater(b: TensorOrLike): Tensor<'bool'>; greaterEqual(b: TensorOrLike): Tensor<'bool'>;
  less(b: TensorOrLike): Tensor<'bool'>; lessEqual(b: TensorOrLike): Tensor<'bool'>;
  logicalAnd(b: TensorOrLike): Tensor<'bool'>; logicalOr(b: TensorOrLike): Tensor<'bool'>;
  sum(axis?: number | number[] | null, keepDims?: boolean): Tensor<D>;
  mean(axis?: number | number[] | null, keepDims?: boolean): Tensor<D>;
  max(axis?: number | number[] | null, keepDims?: boolean): Tensor<D>;
  min(axis?: number | number[] | null, keepDims?: boolean): Tensor<D>;
  prod(axis?: number | number[] | null, keepDims?: boolean): Tensor<D>;
  all(axis?: number | number[] | null, keepDims?: boolean): Tensor<'bool'>;
  any(axis?: number | number[] | null, keepDims?: boolean): Tensor<'bool'>;
  argMax(axis?: number): Tensor<'int32'>;
  argMin(axis?: number): Tensor<'int32'>;
  cumsum(axis?: number, exclusive?: boolean, reverse?: boolean): Tensor<D>;
  cumprod(axis?: number, exclusive?: boolean, reverse?: boolean): Tensor<D>;
  softmax(dim?: number): Tensor<D>;
  logSoftmax(axis?: number): Tensor<D>;
  conv2d(filter: TensorOrLike, strides: Spatial, pad: Padding, dataFormat?: 'NHWC' | 'NCHW', dilations?: Spatial): Tensor<D>;
  conv2d(filter: TensorOrLike, options?: Conv2DOptions): Tensor<D>;
  depthwiseConv2d(filter: TensorOrLike, strides: Spatial, pad: Padding, dataFormat?: 'NHWC' | 'NCHW', dilations?: Spatial): Tensor<D>;
  depthwiseConv2d(filter: TensorOrLike, options?: Conv2DOptions): Tensor<D>;
  maxPool(filterSize: Spatial, strides: Spatial, pad: 'same' | 'valid' | 'SAME' | 'VALID' | 0): Tensor<D>;
  maxPool(options?: PoolOptions): Tensor<D>;
  avgPool(filterSize: Spatial, strides: Spatial, pad: 'same' | 'valid' | 'SAME' | 'VALID' | 0): Tensor<D>;
  avgPool(options?: PoolOptions): Tensor<D>;
  /** float32 whatever the input dtype (as TF). */
  resizeBilinear(size: [number, number], alignCorners?: boolean, halfPixelCenters?: boolean): Tensor<'float32'>;
  resizeNearestNeighbor(size: [number, number], alignCorners?: boolean, halfPixelCenters?: boolean): Tensor<D>;
  matMul(b: TensorOrLike, transposeA?: boolean, transposeB?: boolean): Tensor<D>;
  matMul(b: TensorOrLike, options: { transposeA?: boolean; transposeB?: boolean }): Tensor<D>;
  leakyRelu(alpha?: number): Tensor<D>;
  clipByValue(min: number, max: number): Tensor<D>;
  cast<T extends DType>(dtype: T): Tensor<T>;
  reshape(shape: number[]): Tensor<D>;
  expandDims(axis?: number): Tensor<D>;
  squeeze(axis?: number[]): Tensor<D>;
  transpose(perm?: number[]): Tensor<D>;
  slice(begin: number | number[], size?: number | number[]): Tensor<D>;
  stridedSlice(begin: number[], end: number[], strides?: number[], beginMask?: number, endMask?: number, ellipsisMask?: number, newAxisMask?: number, shrinkAxisMask?: number): Tensor<D>;
  concat(x: Tensor | Tensor[], axis?: number): Tensor<D>;
  stack(x: Tensor | Tensor[], axis?: number): Tensor<D>;
  unstack(axis?: number): Tensor<D>[];
  split(numOrSizeSplits: number | number[], axis?: number): Tensor<D>[];
  pad(paddings: [number, number][], constantValue?: number | bigint | boolean): Tensor<D>;
  mirrorPad(paddings: [number, number][], mode: 'reflect' | 'symmetric'): Tensor<D>;
  tile(reps: number[]): Tensor<D>;
  broadcastTo(shape: number[]): Tensor<D>;
  reverse(axis?: number | number[]): Tensor<D>;
  gather(indices: TensorOrLike, axis?: number, batchDims?: number): Tensor<D>;
  oneHot<T extends DType = 'int32'>(depth: number, onValue?: number, offValue?: number, dtype?: T): Tensor<T>;
  topk(k?: number, sorted?: boolean): { values: Tensor<D>; indices: Tensor<'int32'> };
  depthToSpace(blockSize: number, dataFormat?: 'NHWC' | 'NCHW'): Tensor<D>;
}

/** What `fromPixels` reads (the DOM types only where they exist, e.g. not in a worker). */
export type PixelSource =
  | { data: Uint8Array | Uint8ClampedArray; width: number; height: number }
  | ImageData
  | HTMLImageElement
  | HTMLCanvasElement
  | HTMLVideoElement
  | OffscreenCanvas
  | ImageBitmap
  | VideoFrame;

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
  /**
   * Let a graph model's convolutions and matrix products pack their weights into the kernels'
   * layout once, on first use, instead of on every call: faster predicts, and a packed weight takes
   * about twice its memory (memory().packedBytes). Default true.
   */
  packWeights?: boolean;
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
  /**
   * Model weights packed into a kernel layout by their first use (instance-wide, as tensors): each
   * lives as long as its weight (model dispose, variable destroy or assign frees it).
   */
  numPacked: number;
  packedBytes: number;
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

/** A model's inputs: one Tensor (single-input models), Tensors in `inputs` order, or by name. */
export type ModelInputs = Tensor | Tensor[] | { [name: string]: Tensor };
/** What `predict` returns: a Tensor, or by output name when the model's names were given. */
export type Prediction<O extends string | null, D extends DataType> = [O] extends [string] ? { [K in O]: Tensor<D> } : Tensor<D>;

/**
 * A loaded model, typed by what `predict` returns (the runtime knows it only once loaded: see
 * `outputs`). `O`: the output names of a model with several (`ctx.loadGraphModel<'boxes' |
 * 'scores'>(url)`: `predict` returns `{ boxes, scores }`); left out (null), `predict` returns a
 * Tensor (a one-output model). `D`: the outputs' dtype, float32 unless given (`<null, 'int64'>`).
 */
export class GraphModel<O extends string | null = null, D extends DataType = 'float32'> {
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
  predict(x: ModelInputs): Prediction<O, D>;
  /**
   * TF.js's `execute`: `outputs` names what to return (a signature output key, `'node:1'` or a
   * node name; intermediate nodes the outputs need are available), default the signature outputs.
   * One name: a Tensor; an array: Tensors in its order; no names: a Tensor for a one-output model,
   * else Tensors in `outputs` order.
   */
  execute(inputs: ModelInputs, outputs: string): Tensor;
  execute(inputs: ModelInputs, outputs: string[]): Tensor[];
  execute(inputs: ModelInputs): Tensor | Tensor[];
  /** `execute` as a Promise (what TF.js users call for control-flow models). */
  executeAsync(inputs: ModelInputs, outputs: string): Promise<Tensor>;
  executeAsync(inputs: ModelInputs, outputs: string[]): Promise<Tensor[]>;
  executeAsync(inputs: ModelInputs): Promise<Tensor | Tensor[]>;
  /**
   * `predict` with every node timed (`performance.now()`); the outputs are disposed. A layers
   * model reports one step per layer call (its `op` the layer kind, e.g. `Dense`, `Conv`). A node
   * inside a loop is one entry for all its iterations (`count` runs, `ms` their total).
   */
  profile(x: ModelInputs): ModelProfile;
  /** Runs once on zeros (unknown dims as 1) and disposes the result: kernels are cached before the first real input. */
  warmup(): void;
  /** Releases every variable and tensor of the model. Idempotent. */
  dispose(): void;
}

/** One executed node of `GraphModel.profile`, in order of its first run. */
export interface NodeProfile {
  name: string;
  /**
   * The op that ran (`Placeholder`/`Const` for feeds and inline constants, `ReadVariableOp` for
   * weights, `Enter`/`Merge`/`Switch`/`LoopCond`/`NextIteration`/`Exit` for control flow).
   */
  op: string;
  /** Total over its `count` runs. */
  ms: number;
  /** Times it ran: 1, or the iterations of the loops around it (untaken branches not counted). */
  count: number;
  /** Of its last run; a control-flow node lists the value it passed on. */
  outputs: { dtype: DType; shape: number[]; bytes: number }[];
  /**
   * Kernel-cache lookup: `'miss'` made (and cached) a kernel; null: the node runs no kernel. Over
   * several runs the costliest (miss, then bypass, then hit).
   */
  cache: 'hit' | 'miss' | 'bypass' | null;
}

/** The nodes of one op type in a `GraphModel.profile`. */
export interface OpProfile {
  op: string;
  /** Runs of its nodes (loop iterations counted). */
  count: number;
  ms: number;
  /** Of `totalMs`, in [0, 1]. */
  share: number;
}

export interface ModelProfile {
  /** In execution order. */
  nodes: NodeProfile[];
  /** Longest total first. */
  byOp: OpProfile[];
  /** Sum of the nodes' times. */
  totalMs: number;
  /** The whole run, the executor's own work included. */
  wallMs: number;
}

/**
 * A TF.js layers (Keras) model from `loadLayersModel`: `inputs` are its input layers (name, dtype,
 * `batch_input_shape`), `outputs` its output layers (shape null: not inferred).
 */
export class LayersModel<O extends string | null = null, D extends DataType = 'float32'> extends GraphModel<O, D> {}

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

/** conv2d options (the earlier form; TF.js's positional arguments work too). */
export interface Conv2DOptions {
  /** Default 1. */
  strides?: Spatial;
  /** `pad` and `padding` are the same; default 'VALID'. */
  pad?: Padding;
  padding?: Padding | 'EXPLICIT';
  dilations?: Spatial;
  /** With padding 'EXPLICIT': TF's 8 numbers. */
  explicitPaddings?: number[];
  dataFormat?: 'NHWC' | 'NCHW';
}

export interface PoolOptions {
  /** Default 2. */
  filterSize?: Spatial;
  /** Default filterSize. */
  strides?: Spatial;
  /** Default 'VALID'. */
  pad?: 'same' | 'valid' | 'SAME' | 'VALID' | 0;
  padding?: 'same' | 'valid' | 'SAME' | 'VALID' | 0;
  dataFormat?: 'NHWC' | 'NCHW';
}

/** The helper of one op: x first (a Tensor, or values made into one for the call). */
type Unary = <D extends DataType>(x: Tensor<D> | TensorLike) => Tensor<D>;
type Predicate = (x: TensorOrLike) => Tensor<'bool'>;
/**
 * The dtype two operands meet in (TF.js's upcasting: bool < uint8 < int32 < int64 < float32). A JS
 * value takes the tensor's dtype when it fits exactly, else widens the result to float32 (int32 +
 * 1.5), which the types cannot see: pass a float32 tensor to say so.
 */
export type Widen<A extends DataType, B extends DataType> = 'float32' extends A | B
  ? 'float32'
  : 'int64' extends A | B
    ? 'int64'
    : 'int32' extends A | B
      ? 'int32'
      : 'uint8' extends A | B
        ? 'uint8'
        : A;
type Binary = {
  <D extends DataType, E extends DataType>(a: Tensor<D>, b: Tensor<E>): Tensor<Widen<D, E>>;
  <D extends DataType>(a: Tensor<D> | TensorLike, b: TensorOrLike): Tensor<D>;
};
type Comparison = (a: TensorOrLike, b: TensorOrLike) => Tensor<'bool'>;
type Reduction<R extends DataType | null = null> = <D extends DataType>(
  x: Tensor<D> | TensorLike,
  axis?: number | number[] | null,
  keepDims?: boolean,
) => Tensor<R extends DataType ? R : D>;
type Conv = {
  <D extends DataType>(x: Tensor<D> | TensorLike, filter: TensorOrLike, strides: Spatial, pad: Padding, dataFormat?: 'NHWC' | 'NCHW', dilations?: Spatial): Tensor<D>;
  <D extends DataType>(x: Tensor<D> | TensorLike, filter: TensorOrLike, options?: Conv2DOptions): Tensor<D>;
};
type Pool = {
  <D extends DataType>(x: Tensor<D> | TensorLike, filterSize: Spatial, strides: Spatial, pad: 'same' | 'valid' | 'SAME' | 'VALID' | 0): Tensor<D>;
  <D extends DataType>(x: Tensor<D> | TensorLike, options?: PoolOptions): Tensor<D>;
};
type Resize<R extends DataType | null> = <D extends DataType>(
  images: Tensor<D> | TensorLike,
  size: [number, number],
  alignCorners?: boolean,
  halfPixelCenters?: boolean,
) => Tensor<R extends DataType ? R : D>;

/**
 * TF.js's everyday ops as helpers over `execute` (the same ops and attrs, so the same cached
 * kernels), with TF.js's argument order and spellings ('same', camelCase). Every tensor argument
 * may also be values (`x.add(1)`; the number takes the other operand's dtype), made into a tensor
 * for the call and disposed after. Images may be one image [h, w, c] or a batch [n, h, w, c].
 * Bad arguments: EagerError('InvalidArgument').
 */
export interface Ops {
  abs: Unary; acos: Unary; acosh: Unary; asin: Unary; asinh: Unary; atan: Unary; atanh: Unary;
  ceil: Unary; cos: Unary; cosh: Unary; elu: Unary; erf: Unary; exp: Unary; expm1: Unary;
  floor: Unary; identity: Unary; clone: Unary; log: Unary; log1p: Unary; neg: Unary;
  onesLike: Unary; zerosLike: Unary; reciprocal: Unary; relu: Unary; relu6: Unary; round: Unary;
  rsqrt: Unary; selu: Unary; sigmoid: Unary; sign: Unary; sin: Unary; sinh: Unary; softplus: Unary;
  sqrt: Unary; square: Unary; tan: Unary; tanh: Unary;
  isFinite: Predicate; isInf: Predicate; isNaN: Predicate; logicalNot: Predicate;
  add: Binary; sub: Binary; mul: Binary; div: Binary; floorDiv: Binary; mod: Binary;
  maximum: Binary; minimum: Binary; pow: Binary; squaredDifference: Binary; atan2: Binary;
  divNoNan: Binary; prelu: Binary; biasAdd: Binary;
  equal: Comparison; notEqual: Comparison; greater: Comparison; greaterEqual: Comparison;
  less: Comparison; lessEqual: Comparison; logicalAnd: Comparison; logicalOr: Comparison;
  /** Over `axis` (default: every axis). */
  sum: Reduction; mean: Reduction; max: Reduction; min: Reduction; prod: Reduction;
  all: Reduction<'bool'>; any: Reduction<'bool'>;
  /** int32 indices, as in TF.js; axis default 0. */
  argMax(x: TensorOrLike, axis?: number): Tensor<'int32'>;
  argMin(x: TensorOrLike, axis?: number): Tensor<'int32'>;
  cumsum<D extends DataType>(x: Tensor<D> | TensorLike, axis?: number, exclusive?: boolean, reverse?: boolean): Tensor<D>;
  cumprod<D extends DataType>(x: Tensor<D> | TensorLike, axis?: number, exclusive?: boolean, reverse?: boolean): Tensor<D>;
  /** Over the last axis (the only one supported). */
  softmax<D extends DataType>(x: Tensor<D> | TensorLike, dim?: number): Tensor<D>;
  logSoftmax<D extends DataType>(x: Tensor<D> | TensorLike, axis?: number): Tensor<D>;
  /** `conv2d(x, filter, strides, pad, dataFormat?, dilations?)` as TF.js, or `(x, filter, options)`. */
  conv2d: Conv;
  depthwiseConv2d: Conv;
  /** `maxPool(x, filterSize, strides, pad)` as TF.js, or `(x, options)`. */
  maxPool: Pool;
  avgPool: Pool;
  /** float32 whatever the input dtype (as TF). */
  resizeBilinear: Resize<'float32'>;
  resizeNearestNeighbor: Resize<null>;
  image: {
    resizeBilinear: Resize<'float32'>;
    resizeNearestNeighbor: Resize<null>;
    /** Indices (int32) of the boxes kept (NonMaxSuppressionV3). */
    nonMaxSuppression(boxes: TensorOrLike, scores: TensorOrLike, maxOutputSize: number, iouThreshold?: number, scoreThreshold?: number): Tensor<'int32'>;
    /** NonMaxSuppressionV5: the kept boxes' indices and (soft-NMS) scores. */
    nonMaxSuppressionWithScore(
      boxes: TensorOrLike,
      scores: TensorOrLike,
      maxOutputSize: number,
      iouThreshold?: number,
      scoreThreshold?: number,
      softNmsSigma?: number,
    ): { selectedIndices: Tensor<'int32'>; selectedScores: Tensor<'float32'> };
    cropAndResize(
      image: TensorOrLike,
      boxes: TensorOrLike,
      boxInd: TensorOrLike,
      cropSize: [number, number],
      method?: 'bilinear' | 'nearest',
      extrapolationValue?: number,
    ): Tensor<'float32'>;
  };
  /** `matMul(a, b, transposeA?, transposeB?)` as TF.js, or `(a, b, { transposeA, transposeB })`; rank > 2: batched. */
  matMul<D extends DataType>(a: Tensor<D> | TensorLike, b: TensorOrLike, transposeA?: boolean, transposeB?: boolean): Tensor<D>;
  matMul<D extends DataType>(a: Tensor<D> | TensorLike, b: TensorOrLike, options: { transposeA?: boolean; transposeB?: boolean }): Tensor<D>;
  leakyRelu<D extends DataType>(x: Tensor<D> | TensorLike, alpha?: number): Tensor<D>;
  clipByValue<D extends DataType>(x: Tensor<D> | TensorLike, min: number, max: number): Tensor<D>;
  cast<T extends DType>(x: TensorOrLike, dtype: T): Tensor<T>;
  reshape<D extends DataType>(x: Tensor<D> | TensorLike, shape: number[]): Tensor<D>;
  expandDims<D extends DataType>(x: Tensor<D> | TensorLike, axis?: number): Tensor<D>;
  squeeze<D extends DataType>(x: Tensor<D> | TensorLike, axis?: number[]): Tensor<D>;
  transpose<D extends DataType>(x: Tensor<D> | TensorLike, perm?: number[]): Tensor<D>;
  /** begin/size shorter than the rank are padded with 0 / -1 (to the end), as in TF.js. */
  slice<D extends DataType>(x: Tensor<D> | TensorLike, begin: number | number[], size?: number | number[]): Tensor<D>;
  stridedSlice<D extends DataType>(
    x: Tensor<D> | TensorLike,
    begin: number[],
    end: number[],
    strides?: number[],
    beginMask?: number,
    endMask?: number,
    ellipsisMask?: number,
    newAxisMask?: number,
    shrinkAxisMask?: number,
  ): Tensor<D>;
  concat<D extends DataType>(tensors: Array<Tensor<D> | TensorLike>, axis?: number): Tensor<D>;
  stack<D extends DataType>(tensors: Array<Tensor<D> | TensorLike>, axis?: number): Tensor<D>;
  unstack<D extends DataType>(x: Tensor<D> | TensorLike, axis?: number): Tensor<D>[];
  /** n equal parts, or parts of the given sizes (one may be -1). */
  split<D extends DataType>(x: Tensor<D> | TensorLike, numOrSizeSplits: number | number[], axis?: number): Tensor<D>[];
  /** `[[before, after], ...]` per dim. */
  pad<D extends DataType>(x: Tensor<D> | TensorLike, paddings: [number, number][], constantValue?: number | bigint | boolean): Tensor<D>;
  mirrorPad<D extends DataType>(x: Tensor<D> | TensorLike, paddings: [number, number][], mode: 'reflect' | 'symmetric'): Tensor<D>;
  tile<D extends DataType>(x: Tensor<D> | TensorLike, reps: number[]): Tensor<D>;
  broadcastTo<D extends DataType>(x: Tensor<D> | TensorLike, shape: number[]): Tensor<D>;
  /** Default: every axis. */
  reverse<D extends DataType>(x: Tensor<D> | TensorLike, axis?: number | number[]): Tensor<D>;
  gather<D extends DataType>(x: Tensor<D> | TensorLike, indices: TensorOrLike, axis?: number, batchDims?: number): Tensor<D>;
  /** a where condition holds, else b (broadcasting). */
  where<D extends DataType>(condition: TensorOrLike, a: Tensor<D> | TensorLike, b: TensorOrLike): Tensor<D>;
  /** int32 unless `dtype` says otherwise, as in TF.js. */
  oneHot<T extends DType = 'int32'>(indices: TensorOrLike, depth: number, onValue?: number, offValue?: number, dtype?: T): Tensor<T>;
  topk<D extends DataType>(x: Tensor<D> | TensorLike, k?: number, sorted?: boolean): { values: Tensor<D>; indices: Tensor<'int32'> };
  addN<D extends DataType>(tensors: Array<Tensor<D> | TensorLike>): Tensor<D>;
  einsum(equation: string, ...tensors: TensorOrLike[]): Tensor;
  depthToSpace<D extends DataType>(x: Tensor<D> | TensorLike, blockSize: number, dataFormat?: 'NHWC' | 'NCHW'): Tensor<D>;
  fill<T extends DType = 'float32'>(shape: number[], value: number | bigint | boolean, dtype?: T): Tensor<T>;
  zeros<T extends DType = 'float32'>(shape: number[], dtype?: T): Tensor<T>;
  ones<T extends DType = 'float32'>(shape: number[], dtype?: T): Tensor<T>;
  range<T extends 'float32' | 'int32' | 'int64' = 'float32'>(start: number, stop: number, step?: number, dtype?: T): Tensor<T>;
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
  tensor<T extends DType>(values: TensorLike, shape: number[] | null | undefined, dtype: T): Tensor<T>;
  tensor(values: Float32Like, shape?: number[] | null): Tensor<'float32'>;
  tensor(values: Int32Like, shape?: number[] | null): Tensor<'int32'>;
  tensor(values: Int64Like, shape?: number[] | null): Tensor<'int64'>;
  tensor(values: boolean | Nested<boolean>[], shape?: number[] | null): Tensor<'bool'>;
  tensor(values: TensorLike, shape?: number[] | null): Tensor;
  /**
   * An image as TF.js's `tf.browser.fromPixels` gives it: an int32 `[height, width, numChannels]`
   * tensor of the first numChannels (1 to 4, default 3) of R, G, B, A; `{ dtype: 'uint8' }` keeps
   * the bytes (4x less memory). ImageData and raw `{ data, width, height }` (Node; data holds 1 to
   * 4 bytes per pixel) go into wasm as they are; other sources are drawn on a canvas first. Bad
   * sources, a video with no frame yet, or a bad numChannels: EagerError('InvalidArgument').
   */
  fromPixels<T extends 'int32' | 'uint8' = 'int32'>(
    source: PixelSource,
    numChannels?: number,
    options?: { dtype?: T },
  ): Tensor<T>;
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
  loadGraphModel<O extends string | null = null, D extends DataType = 'float32'>(
    source: string | URL | { modelJson: string | object; weights?: WeightsSource },
    options?: LoadOptions,
  ): Promise<GraphModel<O, D>>;
  /**
   * A TF.js layers model (`format: 'layers-model'`, Keras config: what `tensorflowjs_converter
   * --input_format keras`, TF.js `model.save()` and Teachable Machine write); same sources and
   * options as `loadGraphModel`. Throws EagerError('Unimplemented') naming an unsupported layer.
   * Needs the build with the layers format, `await init({ layers: true })`; else rejects with
   * EagerError('FailedPrecondition') before fetching anything.
   */
  loadLayersModel<O extends string | null = null, D extends DataType = 'float32'>(
    source: string | URL | { modelJson: string | object; weights?: WeightsSource },
    options?: LoadOptions,
  ): Promise<LayersModel<O, D>>;
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
