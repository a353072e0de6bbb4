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

/**
 * 'uint8' only when asked for (from a Uint8Array or Uint8ClampedArray); integer typed arrays alone make int32, as in TF.js.
 * 'complex64' only when asked for: (real, imaginary) float pairs, interleaved.
 */
export type DType = 'float32' | 'int32' | 'int64' | 'bool' | 'uint8' | 'complex64';
/** dtype of a tensor: a variable handle made by VarHandleOp has dtype 'resource'; byte strings 'string'. */
export type TensorDType = DType | 'resource' | 'string';
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
/** Values of a string tensor: strings (UTF-8) or Uint8Arrays (raw bytes), nested. */
export type StringLike = string | Nested<string | Uint8Array>[];

/** What `dataSync()` returns for each dtype. */
export type DataTypeMap = {
  float32: Float32Array;
  int32: Int32Array;
  int64: BigInt64Array;
  bool: Uint8Array;
  uint8: Uint8Array;
  /** 2 * size floats: real and imaginary parts interleaved (as TF.js). */
  complex64: Float32Array;
  /** Each element's bytes decoded as UTF-8 (`bytesSync()` has the exact bytes). */
  string: string[];
  resource: never;
};

/** One value of each dtype, as `arraySync()` gives it. */
export type ElementTypeMap = {
  float32: number;
  int32: number;
  int64: bigint;
  bool: boolean;
  uint8: number;
  /** Innermost rows hold (real, imaginary) pairs, interleaved (as TF.js); a scalar gives its real part. */
  complex64: number;
  string: string;
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
 * or WebAssembly.Module of one of the `eager_wasm*_bg.wasm` files to load that file. The first call
 * chooses the build for the page: a later call asking for the same or less resolves, one asking for
 * another build (`layers: true` after a graph-model build, `relaxedSimd: false` after a relaxed one,
 * another module) rejects with EagerError('FailedPrecondition'). Rejects with
 * EagerError('Unavailable') if the module cannot be loaded.
 *
 * Each build comes in two parts: the `_bg.wasm` init() loads holds what typical vision models and
 * the API's common paths run; the rest (rare ops and dtypes, most error paths) is in the matching
 * `_cold.wasm` next to it. In a browser it is fetched asynchronously once the page is idle after
 * init (and ahead by `loadGraphModel` for a model with ops outside the common set), so a call rarely
 * has to fetch it synchronously; in Node it is read from disk the first time it is needed.
 * `{ coldCode: 'at-init' }` loads both parts before init resolves. If the cold part cannot be
 * loaded, the call that needed it throws EagerError('Unavailable').
 *
 * In Node and on a cross-origin-isolated page (COOP `same-origin`, COEP `require-corp`), init()
 * loads the threaded build instead (graph models; not split) and starts workers on its shared
 * memory: `threads` (default one per core, at most 8, the calling thread included) run the heavy
 * kernels, with results bit for bit those of one thread. `{ threads: 1 }` keeps the
 * single-threaded builds; `{ threads: N }` with N > 1 rejects with
 * EagerError('FailedPrecondition') where the threaded build cannot load (not isolated, the layers
 * format, a module passed in).
 */
export function init(
  input?:
    | InitOptions
    | URL
    | string
    | GlobalInstance<'Response'>
    | ArrayBuffer
    | ArrayBufferView
    | WasmModule
    | Promise<GlobalInstance<'Response'>>,
): Promise<void>;

export interface InitOptions {
  /** false: load the plain SIMD128 build even where relaxed SIMD is available. Default true. */
  relaxedSimd?: boolean;
  /** true: load the build that also reads layers (Keras) models (`loadLayersModel`). Default false. */
  layers?: boolean;
  /**
   * When to load the build's on-demand part (`_cold.wasm`): once the page is idle after init
   * (`'idle'`, the default; in Node the same as `'on-demand'`), at first need, or before init
   * resolves.
   */
  coldCode?: 'idle' | 'on-demand' | 'at-init';
  /**
   * Threads for the kernels, the calling one included (an integer from 1 to 64). Default: one
   * per core, at most 8, where the threaded build can load (Node, cross-origin-isolated pages),
   * else 1.
   */
  threads?: number;
}

/**
 * Which build init() loaded: `threads` the kernels use (1 for the single-threaded builds),
 * `split` if it comes in two parts (false for the threaded builds and for development builds,
 * `npm run build -- --no-split`), `coldCodeLoaded` once its on-demand part is loaded. Throws
 * EagerError('FailedPrecondition') before `await init()`.
 */
export function wasmFeatures(): {
  simd: true;
  relaxedSimd: boolean;
  layers: boolean;
  threads: number;
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
  /** A string tensor's elements as their exact bytes; EagerError('InvalidArgument') for other dtypes. */
  bytesSync(): Uint8Array[];
  bytes(): Promise<Uint8Array[]>;
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

  // Chainable ops: each is the `ctx.ops` helper of the same name with this tensor first, with
  // TF.js's result dtypes (a JS number operand is float32, so `intTensor.add(1)` is float32).
  abs(): Tensor<D>; ceil(): Tensor<D>; floor(): Tensor<D>; identity(): Tensor<D>; clone(): Tensor<D>;
  neg(): Tensor<D>; onesLike(): Tensor<D>; zerosLike(): Tensor<D>; relu(): Tensor<D>; relu6(): Tensor<D>;
  round(): Tensor<D>; sign(): Tensor<D>; square(): Tensor<D>;
  /** Float math: float32 whatever the input dtype (int32 and bool are computed in float32). */
  acos(): Tensor<'float32'>; acosh(): Tensor<'float32'>; asin(): Tensor<'float32'>; asinh(): Tensor<'float32'>;
  atan(): Tensor<'float32'>; atanh(): Tensor<'float32'>; cos(): Tensor<'float32'>; cosh(): Tensor<'float32'>;
  elu(): Tensor<'float32'>; erf(): Tensor<'float32'>; exp(): Tensor<'float32'>; expm1(): Tensor<'float32'>;
  log(): Tensor<'float32'>; log1p(): Tensor<'float32'>; reciprocal(): Tensor<'float32'>; rsqrt(): Tensor<'float32'>;
  selu(): Tensor<'float32'>; sigmoid(): Tensor<'float32'>; sin(): Tensor<'float32'>; sinh(): Tensor<'float32'>;
  softplus(): Tensor<'float32'>; sqrt(): Tensor<'float32'>; tan(): Tensor<'float32'>; tanh(): Tensor<'float32'>;
  isFinite(): Tensor<'bool'>; isInf(): Tensor<'bool'>; isNaN(): Tensor<'bool'>; logicalNot(): Tensor<'bool'>;
  add<B extends TensorOrLike>(b: B): Tensor<Widen<D, DTypeOf<B>>>;
  sub<B extends TensorOrLike>(b: B): Tensor<Widen<D, DTypeOf<B>>>;
  mul<B extends TensorOrLike>(b: B): Tensor<Widen<D, DTypeOf<B>>>;
  /** int32 / int32 divides by flooring (int32), as in TF.js; a JS number divisor makes float32. */
  div<B extends TensorOrLike>(b: B): Tensor<Widen<D, DTypeOf<B>>>;
  /** int32 whatever the operands, as in TF.js. */
  floorDiv(b: TensorOrLike): Tensor<'int32'>;
  mod<B extends TensorOrLike>(b: B): Tensor<Widen<D, DTypeOf<B>>>;
  maximum<B extends TensorOrLike>(b: B): Tensor<BoolAsInt<Widen<D, DTypeOf<B>>>>;
  minimum<B extends TensorOrLike>(b: B): Tensor<BoolAsInt<Widen<D, DTypeOf<B>>>>;
  pow<B extends TensorOrLike>(b: B): Tensor<Widen<D, DTypeOf<B>>>;
  squaredDifference<B extends TensorOrLike>(b: B): Tensor<Widen<D, DTypeOf<B>>>;
  atan2(b: TensorOrLike): Tensor<'float32'>;
  divNoNan<B extends TensorOrLike>(b: B): Tensor<Widen<D, DTypeOf<B>>>;
  prelu(alpha: TensorOrLike): Tensor<'float32'>;
  biasAdd<B extends TensorOrLike>(bias: B): Tensor<Widen<D, DTypeOf<B>>>;
  equal(b: TensorOrLike): Tensor<'bool'>; notEqual(b: TensorOrLike): Tensor<'bool'>;
  greater(b: TensorOrLike): Tensor<'bool'>; greaterEqual(b: TensorOrLike): Tensor<'bool'>;
  less(b: TensorOrLike): Tensor<'bool'>; lessEqual(b: TensorOrLike): Tensor<'bool'>;
  logicalAnd(b: TensorOrLike): Tensor<'bool'>; logicalOr(b: TensorOrLike): Tensor<'bool'>; logicalXor(b: TensorOrLike): Tensor<'bool'>;
  /** bool sums as int32, as in TF.js. */
  sum(axis?: number | number[] | null, keepDims?: boolean): Tensor<BoolAsInt<D>>;
  /** float32 whatever the input dtype, as in TF.js. */
  mean(axis?: number | number[] | null, keepDims?: boolean): Tensor<'float32'>;
  max(axis?: number | number[] | null, keepDims?: boolean): Tensor<D>;
  min(axis?: number | number[] | null, keepDims?: boolean): Tensor<D>;
  prod(axis?: number | number[] | null, keepDims?: boolean): Tensor<BoolAsInt<D>>;
  all(axis?: number | number[] | null, keepDims?: boolean): Tensor<'bool'>;
  any(axis?: number | number[] | null, keepDims?: boolean): Tensor<'bool'>;
  logSumExp(axis?: number | number[] | null, keepDims?: boolean): Tensor<'float32'>;
  norm(ord?: NormOrder, axis?: number | number[] | null, keepDims?: boolean): Tensor<D extends 'float32' ? 'float32' : 'float32' | 'int32'>;
  argMax(axis?: number): Tensor<'int32'>;
  argMin(axis?: number): Tensor<'int32'>;
  cumsum(axis?: number, exclusive?: boolean, reverse?: boolean): Tensor<BoolAsInt<D>>;
  cumprod(axis?: number, exclusive?: boolean, reverse?: boolean): Tensor<BoolAsInt<D>>;
  /** float32 logits only, over the last axis (as in TF.js). */
  softmax(dim?: number): Tensor<'float32'>;
  logSoftmax(axis?: number): Tensor<'float32'>;
  conv2d<F extends TensorOrLike>(filter: F, strides: Spatial, pad: Padding, dataFormat?: 'NHWC' | 'NCHW', dilations?: Spatial): Tensor<Widen<D, DTypeOf<F>>>;
  conv2d<F extends TensorOrLike>(filter: F, options?: Conv2DOptions): Tensor<Widen<D, DTypeOf<F>>>;
  depthwiseConv2d<F extends TensorOrLike>(filter: F, strides: Spatial, pad: Padding, dataFormat?: 'NHWC' | 'NCHW', dilations?: Spatial): Tensor<Widen<D, DTypeOf<F>>>;
  depthwiseConv2d<F extends TensorOrLike>(filter: F, options?: Conv2DOptions): Tensor<Widen<D, DTypeOf<F>>>;
  conv1d<F extends TensorOrLike>(filter: F, stride: number, pad: Padding, dataFormat?: 'NWC', dilation?: number): Tensor<Widen<D, DTypeOf<F>>>;
  conv2dTranspose<F extends TensorOrLike>(filter: F, outputShape: number[], strides: Spatial, pad: Padding): Tensor<Widen<D, DTypeOf<F>>>;
  separableConv2d(depthwiseFilter: TensorOrLike, pointwiseFilter: TensorOrLike, strides: Spatial, pad: Padding, dilation?: Spatial, dataFormat?: 'NHWC' | 'NCHW'): Tensor;
  maxPool(filterSize: Spatial, strides: Spatial, pad: 'same' | 'valid' | 'SAME' | 'VALID' | 0): Tensor<D>;
  maxPool(options?: PoolOptions): Tensor<D>;
  /** float32 input only, as in TF.js. */
  avgPool(filterSize: Spatial, strides: Spatial, pad: 'same' | 'valid' | 'SAME' | 'VALID' | 0): Tensor<'float32'>;
  avgPool(options?: PoolOptions): Tensor<'float32'>;
  /** float32 whatever the input dtype (as TF). */
  resizeBilinear(size: [number, number], alignCorners?: boolean, halfPixelCenters?: boolean): Tensor<'float32'>;
  resizeNearestNeighbor(size: [number, number], alignCorners?: boolean, halfPixelCenters?: boolean): Tensor<D>;
  matMul<B extends TensorOrLike>(b: B, transposeA?: boolean, transposeB?: boolean): Tensor<Widen<D, DTypeOf<B>>>;
  matMul<B extends TensorOrLike>(b: B, options: { transposeA?: boolean; transposeB?: boolean }): Tensor<Widen<D, DTypeOf<B>>>;
  batchNorm(mean: TensorOrLike, variance: TensorOrLike, offset?: TensorOrLike, scale?: TensorOrLike, varianceEpsilon?: number): Tensor<'float32'>;
  leakyRelu(alpha?: number): Tensor<'float32'>;
  clipByValue(min: number, max: number): Tensor<D>;
  cast<T extends DType>(dtype: T): Tensor<T>;
  asType<T extends DType>(dtype: T): Tensor<T>;
  toFloat(): Tensor<'float32'>;
  toInt(): Tensor<'int32'>;
  toBool(): Tensor<'bool'>;
  reshape(shape: number[]): Tensor<D>;
  reshapeAs(x: Tensor): Tensor<D>;
  /** The values as a vector of `size`. */
  flatten(): Tensor<D>;
  asScalar(): Tensor<D>;
  as1D(): Tensor<D>;
  as2D(rows: number, columns: number): Tensor<D>;
  as3D(rows: number, columns: number, depth: number): Tensor<D>;
  as4D(rows: number, columns: number, depth: number, depth2: number): Tensor<D>;
  expandDims(axis?: number): Tensor<D>;
  squeeze(axis?: number[]): Tensor<D>;
  transpose(perm?: number[]): Tensor<D>;
  slice(begin: number | number[], size?: number | number[]): Tensor<D>;
  stridedSlice(begin: number[], end: number[], strides?: number[], beginMask?: number, endMask?: number, ellipsisMask?: number, newAxisMask?: number, shrinkAxisMask?: number): Tensor<D>;
  /** This tensor's dtype: the others are cast to it, as in TF.js. */
  concat(x: TensorOrLike | TensorOrLike[], axis?: number): Tensor<D>;
  stack(x: Tensor<D> | Tensor<D>[], axis?: number): Tensor<D>;
  unstack(axis?: number): Tensor<D>[];
  split(numOrSizeSplits: number | number[], axis?: number): Tensor<D>[];
  pad(paddings: [number, number][], constantValue?: number | bigint | boolean): Tensor<D>;
  mirrorPad(paddings: [number, number][], mode: 'reflect' | 'symmetric'): Tensor<D>;
  tile(reps: number[]): Tensor<D>;
  broadcastTo(shape: number[]): Tensor<D>;
  reverse(axis?: number | number[]): Tensor<D>;
  gather(indices: TensorOrLike, axis?: number, batchDims?: number): Tensor<D>;
  /** TF.js's `x.where(condition, b)`: `where(condition, x, b)`. */
  where<B extends TensorOrLike>(condition: TensorOrLike, b: B): Tensor<Widen<D, DTypeOf<B>>>;
  oneHot<T extends DType = 'int32'>(depth: number, onValue?: number, offValue?: number, dtype?: T): Tensor<T>;
  topk(k?: number, sorted?: boolean): { values: Tensor<D>; indices: Tensor<'int32'> };
  unique(axis?: number): { values: Tensor<D>; indices: Tensor<'int32'> };
  depthToSpace(blockSize: number, dataFormat?: 'NHWC' | 'NCHW'): Tensor<D>;
}

/**
 * The instance type of the global class `K` where the program's libs declare it, else `never`: the
 * types compile with or without the DOM lib (a page, a worker with lib `webworker`, Node with
 * `@types/node`), and accept each platform's own classes.
 */
export type GlobalInstance<K extends string> = typeof globalThis extends { [P in K]: { prototype: infer T } } ? T : never;
/** `WebAssembly.Module` where the libs declare it. */
export type WasmModule = typeof globalThis extends { WebAssembly: { Module: { prototype: infer T } } } ? T : never;

/** What `fromPixels` reads (the DOM types only where they exist, e.g. not in a worker). */
export type PixelSource =
  | { data: Uint8Array | Uint8ClampedArray; width: number; height: number }
  | GlobalInstance<'ImageData'>
  | GlobalInstance<'HTMLImageElement'>
  | GlobalInstance<'HTMLCanvasElement'>
  | GlobalInstance<'HTMLVideoElement'>
  | GlobalInstance<'OffscreenCanvas'>
  | GlobalInstance<'ImageBitmap'>
  | GlobalInstance<'VideoFrame'>;

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
  /** Live bytes of the Rust heap of the whole wasm instance (exact; goes down when memory is released). */
  heapBytes: number;
  /** High-water mark of heapBytes. */
  heapPeakBytes: number;
  /** Reserved wasm linear memory (memory.buffer.byteLength): only grows. */
  wasmMemoryBytes: number;
  /**
   * Live tensor buffers of the whole wasm instance (every context), model weights included, each
   * once: a buffer shared by views counts once, and a handle naming a variable is not a tensor.
   */
  numTensors: number;
  /** Their bytes (instance-wide; includes `resourceBytes`). */
  tensorBytes: number;
  /** Resources (variables: a model's weights) of this context. */
  numResources: number;
  /** The bytes of this context's variables' values (part of `tensorBytes`). */
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
   * `predict` with every node timed (`performance.now()`), each with its inputs' shapes and its
   * attrs (enough to time the same op alone); the outputs are disposed. A layers
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
   * Its data inputs, of its last run: `from` is the node output it read (`'node'` or `'node:k'`,
   * names `execute` fetches). Empty for feeds, constants, weights, control flow and layer steps.
   */
  inputs: { from: string; dtype: DType; shape: number[]; bytes: number }[];
  /**
   * The attrs the node's kernel ran with (after the load-time fusion), as `ctx.execute` takes
   * them; tensor and function attrs left out. Empty for nodes that run no op.
   */
  attrs: Record<string, unknown>;
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
  fetch?: (input: string, init?: { signal?: GlobalInstance<'AbortSignal'> }) => Promise<GlobalInstance<'Response'>>;
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
type Unary = <X extends TensorOrLike>(x: X) => Tensor<DTypeOf<X>>;
/** Float math: float32 whatever the input dtype (int32 and bool are computed in float32). */
type FloatUnary = (x: TensorOrLike) => Tensor<'float32'>;
type Predicate = (x: TensorOrLike) => Tensor<'bool'>;
/**
 * The dtype a JS value makes, as TF.js infers it: numbers (and Float32Array) float32, booleans
 * bool, integer typed arrays int32, bigints int64; a Tensor its own.
 */
export type DTypeOf<V> = V extends Tensor<infer D>
  ? D
  : V extends Nested<boolean>
    ? 'bool'
    : V extends Int64Like
      ? 'int64'
      : V extends Int32Like | Int32Like[] | Int32Like[][]
        ? 'int32'
        : 'float32';
/**
 * The dtype two operands meet in (TF.js's upcasting: bool < uint8 < int32 < int64 < float32 <
 * complex64). A JS value has its own dtype (a number is float32, so int32 + 1 is float32, as in TF.js).
 */
export type Widen<A extends DataType, B extends DataType> = [DataType] extends [A]
  ? DataType
  : [DataType] extends [B]
    ? DataType
    : 'complex64' extends A | B
      ? 'complex64'
      : 'float32' extends A | B
        ? 'float32'
        : 'int64' extends A | B
          ? 'int64'
          : 'int32' extends A | B
            ? 'int32'
            : 'uint8' extends A | B
              ? 'uint8'
              : A;
/** bool as int32 (TF.js's sum, prod, cumsum, maximum and minimum of bools). */
export type BoolAsInt<D extends DataType> = D extends 'bool' ? 'int32' : D;
type Binary = <A extends TensorOrLike, B extends TensorOrLike>(a: A, b: B) => Tensor<Widen<DTypeOf<A>, DTypeOf<B>>>;
/** `ord` of `norm`: 'euclidean' (default), 'fro', 1, 2, Infinity or -Infinity. */
export type NormOrder = 'euclidean' | 'fro' | number;
type Comparison = (a: TensorOrLike, b: TensorOrLike) => Tensor<'bool'>;
/** `R`: the result dtype ('same': the input's, 'sum': bool as int32). */
type Reduction<R extends DataType | 'same' | 'sum' = 'same'> = <X extends TensorOrLike>(
  x: X,
  axis?: number | number[] | null,
  keepDims?: boolean,
) => Tensor<R extends 'same' ? DTypeOf<X> : R extends 'sum' ? BoolAsInt<DTypeOf<X>> : R>;
type Conv = {
  <X extends TensorOrLike, F extends TensorOrLike>(x: X, filter: F, strides: Spatial, pad: Padding, dataFormat?: 'NHWC' | 'NCHW', dilations?: Spatial): Tensor<Widen<DTypeOf<X>, DTypeOf<F>>>;
  <X extends TensorOrLike, F extends TensorOrLike>(x: X, filter: F, options?: Conv2DOptions): Tensor<Widen<DTypeOf<X>, DTypeOf<F>>>;
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
 * kernels), with TF.js 4.22's argument order, spellings ('same', camelCase) and result dtypes.
 * Every tensor argument may also be values (`x.add(1)`), made into a tensor of its own dtype as
 * TF.js infers it (a number is float32) for the call and disposed after; mixed operands meet in
 * the wider dtype (bool < int32 < float32). Images may be one image [h, w, c] or a batch
 * [n, h, w, c]. Bad arguments: EagerError('InvalidArgument'), naming the argument.
 */
export interface Ops {
  abs: Unary; ceil: Unary; floor: Unary; identity: Unary; clone: Unary; neg: Unary; onesLike: Unary;
  zerosLike: Unary; relu: Unary; relu6: Unary; round: Unary; sign: Unary; square: Unary;
  acos: FloatUnary; acosh: FloatUnary; asin: FloatUnary; asinh: FloatUnary; atan: FloatUnary;
  atanh: FloatUnary; cos: FloatUnary; cosh: FloatUnary; elu: FloatUnary; erf: FloatUnary;
  exp: FloatUnary; expm1: FloatUnary; log: FloatUnary; log1p: FloatUnary; reciprocal: FloatUnary;
  rsqrt: FloatUnary; selu: FloatUnary; sigmoid: FloatUnary; sin: FloatUnary; sinh: FloatUnary;
  softplus: FloatUnary; sqrt: FloatUnary; tan: FloatUnary; tanh: FloatUnary;
  isFinite: Predicate; isInf: Predicate; isNaN: Predicate; logicalNot: Predicate;
  /** int32 / int32 divides by flooring (int32), as in TF.js; integer division by zero gives 0. */
  add: Binary; sub: Binary; mul: Binary; div: Binary; mod: Binary; pow: Binary;
  squaredDifference: Binary; divNoNan: Binary; biasAdd: Binary;
  maximum<A extends TensorOrLike, B extends TensorOrLike>(a: A, b: B): Tensor<BoolAsInt<Widen<DTypeOf<A>, DTypeOf<B>>>>;
  minimum<A extends TensorOrLike, B extends TensorOrLike>(a: A, b: B): Tensor<BoolAsInt<Widen<DTypeOf<A>, DTypeOf<B>>>>;
  /** int32 whatever the operands, as in TF.js. */
  floorDiv(a: TensorOrLike, b: TensorOrLike): Tensor<'int32'>;
  atan2(a: TensorOrLike, b: TensorOrLike): Tensor<'float32'>;
  prelu(x: TensorOrLike, alpha: TensorOrLike): Tensor<'float32'>;
  equal: Comparison; notEqual: Comparison; greater: Comparison; greaterEqual: Comparison;
  less: Comparison; lessEqual: Comparison;
  /** bool operands only (JS values are read as bool). */
  logicalAnd: Comparison; logicalOr: Comparison; logicalXor: Comparison;
  /** Over `axis` (default: every axis): sum and prod of bool are int32, mean is float32, all/any take bool. */
  sum: Reduction<'sum'>; prod: Reduction<'sum'>; mean: Reduction<'float32'>; max: Reduction; min: Reduction;
  all: Reduction<'bool'>; any: Reduction<'bool'>;
  /** log(sum(exp(x))) over `axis`, as TF.js (max-shifted). */
  logSumExp: Reduction<'float32'>;
  /** Mean and variance over `axis` (float32), as TF.js. */
  moments(x: TensorOrLike, axis?: number | number[] | null, keepDims?: boolean): { mean: Tensor<'float32'>; variance: Tensor<'float32'> };
  /** Vector or matrix norm (`axis` a number or a pair), as TF.js. */
  norm<X extends TensorOrLike>(x: X, ord?: NormOrder, axis?: number | number[] | null, keepDims?: boolean): Tensor<DTypeOf<X> extends 'float32' ? 'float32' : 'float32' | 'int32'>;
  /** int32 indices, as in TF.js; axis default 0. */
  argMax(x: TensorOrLike, axis?: number): Tensor<'int32'>;
  argMin(x: TensorOrLike, axis?: number): Tensor<'int32'>;
  cumsum<X extends TensorOrLike>(x: X, axis?: number, exclusive?: boolean, reverse?: boolean): Tensor<BoolAsInt<DTypeOf<X>>>;
  cumprod<X extends TensorOrLike>(x: X, axis?: number, exclusive?: boolean, reverse?: boolean): Tensor<BoolAsInt<DTypeOf<X>>>;
  /** float32 logits only, over the last axis (as in TF.js). */
  softmax(logits: TensorOrLike, dim?: number): Tensor<'float32'>;
  logSoftmax(logits: TensorOrLike, axis?: number): Tensor<'float32'>;
  /** `conv2d(x, filter, strides, pad, dataFormat?, dilations?)` as TF.js, or `(x, filter, options)`. */
  conv2d: Conv;
  depthwiseConv2d: Conv;
  /** `conv1d(x [batch, width, in] or [width, in], filter [width, in, out], stride, pad, 'NWC', dilation)`. */
  conv1d<X extends TensorOrLike, F extends TensorOrLike>(x: X, filter: F, stride: number, pad: Padding, dataFormat?: 'NWC', dilation?: number): Tensor<Widen<DTypeOf<X>, DTypeOf<F>>>;
  /** The transposed convolution (Conv2DBackpropInput): filter [h, w, outDepth, inDepth], outputShape with or without the batch. */
  conv2dTranspose<X extends TensorOrLike, F extends TensorOrLike>(x: X, filter: F, outputShape: number[], strides: Spatial, pad: Padding): Tensor<Widen<DTypeOf<X>, DTypeOf<F>>>;
  /** depthwiseConv2d, then a 1x1 conv2d with `pointwiseFilter`. */
  separableConv2d(x: TensorOrLike, depthwiseFilter: TensorOrLike, pointwiseFilter: TensorOrLike, strides: Spatial, pad: Padding, dilation?: Spatial, dataFormat?: 'NHWC' | 'NCHW'): Tensor;
  /** `maxPool(x, filterSize, strides, pad)` as TF.js, or `(x, options)`. */
  maxPool: Pool;
  /** float32 input only, as in TF.js. */
  avgPool(x: TensorOrLike, filterSize: Spatial, strides: Spatial, pad: 'same' | 'valid' | 'SAME' | 'VALID' | 0): Tensor<'float32'>;
  avgPool(x: TensorOrLike, options?: PoolOptions): Tensor<'float32'>;
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
    /** A batch [n, h, w, c] mirrored along its width. */
    flipLeftRight<D extends DataType>(image: Tensor<D>): Tensor<D>;
  };
  /** `matMul(a, b, transposeA?, transposeB?)` as TF.js, or `(a, b, { transposeA, transposeB })`; rank > 2: batched. */
  matMul<A extends TensorOrLike, B extends TensorOrLike>(a: A, b: B, transposeA?: boolean, transposeB?: boolean): Tensor<Widen<DTypeOf<A>, DTypeOf<B>>>;
  matMul<A extends TensorOrLike, B extends TensorOrLike>(a: A, b: B, options: { transposeA?: boolean; transposeB?: boolean }): Tensor<Widen<DTypeOf<A>, DTypeOf<B>>>;
  /** (x - mean) / sqrt(variance + varianceEpsilon) * scale + offset, as TF.js. */
  batchNorm(x: TensorOrLike, mean: TensorOrLike, variance: TensorOrLike, offset?: TensorOrLike, scale?: TensorOrLike, varianceEpsilon?: number): Tensor<'float32'>;
  leakyRelu(x: TensorOrLike, alpha?: number): Tensor<'float32'>;
  clipByValue<X extends TensorOrLike>(x: X, min: number, max: number): Tensor<DTypeOf<X>>;
  cast<T extends DType>(x: TensorOrLike, dtype: T): Tensor<T>;
  reshape<X extends TensorOrLike>(x: X, shape: number[]): Tensor<DTypeOf<X>>;
  expandDims<X extends TensorOrLike>(x: X, axis?: number): Tensor<DTypeOf<X>>;
  squeeze<X extends TensorOrLike>(x: X, axis?: number[]): Tensor<DTypeOf<X>>;
  transpose<X extends TensorOrLike>(x: X, perm?: number[]): Tensor<DTypeOf<X>>;
  /** begin/size shorter than the rank are padded with 0 / -1 (to the end), as in TF.js. */
  slice<X extends TensorOrLike>(x: X, begin: number | number[], size?: number | number[]): Tensor<DTypeOf<X>>;
  stridedSlice<X extends TensorOrLike>(
    x: X,
    begin: number[],
    end: number[],
    strides?: number[],
    beginMask?: number,
    endMask?: number,
    ellipsisMask?: number,
    newAxisMask?: number,
    shrinkAxisMask?: number,
  ): Tensor<DTypeOf<X>>;
  /** tensors[0]'s dtype: the others are cast to it, as in TF.js. */
  concat<X extends TensorOrLike>(tensors: readonly [X, ...TensorOrLike[]], axis?: number): Tensor<DTypeOf<X>>;
  concat<D extends DataType>(tensors: ReadonlyArray<Tensor<D>>, axis?: number): Tensor<D>;
  /** All of one dtype, as in TF.js. */
  stack<X extends TensorOrLike>(tensors: readonly X[], axis?: number): Tensor<DTypeOf<X>>;
  unstack<X extends TensorOrLike>(x: X, axis?: number): Tensor<DTypeOf<X>>[];
  /** n equal parts, or parts of the given sizes (one may be -1). */
  split<X extends TensorOrLike>(x: X, numOrSizeSplits: number | number[], axis?: number): Tensor<DTypeOf<X>>[];
  /** `[[before, after], ...]` per dim. */
  pad<X extends TensorOrLike>(x: X, paddings: [number, number][], constantValue?: number | bigint | boolean): Tensor<DTypeOf<X>>;
  mirrorPad<X extends TensorOrLike>(x: X, paddings: [number, number][], mode: 'reflect' | 'symmetric'): Tensor<DTypeOf<X>>;
  tile<X extends TensorOrLike>(x: X, reps: number[]): Tensor<DTypeOf<X>>;
  broadcastTo<X extends TensorOrLike>(x: X, shape: number[]): Tensor<DTypeOf<X>>;
  /** Default: every axis. */
  reverse<X extends TensorOrLike>(x: X, axis?: number | number[]): Tensor<DTypeOf<X>>;
  /** int32 indices (JS values are read as int32). */
  gather<X extends TensorOrLike>(x: X, indices: TensorOrLike, axis?: number, batchDims?: number): Tensor<DTypeOf<X>>;
  /** Slices of x at the int32 index tuples in the last dim of `indices`. */
  gatherND<X extends TensorOrLike>(x: X, indices: TensorOrLike): Tensor<DTypeOf<X>>;
  /** a where the (bool) condition holds, else b (broadcasting); a and b meet in the wider dtype. */
  where<A extends TensorOrLike, B extends TensorOrLike>(condition: TensorOrLike, a: A, b: B): Tensor<Widen<DTypeOf<A>, DTypeOf<B>>>;
  /** int32 unless `dtype` says otherwise, as in TF.js. */
  oneHot<T extends DType = 'int32'>(indices: TensorOrLike, depth: number, onValue?: number, offValue?: number, dtype?: T): Tensor<T>;
  topk<X extends TensorOrLike>(x: X, k?: number, sorted?: boolean): { values: Tensor<DTypeOf<X>>; indices: Tensor<'int32'> };
  /** The distinct values (slices along `axis`) in order of first appearance, and each element's index into them. */
  unique<X extends TensorOrLike>(x: X, axis?: number): { values: Tensor<DTypeOf<X>>; indices: Tensor<'int32'> };
  /** All of one dtype, as in TF.js. */
  addN<X extends TensorOrLike>(tensors: readonly X[]): Tensor<DTypeOf<X>>;
  einsum(equation: string, ...tensors: TensorOrLike[]): Tensor;
  depthToSpace<X extends TensorOrLike>(x: X, blockSize: number, dataFormat?: 'NHWC' | 'NCHW'): Tensor<DTypeOf<X>>;
  /** `dtype` defaults to the value's (a number is float32, a boolean bool). */
  fill<V extends number | bigint | boolean, T extends DType = DTypeOf<V>>(shape: number[], value: V, dtype?: T): Tensor<T>;
  zeros<T extends DType = 'float32'>(shape: number[], dtype?: T): Tensor<T>;
  ones<T extends DType = 'float32'>(shape: number[], dtype?: T): Tensor<T>;
  range<T extends 'float32' | 'int32' | 'int64' = 'float32'>(start: number, stop: number, step?: number, dtype?: T): Tensor<T>;
  /** `num` evenly spaced float32 values from start to stop (inclusive). */
  linspace(start: number, stop: number, num: number): Tensor<'float32'>;
  /** `ctx.tensor`, by TF.js's name. */
  tensor<V extends TensorLike, T extends DType = DTypeOf<V>>(values: V, shape?: number[], dtype?: T): Tensor<T>;
  scalar<V extends number | boolean | bigint, T extends DType = DTypeOf<V>>(value: V, dtype?: T): Tensor<T>;
  tensor1d<V extends TensorLike, T extends DType = DTypeOf<V>>(values: V, dtype?: T): Tensor<T>;
  /** Nested values of rank n, or flat values with a shape of n dims (as TF.js's tensor2d..tensor4d). */
  tensor2d<V extends TensorLike, T extends DType = DTypeOf<V>>(values: V, shape?: [number, number], dtype?: T): Tensor<T>;
  tensor3d<V extends TensorLike, T extends DType = DTypeOf<V>>(values: V, shape?: [number, number, number], dtype?: T): Tensor<T>;
  tensor4d<V extends TensorLike, T extends DType = DTypeOf<V>>(values: V, shape?: [number, number, number, number], dtype?: T): Tensor<T>;
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
   * 'complex64' takes (real, imaginary) pairs interleaved, as `dataSync()`/`arraySync()` give
   * them; `shape` is then the logical shape (half the number of values).
   */
  tensor<T extends DType>(values: TensorLike, shape: number[] | null | undefined, dtype: T): Tensor<T>;
  /** A string tensor: strings (stored as UTF-8) or Uint8Arrays (raw bytes), nested. */
  tensor(values: StringLike, shape?: number[] | null, dtype?: 'string'): Tensor<'string'>;
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
   * aborted (downloads too) and reject with EagerError('Cancelled'). Takes no argument (throws
   * InvalidArgument if given one): to dispose tensors, use `dispose(tensors)` or `tensor.dispose()`.
   */
  dispose(): void;
}

/** A Tensor, or arrays, plain objects, Maps and Sets of Tensors at any depth. */
export type TensorContainer =
  | Tensor
  | null
  | undefined
  | TensorContainer[]
  | { [key: string]: TensorContainer }
  | Map<unknown, TensorContainer>
  | Set<TensorContainer>;

/**
 * As `tf.dispose`: disposes every Tensor in `container` (a Tensor, or arrays, plain objects, Maps
 * and Sets of them at any depth). Disposing a tensor twice is harmless.
 */
export function dispose(container: TensorContainer): void;

/**
 * As `tf.keep`: saves a tensor made inside `ctx.tidy` from being disposed when that tidy (and every
 * enclosing one) ends. Returns it.
 */
export function keep<T extends Tensor>(tensor: T): T;

/** Names of every op the runtime implements, sorted. */
export function registeredOps(): string[];
/** Resets memory().heapPeakBytes to the current heap in use. */
export function resetPeakMemory(): void;
