// Op ids by name, and ctx.ops: TF.js's everyday ops as thin wrappers over execute (so the kernel
// cache sees the same ops), mostly built from tables, plus the chainable Tensor methods over them.

import { opId } from './eager_wasm.js';
import { EagerError, callWasm } from './errors.js';
import { readFirst, readOutputs } from './io.js';
import { invalid, messageOf } from './snapshot.js';
import { Tensor, handleOf } from './tensor.js';

const opIds = new Map();

/** The runtime's id of op `op` (looked up once per name). */
export function opIdOf(op) {
  const id = opIds.get(op);
  return id === undefined ? resolveOp(op) : id;
}

function resolveOp(op) {
  if (typeof op !== 'string') {
    throw new EagerError('InvalidArgument', `op name must be a string, got ${typeof op}`);
  }
  const id = callWasm(() => opId(op));
  opIds.set(op, id);
  return id;
}

/** A plain array of int32 integers from `values` (an integer or an array of them). */
function ints(values, op) {
  const list = typeof values === 'number' ? [values] : Array.from(values);
  for (const x of list) {
    if (typeof x !== 'number' || (x | 0) !== x) throw invalid(`${op}: expected int32 integers, got ${typeof x === 'number' ? x : typeof x}`);
  }
  return list;
}

const isTensor = (x) => handleOf(x) !== undefined;
/** A TF.js options object (not an array, not a Tensor), for helpers taking options or positions. */
const isOptions = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !isTensor(v);
const upper = (s) => (typeof s === 'string' ? s.toUpperCase() : s);
/** TF.js's name of TF op `op`: 'Relu6' -> 'relu6'. */
const jsName = (op) => op[0].toLowerCase() + op.slice(1);

/** A spatial attr (strides, dilations, ksize) as TF's 4 numbers: n, [h, w] or the 4 already. */
function spatial(v, nchw, name) {
  if (v === undefined) return undefined;
  const [h, w] = typeof v === 'number' ? [v, v] : v.length === 2 ? v : [];
  if (h === undefined) {
    if (v.length === 4) return Array.from(v);
    throw invalid(`${name} must be a number, [h, w] or 4 numbers`);
  }
  return nchw ? [1, 1, h, w] : [1, h, w, 1];
}

/** TF's padding attrs from TF.js's pad: 'same' | 'valid' | a number | [[t, b], [l, r]] pairs per dim. */
function padding(pad, explicit, nchw) {
  if (typeof pad === 'number') {
    return { padding: 'EXPLICIT', explicit_paddings: nchw ? [0, 0, 0, 0, pad, pad, pad, pad] : [0, 0, pad, pad, pad, pad, 0, 0] };
  }
  if (Array.isArray(pad)) return { padding: 'EXPLICIT', explicit_paddings: pad.flat() };
  return { padding: upper(pad ?? 'VALID'), explicit_paddings: explicit };
}

// Tables: TF.js name -> TF op where they differ (the rest capitalize the first letter).
const UNARY =
  'Abs Acos Acosh Asin Asinh Atan Atanh Ceil Cos Cosh Elu Erf Exp Expm1 Floor Identity IsFinite IsInf IsNan ' +
  'Log Log1p LogicalNot Neg OnesLike Reciprocal Relu Relu6 Round Rsqrt Selu Sigmoid Sign Sin Sinh Softplus Sqrt ' +
  'Square Tan Tanh ZerosLike';
const BINARY =
  'AddV2 Sub Mul RealDiv FloorDiv FloorMod Maximum Minimum Pow SquaredDifference Equal NotEqual Greater ' +
  'GreaterEqual Less LessEqual LogicalAnd LogicalOr Atan2 DivNoNan Prelu BiasAdd';
const RENAMED = { addV2: 'add', realDiv: 'div', floorMod: 'mod', isNan: 'isNaN' };
const REDUCE = 'Sum Mean Max Min Prod All Any';
/** The order binary helpers widen mixed operands in (TF.js's upcasting, plus uint8 and int64). */
const WIDTH = { bool: 0, uint8: 1, int32: 2, int64: 3, float32: 4 };

/** Every helper whose first argument is the tensor it works on becomes a method, but these. */
const NOT_METHODS = new Set(['concat', 'stack', 'addN', 'einsum', 'zeros', 'ones', 'fill', 'range', 'where', 'image']);

export function makeOps(ctx) {
  const run = (op, inputs, attrs) => ctx._run(opIdOf(op), op, inputs, attrs);
  const one = (op, inputs, attrs) => readFirst(ctx, run(op, inputs, attrs));
  const all = (op, inputs, attrs) => readOutputs(ctx, run(op, inputs, attrs));

  /**
   * Helper `name`: `fn(made, ...args)`, where tensors made from JS values go to `made` and are
   * disposed when it returns or throws; a failure reading the arguments is InvalidArgument.
   */
  const helper = (name, fn) =>
    function (...args) {
      const made = [];
      try {
        return fn(made, ...args);
      } catch (e) {
        throw e instanceof EagerError ? e : invalid(`${name}: the arguments could not be read: ${messageOf(e)}`, e);
      } finally {
        for (const t of made) t.dispose();
      }
    };
  /** `v` if a Tensor, else a tensor of it (dtype inferred, or `dtype`) disposed after the call. */
  const ten = (made, v, dtype) => {
    if (isTensor(v)) return v;
    const t = ctx.tensor(v, undefined, dtype);
    made.push(t);
    return t;
  };
  /** An int32 tensor of `v` (a vector, or a scalar when `scalar`), unless `v` is a Tensor. */
  const int = (made, v, name, scalar) => {
    if (isTensor(v)) return v;
    const list = ints(v, name);
    if (scalar && list.length !== 1) throw invalid(`${name}: expected one integer`);
    const t = ctx.tensor(Int32Array.from(list), scalar ? [] : [list.length], 'int32');
    made.push(t);
    return t;
  };
  /** A tensor of JS value `v`: of `dtype` if every value fits it exactly, else of its own dtype. */
  const operand = (made, v, dtype) => {
    let t;
    if (dtype !== undefined && dtype !== 'resource') {
      try {
        t = ctx.tensor(v, undefined, dtype);
      } catch (e) {
        if (!(e instanceof EagerError) || e.code !== 'InvalidArgument') throw e;
      }
    }
    t ??= ctx.tensor(v);
    made.push(t);
    return t;
  };
  /** `t` cast to `dtype` (a temporary) when the dtypes differ and both are numeric or bool. */
  const widen = (made, t, dtype) => {
    if (t.dtype === dtype || WIDTH[t.dtype] === undefined || WIDTH[dtype] === undefined) return t;
    const c = one('Cast', [t], { DstT: dtype });
    made.push(c);
    return c;
  };
  const allAxes = (x) => [...x.shape.keys()];
  /** Runs `fn(x4)` on a rank-4 x; a rank-3 x (one image) gets a batch dim of 1 and loses it after. */
  const batched = (made, x, fn) => {
    x = ten(made, x);
    if (x.rank !== 3) return fn(x);
    const x4 = ops.expandDims(x, 0);
    made.push(x4);
    const y = fn(x4);
    made.push(y);
    return ops.squeeze(y, [0]);
  };

  const ops = {};
  for (const op of UNARY.split(' ')) {
    const name = RENAMED[jsName(op)] ?? jsName(op);
    ops[name] = helper(name, (m, x) => one(op, [ten(m, x)]));
  }
  for (const op of BINARY.split(' ')) {
    const name = RENAMED[jsName(op)] ?? jsName(op);
    // Two Tensors of one dtype (the hot case) skip the helper. Otherwise the operands meet in the
    // wider dtype, as TF.js's upcasting does (bool < uint8 < int32 < int64 < float32), where TF's
    // own ops would refuse the mix; a JS value takes the other operand's dtype when it fits
    // exactly (int32 + 1 stays int32), else its own (int32 + 1.5 is float32).
    const slow = helper(name, (m, a, b) => {
      let ta = isTensor(a) ? a : null;
      let tb = isTensor(b) ? b : null;
      ta ??= operand(m, a, tb?.dtype);
      tb ??= operand(m, b, ta.dtype);
      const wide = WIDTH[ta.dtype] > WIDTH[tb.dtype] ? ta.dtype : tb.dtype;
      return one(op, [widen(m, ta, wide), widen(m, tb, wide)]);
    });
    ops[name] = (a, b) => (isTensor(a) && isTensor(b) && a.dtype === b.dtype ? one(op, [a, b]) : slow(a, b));
  }
  for (const op of REDUCE.split(' ')) {
    const name = jsName(op);
    ops[name] = helper(name, (m, x, axis, keepDims = false) => {
      x = ten(m, x);
      return one(op, [x, int(m, axis ?? allAxes(x), name)], { keep_dims: keepDims });
    });
  }
  for (const op of ['ArgMax', 'ArgMin']) {
    const name = jsName(op);
    ops[name] = helper(name, (m, x, axis = 0) => one(op, [ten(m, x), int(m, axis, name, true)], { output_type: 'int32' }));
  }
  for (const op of ['Cumsum', 'Cumprod']) {
    const name = jsName(op);
    ops[name] = helper(name, (m, x, axis = 0, exclusive = false, reverse = false) =>
      one(op, [ten(m, x), int(m, axis, name, true)], { exclusive, reverse }),
    );
  }
  for (const op of ['Softmax', 'LogSoftmax']) {
    const name = jsName(op);
    ops[name] = helper(name, (m, x, dim = -1) => {
      x = ten(m, x);
      if (dim !== -1 && dim !== x.rank - 1) throw invalid(`${name}: only the last axis is supported, got ${dim}`);
      return one(op, [x]);
    });
  }
  // conv2d(x, filter, strides, pad, dataFormat, dilations) as in TF.js, or (x, filter, options).
  for (const [name, op] of [['conv2d', 'Conv2D'], ['depthwiseConv2d', 'DepthwiseConv2dNative']]) {
    ops[name] = helper(name, (m, x, filter, ...rest) => {
      const o = isOptions(rest[0]) ? rest[0] : { strides: rest[0], pad: rest[1], dataFormat: rest[2], dilations: rest[3] };
      const nchw = o.dataFormat === 'NCHW';
      const attrs = {
        strides: spatial(o.strides ?? 1, nchw, 'strides'),
        ...padding(o.pad ?? o.padding, o.explicitPaddings, nchw),
        dilations: spatial(o.dilations, nchw, 'dilations'),
        data_format: o.dataFormat,
      };
      return batched(m, x, (x4) => one(op, [x4, ten(m, filter)], attrs));
    });
  }
  // maxPool(x, filterSize, strides, pad) as in TF.js, or (x, { filterSize, strides, padding, dataFormat }).
  for (const [name, op] of [['maxPool', 'MaxPool'], ['avgPool', 'AvgPool']]) {
    ops[name] = helper(name, (m, x, ...rest) => {
      const o = isOptions(rest[0]) ? rest[0] : { filterSize: rest[0], strides: rest[1], pad: rest[2] };
      const nchw = o.dataFormat === 'NCHW';
      const size = o.filterSize ?? o.ksize ?? 2;
      let pad = o.pad ?? o.padding;
      if (pad === 0) pad = 'VALID';
      if (typeof pad === 'number' || Array.isArray(pad)) throw invalid(`${name}: pad must be 'same', 'valid' or 0`);
      const attrs = {
        ksize: spatial(size, nchw, 'filterSize'),
        strides: spatial(o.strides ?? size, nchw, 'strides'),
        padding: upper(pad ?? 'VALID'),
        data_format: o.dataFormat,
      };
      return batched(m, x, (x4) => one(op, [x4], attrs));
    });
  }
  const resize = (op) =>
    helper(jsName(op), (m, images, size, alignCorners = false, halfPixelCenters = false) =>
      batched(m, images, (x4) =>
        one(op, [x4, int(m, size, op)], { align_corners: alignCorners, half_pixel_centers: halfPixelCenters }),
      ),
    );
  const image = {
    resizeBilinear: resize('ResizeBilinear'),
    resizeNearestNeighbor: resize('ResizeNearestNeighbor'),
    nonMaxSuppression: helper('nonMaxSuppression', (m, boxes, scores, maxOutputSize, iouThreshold = 0.5, scoreThreshold = -Infinity) =>
      one('NonMaxSuppressionV3', [
        ten(m, boxes),
        ten(m, scores),
        int(m, maxOutputSize, 'maxOutputSize', true),
        ten(m, iouThreshold, 'float32'),
        ten(m, scoreThreshold, 'float32'),
      ]),
    ),
    nonMaxSuppressionWithScore: helper(
      'nonMaxSuppressionWithScore',
      (m, boxes, scores, maxOutputSize, iouThreshold = 0.5, scoreThreshold = -Infinity, softNmsSigma = 0) => {
        const [selectedIndices, selectedScores, valid] = all('NonMaxSuppressionV5', [
          ten(m, boxes),
          ten(m, scores),
          int(m, maxOutputSize, 'maxOutputSize', true),
          ...[iouThreshold, scoreThreshold, softNmsSigma].map((v) => ten(m, v, 'float32')),
        ]);
        valid.dispose();
        return { selectedIndices, selectedScores };
      },
    ),
    cropAndResize: helper('cropAndResize', (m, image, boxes, boxInd, cropSize, method = 'bilinear', extrapolationValue = 0) =>
      one('CropAndResize', [ten(m, image), ten(m, boxes), ten(m, boxInd, 'int32'), int(m, cropSize, 'cropSize')], {
        method,
        extrapolation_value: extrapolationValue,
      }),
    ),
  };

  Object.assign(ops, {
    image,
    resizeBilinear: image.resizeBilinear,
    resizeNearestNeighbor: image.resizeNearestNeighbor,
    clone: ops.identity,
    matMul: helper('matMul', (m, a, b, transposeA = false, transposeB = false) => {
      if (isOptions(transposeA)) ({ transposeA, transposeB } = transposeA);
      a = ten(m, a);
      b = ten(m, b);
      return a.rank > 2 || b.rank > 2
        ? one('BatchMatMulV2', [a, b], { adj_x: !!transposeA, adj_y: !!transposeB })
        : one('MatMul', [a, b], { transpose_a: !!transposeA, transpose_b: !!transposeB });
    }),
    leakyRelu: helper('leakyRelu', (m, x, alpha = 0.2) => one('LeakyRelu', [ten(m, x)], { alpha })),
    clipByValue: helper('clipByValue', (m, x, min, max) => {
      x = ten(m, x);
      return one('ClipByValue', [x, ten(m, min, x.dtype), ten(m, max, x.dtype)]);
    }),
    cast: helper('cast', (m, x, dtype) => one('Cast', [ten(m, x)], { DstT: dtype })),
    reshape: helper('reshape', (m, x, shape) => one('Reshape', [ten(m, x), int(m, shape, 'reshape')])),
    expandDims: helper('expandDims', (m, x, axis = 0) => one('ExpandDims', [ten(m, x), int(m, axis, 'expandDims', true)])),
    squeeze: helper('squeeze', (m, x, axis) =>
      one('Squeeze', [ten(m, x)], { squeeze_dims: axis === undefined ? [] : ints(axis, 'squeeze') }),
    ),
    transpose: helper('transpose', (m, x, perm) => {
      x = ten(m, x);
      return one('Transpose', [x, int(m, perm ?? allAxes(x).reverse(), 'transpose')]);
    }),
    // slice(x, begin, size?): begin/size shorter than the rank are padded with 0 / -1 (to the end).
    slice: helper('slice', (m, x, begin, size) => {
      x = ten(m, x);
      const b = ints(begin, 'slice');
      const s = size === undefined ? [] : ints(size, 'slice');
      for (let i = 0; i < x.rank; i++) {
        b[i] ??= 0;
        s[i] ??= -1;
      }
      return one('Slice', [x, int(m, b, 'slice'), int(m, s, 'slice')]);
    }),
    stridedSlice: helper('stridedSlice', (m, x, begin, end, strides, beginMask = 0, endMask = 0, ellipsisMask = 0, newAxisMask = 0, shrinkAxisMask = 0) => {
      const b = ints(begin, 'stridedSlice');
      return one('StridedSlice', [ten(m, x), int(m, b, 'begin'), int(m, end, 'end'), int(m, strides ?? b.map(() => 1), 'strides')], {
        begin_mask: beginMask,
        end_mask: endMask,
        ellipsis_mask: ellipsisMask,
        new_axis_mask: newAxisMask,
        shrink_axis_mask: shrinkAxisMask,
      });
    }),
    concat: helper('concat', (m, tensors, axis = 0) =>
      one('ConcatV2', [...Array.from(tensors, (t) => ten(m, t)), int(m, axis, 'concat', true)]),
    ),
    stack: helper('stack', (m, tensors, axis = 0) => one('Pack', Array.from(tensors, (t) => ten(m, t)), { axis })),
    unstack: helper('unstack', (m, x, axis = 0) => {
      x = ten(m, x);
      return all('Unpack', [x], { num: x.shape[axis < 0 ? axis + x.rank : axis] ?? 0, axis });
    }),
    // split(x, n | sizes, axis): n equal parts, or parts of the given sizes (one may be -1).
    split: helper('split', (m, x, numOrSizeSplits, axis = 0) => {
      x = ten(m, x);
      const a = int(m, axis, 'split', true);
      if (typeof numOrSizeSplits === 'number') return all('Split', [a, x], { num_split: numOrSizeSplits });
      const sizes = ints(numOrSizeSplits, 'split');
      return all('SplitV', [x, int(m, sizes, 'split'), a], { num_split: sizes.length });
    }),
    // pad(x, [[before, after], ...], constantValue)
    pad: helper('pad', (m, x, paddings, constantValue = 0) => {
      x = ten(m, x);
      const p = ctx.tensor(Int32Array.from(ints(Array.from(paddings).flat(), 'pad')), [paddings.length, 2], 'int32');
      m.push(p);
      return one('PadV2', [x, p, ten(m, constantValue, x.dtype)]);
    }),
    mirrorPad: helper('mirrorPad', (m, x, paddings, mode) => {
      const p = ctx.tensor(Int32Array.from(ints(Array.from(paddings).flat(), 'mirrorPad')), [paddings.length, 2], 'int32');
      m.push(p);
      return one('MirrorPad', [ten(m, x), p], { mode: upper(mode) });
    }),
    tile: helper('tile', (m, x, reps) => one('Tile', [ten(m, x), int(m, reps, 'tile')])),
    broadcastTo: helper('broadcastTo', (m, x, shape) => one('BroadcastTo', [ten(m, x), int(m, shape, 'broadcastTo')])),
    reverse: helper('reverse', (m, x, axis) => {
      x = ten(m, x);
      return one('ReverseV2', [x, int(m, axis ?? allAxes(x), 'reverse')]);
    }),
    gather: helper('gather', (m, x, indices, axis = 0, batchDims = 0) =>
      one('GatherV2', [ten(m, x), ten(m, indices, 'int32'), int(m, axis, 'gather', true)], { batch_dims: batchDims }),
    ),
    where: helper('where', (m, condition, a, b) => one('SelectV2', [ten(m, condition, 'bool'), ten(m, a), ten(m, b)])),
    oneHot: helper('oneHot', (m, indices, depth, onValue = 1, offValue = 0, dtype = 'int32') =>
      one('OneHot', [ten(m, indices, 'int32'), int(m, depth, 'oneHot', true), ten(m, onValue, dtype), ten(m, offValue, dtype)], {
        axis: -1,
      }),
    ),
    topk: helper('topk', (m, x, k = 1, sorted = true) => {
      const [values, indices] = all('TopKV2', [ten(m, x), int(m, k, 'topk', true)], { sorted });
      return { values, indices };
    }),
    addN: helper('addN', (m, tensors) => one('AddN', Array.from(tensors, (t) => ten(m, t)))),
    einsum: helper('einsum', (m, equation, ...tensors) => one('Einsum', tensors.map((t) => ten(m, t)), { equation })),
    depthToSpace: helper('depthToSpace', (m, x, blockSize, dataFormat = 'NHWC') =>
      one('DepthToSpace', [ten(m, x)], { block_size: blockSize, data_format: dataFormat }),
    ),
    fill: helper('fill', (m, shape, value, dtype) => one('Fill', [int(m, shape, 'fill'), ten(m, value, dtype)])),
    zeros: (shape, dtype = 'float32') => ops.fill(shape, 0, dtype),
    ones: (shape, dtype = 'float32') => ops.fill(shape, 1, dtype),
    range: helper('range', (m, start, stop, step = 1, dtype = 'float32') =>
      one('Range', [start, stop, step].map((v) => ten(m, v, dtype))),
    ),
  });
  return ops;
}

// Chainable methods: `t.add(b)` is `t.context.ops.add(t, b)` (concat/stack take `t` first in the list).
/** The ops of `t`'s context; InvalidArgument when `t` is not a tensor made by a context. */
function opsOf(t, name) {
  const ops = t instanceof Tensor ? t.context?.ops : undefined;
  if (ops === undefined) throw invalid(`${name}() must be called on a Tensor`);
  return ops;
}
for (const name of Object.keys(makeOps({ tensor: null }))) {
  if (NOT_METHODS.has(name) || name in Tensor.prototype) continue;
  Tensor.prototype[name] = function (...args) {
    return opsOf(this, name)[name](this, ...args);
  };
}
for (const name of ['concat', 'stack']) {
  Tensor.prototype[name] = function (x, axis) {
    const ops = opsOf(this, name);
    let list;
    try {
      list = [this, ...(Array.isArray(x) ? x : [x])];
    } catch (e) {
      throw invalid(`${name}: the arguments could not be read: ${messageOf(e)}`, e);
    }
    return ops[name](list, axis);
  };
}
