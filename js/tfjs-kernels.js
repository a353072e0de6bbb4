// TF.js's kernels (tfjs-core 4.22's kernel_names) as TF ops: each entry translates a kernel's
// TF.js inputs and attrs into the TF op(s) it stands for, run by the backend through the
// EagerContext. Most are one op; a few TF.js-only kernels are short compositions of TF ops.
// A kernel gets `{ inputs, attrs, backend }` and returns TensorInfo(s).

import { backend_util, util } from '@tensorflow/tfjs-core';
import { EagerError } from './errors.js';

/** name -> kernelFunc */
export const KERNELS = new Map();

const def = (name, fn) => KERNELS.set(name, fn);
const unimplemented = (what) => new EagerError('Unimplemented', `eager-wasm: ${what}`);

/** An InvalidArgument in TF.js's own words, passed on as it is (see asTfjsError in tfjs.js). */
function tfjsError(message, cause) {
  const e = new EagerError('InvalidArgument', message, cause === undefined ? undefined : { cause });
  e.tfjsWording = true;
  return e;
}

/**
 * Runs `f`; a runtime error whose message `pattern` matches is rethrown in TF.js's words,
 * `reword(match)` (where TF.js's kernel words the same check differently from TF's).
 */
function rewording(pattern, reword, f) {
  try {
    return f();
  } catch (e) {
    const m = e instanceof EagerError ? pattern.exec(e.message) : null;
    if (m === null) throw e;
    throw tfjsError(reword(m), e);
  }
}

// ---- elementwise ------------------------------------------------------------------------------

const SAME_NAME_UNARY =
  'Abs Acos Acosh Asin Asinh Atan Atanh Ceil Cos Cosh Elu Erf Exp Expm1 Floor IsFinite IsInf IsNan ' +
  'Log Log1p LogicalNot Neg Reciprocal Relu Relu6 Round Rsqrt Selu Sigmoid Sin Sinh Softplus ' +
  'Sqrt Square Tan Tanh ZerosLike OnesLike';
def('Identity', ({ inputs: { x }, backend }) => {
  backend.incRef(x.dataId);
  return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
});
/** TF defines these for floats only; TF.js computes them in float32 for int32 and bool inputs. */
const FLOAT_ONLY = new Set(
  ('Acos Acosh Asin Asinh Atan Atanh Ceil Cos Cosh Elu Erf Exp Expm1 Floor IsFinite IsInf IsNan Log Log1p ' +
    'Reciprocal Round Rsqrt Selu Sigmoid Sin Sinh Softplus Sqrt Tan Tanh').split(' '),
);
/** Of those, the ones whose TF.js result keeps an int32 input's dtype. */
const KEEPS_INT = new Set(['Ceil', 'Floor', 'Round']);
for (const name of SAME_NAME_UNARY.split(' ')) {
  def(name, ({ inputs: { x }, backend }) => {
    if (!FLOAT_ONLY.has(name) || x.dtype === 'float32') return backend.run1(name, [x]);
    const [y] = backend.runRaw(name, [backend.asFloat(x)]);
    if (!KEEPS_INT.has(name) || x.dtype !== 'int32') return backend.adopt(y);
    backend.scratch.push(y);
    return backend.run1('Cast', [y], { DstT: 'int32' });
  });
}

const BINARY = {
  Add: 'AddV2', Sub: 'Sub', Multiply: 'Mul', RealDiv: 'RealDiv', FloorDiv: 'FloorDiv',
  Maximum: 'Maximum', Minimum: 'Minimum', Pow: 'Pow', SquaredDifference: 'SquaredDifference',
  Atan2: 'Atan2', Mod: 'FloorMod', Equal: 'Equal', NotEqual: 'NotEqual', Less: 'Less',
  LessEqual: 'LessEqual', Greater: 'Greater', GreaterEqual: 'GreaterEqual', LogicalAnd: 'LogicalAnd',
  LogicalOr: 'LogicalOr', LogicalXor: 'NotEqual', BitwiseAnd: 'BitwiseAnd',
};
/** TF's ordering comparisons have no strings: TF.js's compare them as JS strings. */
const ORDERED = new Set(['Less', 'LessEqual', 'Greater', 'GreaterEqual']);
for (const [name, op] of Object.entries(BINARY)) {
  def(name, ({ inputs: { a, b }, backend }) => {
    if (!ORDERED.has(name) || a.dtype !== 'string') return backend.run1(op, [a, b]);
    return backend.run1(op, stringRanks(backend, [a, b]));
  });
}

/** String tensors as int32 tensors of their elements' ranks in JS string order (same order, same shapes). */
function stringRanks(backend, infos) {
  const decoder = new TextDecoder();
  const lists = infos.map((t) => Array.from(backend.readSync(t.dataId), (bytes) => decoder.decode(bytes)));
  const sorted = [...new Set(lists.flat())].sort();
  const rank = new Map(sorted.map((v, i) => [v, i]));
  return lists.map((l, k) => {
    const t = backend.context.tensor(Int32Array.from(l, (v) => rank.get(v)), infos[k].shape, 'int32');
    backend.scratch.push(t);
    return t;
  });
}

def('AddN', ({ inputs, backend }) => backend.run1('AddN', inputs));
// TF's Prelu and LeakyRelu are for floats; TF.js computes int32 ones in float32.
def('Prelu', ({ inputs: { x, alpha }, backend }) => backend.run1('Prelu', [backend.asFloat(x), backend.asFloat(alpha)]));
def('LeakyRelu', ({ inputs: { x }, attrs, backend }) => backend.run1('LeakyRelu', [backend.asFloat(x)], { alpha: attrs.alpha }));
// TF.js's sign of NaN is 0 (TF's is NaN).
def('Sign', ({ inputs: { x }, backend }) => {
  if (x.dtype !== 'float32') return backend.run1('Sign', [x]);
  const [nan] = backend.runRaw('IsNan', [backend.tensorOf(x)]);
  const [sign] = backend.runRaw('Sign', [backend.tensorOf(x)]);
  backend.scratch.push(nan, sign);
  return backend.run1('SelectV2', [nan, backend.scalar(0), sign]);
});
def('ClipByValue', ({ inputs: { x }, attrs, backend }) => {
  const dt = x.dtype;
  return backend.run1('ClipByValue', [x, backend.scalar(attrs.clipValueMin, dt), backend.scalar(attrs.clipValueMax, dt)]);
});
def('Cast', ({ inputs: { x }, attrs, backend }) => {
  if (x.dtype === attrs.dtype) return KERNELS.get('Identity')({ inputs: { x }, backend });
  return backend.run1('Cast', [x], { DstT: attrs.dtype });
});
// TF.js's step: 1 where x > 0, alpha elsewhere, NaN kept.
def('Step', ({ inputs: { x }, attrs, backend }) => {
  const [pos] = backend.runRaw('Greater', [backend.tensorOf(x), backend.scalar(0, x.dtype)]);
  backend.scratch.push(pos);
  const [stepped] = backend.runRaw('SelectV2', [pos, backend.scalar(1, x.dtype), backend.scalar(attrs.alpha, x.dtype)]);
  if (x.dtype !== 'float32') return backend.adopt(stepped);
  backend.scratch.push(stepped);
  const [nan] = backend.runRaw('IsNan', [backend.tensorOf(x)]);
  backend.scratch.push(nan);
  return backend.run1('SelectV2', [nan, x, stepped]);
});

def('Select', ({ inputs: { condition, t, e }, backend }) => backend.run1('SelectV2', [condition, t, e]));

// ---- reductions -------------------------------------------------------------------------------

const axesOf = (axis, rank) => {
  const list = axis === undefined || axis === null ? [...Array(rank).keys()] : Array.isArray(axis) ? axis : [axis];
  return list.map((a) => (a < 0 ? a + rank : a));
};
for (const [name, op, key] of [
  ['Sum', 'Sum', 'axis'], ['Max', 'Max', 'reductionIndices'], ['Min', 'Min', 'axis'], ['Mean', 'Mean', 'axis'],
  ['Prod', 'Prod', 'axis'], ['All', 'All', 'axis'], ['Any', 'Any', 'axis'],
]) {
  def(name, ({ inputs: { x }, attrs, backend }) => {
    // TF.js: the mean of ints is float32; sums and products of bools count as int32.
    const input = name === 'Mean' && x.dtype !== 'float32' ? backend.asFloat(x) : x.dtype === 'bool' && name !== 'All' && name !== 'Any' ? backend.cast(x, 'int32') : x;
    return backend.run1(op, [input, backend.constInt(axesOf(attrs[key], x.shape.length))], { keep_dims: !!attrs.keepDims });
  });
}
for (const name of ['ArgMax', 'ArgMin']) {
  def(name, ({ inputs: { x }, attrs, backend }) =>
    backend.run1(name, [x.dtype === 'bool' ? backend.cast(x, 'int32') : x, backend.constInt(attrs.axis)], { output_type: 'int32' }),
  );
}
for (const name of ['Cumsum', 'Cumprod']) {
  def(name, ({ inputs: { x }, attrs, backend }) =>
    backend.run1(name, [x, backend.constInt(attrs.axis)], { exclusive: !!attrs.exclusive, reverse: !!attrs.reverse }),
  );
}
def('Softmax', ({ inputs: { logits }, backend }) => backend.run1('Softmax', [logits]));
def('LogSoftmax', ({ inputs: { logits }, backend }) => backend.run1('LogSoftmax', [logits]));

// ---- matmul and convolutions ------------------------------------------------------------------

def('BatchMatMul', ({ inputs: { a, b }, attrs, backend }) =>
  backend.run1('BatchMatMulV2', [a, b], { adj_x: !!attrs.transposeA, adj_y: !!attrs.transposeB }),
);

/** TF.js's fused activations as TF ops on `y` (an eager tensor the caller owns). */
function activate(backend, y, attrs, prelu) {
  const act = attrs.activation ?? 'linear';
  if (act === 'linear') return y;
  let out;
  if (act === 'relu' || act === 'relu6' || act === 'elu' || act === 'sigmoid' || act === 'tanh') {
    [out] = backend.runRaw(act === 'relu' ? 'Relu' : act === 'relu6' ? 'Relu6' : act === 'elu' ? 'Elu' : act === 'sigmoid' ? 'Sigmoid' : 'Tanh', [y]);
  } else if (act === 'leakyrelu') {
    [out] = backend.runRaw('LeakyRelu', [y], { alpha: attrs.leakyreluAlpha ?? 0.2 });
  } else if (act === 'prelu') {
    const perChannel = attrs.dataFormat === 'NCHW' && prelu.shape.length === 1 && prelu.shape[0] !== 1;
    [out] = backend.runRaw('Prelu', [y, backend.tensorOf(perChannel ? { ...prelu, shape: [prelu.shape[0], 1, 1] } : prelu)]);
  } else {
    y.dispose();
    throw unimplemented(`fused activation '${act}'`);
  }
  y.dispose();
  return out;
}

/**
 * `y` + bias (if any), then the activation: the epilogue of TF.js's fused kernels. A 1-D bias of
 * an NCHW result applies per channel, as in TF.js.
 */
function epilogue(backend, y, inputs, attrs) {
  if (inputs.bias != null) {
    const bias = inputs.bias;
    const perChannel = attrs.dataFormat === 'NCHW' && bias.shape.length === 1 && bias.shape[0] !== 1;
    const bt = perChannel ? backend.tensorOf({ ...bias, shape: [bias.shape[0], 1, 1] }) : backend.tensorOf(bias);
    const [b] = backend.runRaw('AddV2', [y, bt]);
    y.dispose();
    y = b;
  }
  return backend.adopt(activate(backend, y, attrs, inputs.preluActivationWeights));
}

/** TF's fused_ops names of TF.js's fused activations (every one TF.js has). */
const FUSED_ACT = { linear: null, relu: 'Relu', relu6: 'Relu6', elu: 'Elu', leakyrelu: 'LeakyRelu', sigmoid: 'Sigmoid', prelu: 'Prelu' };

/**
 * The attrs and extra inputs of the TF fused op (_FusedConv2D, FusedDepthwiseConv2dNative,
 * _FusedMatMul) for TF.js's bias and activation, or null when there is nothing to fuse or the
 * epilogue cannot run channels-last (a bias of NCHW data that is not one per channel).
 */
function fusion(backend, inputs, attrs) {
  const act = attrs.activation ?? 'linear';
  const { bias, preluActivationWeights: prelu } = inputs;
  const perChannel = (t) => t == null || attrs.dataFormat !== 'NCHW' || t.shape.length === 1;
  if (!(act in FUSED_ACT) || !perChannel(bias) || !perChannel(prelu)) return null;
  const ops = [];
  const args = [];
  if (bias != null) {
    ops.push('BiasAdd');
    args.push(backend.tensorOf(bias));
  }
  if (FUSED_ACT[act] !== null) ops.push(FUSED_ACT[act]);
  if (act === 'prelu') args.push(backend.tensorOf(prelu));
  if (ops.length === 0) return null;
  return { args, attrs: { fused_ops: ops, num_args: args.length, leakyrelu_alpha: attrs.leakyreluAlpha ?? 0.2 } };
}

/** `t` as a matrix when its batch dims are all 1 (TF's _FusedMatMul is 2-D), else null. */
const asMatrix = (t) => (t.shape.slice(0, -2).every((d) => d === 1) ? { ...t, shape: t.shape.slice(-2) } : null);

def('_FusedMatMul', ({ inputs, attrs, backend }) => {
  const [a2, b2] = [asMatrix(inputs.a), asMatrix(inputs.b)];
  const f = inputs.a.dtype === 'float32' && a2 !== null && b2 !== null ? fusion(backend, inputs, attrs) : null;
  if (f !== null) {
    const [y] = backend.runRaw('_FusedMatMul', [backend.tensorOf(a2), backend.tensorOf(b2), ...f.args], {
      transpose_a: !!attrs.transposeA,
      transpose_b: !!attrs.transposeB,
      ...f.attrs,
    });
    // Back to TF.js's batched shape [1, m, n] (it shares the dataId; readers reshape).
    const out = backend.adopt(y);
    const rank = Math.max(inputs.a.shape.length, inputs.b.shape.length);
    return { ...out, shape: [...Array(rank - 2).fill(1), ...out.shape] };
  }
  const [y] = backend.runRaw('BatchMatMulV2', [backend.tensorOf(inputs.a), backend.tensorOf(inputs.b)], {
    adj_x: !!attrs.transposeA,
    adj_y: !!attrs.transposeB,
  });
  return epilogue(backend, y, inputs, attrs);
});

const pair = (v) => (typeof v === 'number' ? [v, v] : v);
const triple = (v) => (typeof v === 'number' ? [v, v, v] : v);

/**
 * TF's padding attrs for a 2-D window op whose TF.js geometry `info` (computeConv2DInfo or
 * computePool2DInfo) was computed from TF.js's pad and rounding: 'same' and 'valid' as they are,
 * anything else as explicit paddings that give TF.js's output size.
 */
function padAttrs(pad, info, roundingMode) {
  if ((pad === 'same' || pad === 'valid') && roundingMode == null) return { padding: pad.toUpperCase() };
  const { top, left } = info.padInfo;
  const bottom = (info.outHeight - 1) * info.strideHeight + info.effectiveFilterHeight - info.inHeight - top;
  const right = (info.outWidth - 1) * info.strideWidth + info.effectiveFilterWidth - info.inWidth - left;
  if (top < 0 || left < 0) throw unimplemented(`padding ${JSON.stringify(pad)} with rounding '${roundingMode}'`);
  // A negative bottom or right: TF.js's rounding drops input rows or columns (only pooling crops).
  return { padding: 'EXPLICIT', explicit_paddings: [0, 0, top, bottom, left, right, 0, 0] };
}

/** TF's padding attrs for a convolution: padAttrs' without cropping. */
function convPadAttrs(pad, info, roundingMode) {
  const p = padAttrs(pad, info, roundingMode);
  if (p.padding === 'EXPLICIT' && p.explicit_paddings.some((v) => v < 0)) {
    throw unimplemented(`convolution padding ${JSON.stringify(pad)} with rounding '${roundingMode}'`);
  }
  return p;
}

/** Runs `f(x)` on NHWC data when `dataFormat` is NCHW: transposes in and out. */
function inNhwc(backend, x, dataFormat, f) {
  if (dataFormat !== 'NCHW') return f(backend.tensorOf(x), x.shape);
  const [xt] = backend.runRaw('Transpose', [backend.tensorOf(x), backend.constInt([0, 2, 3, 1])]);
  backend.scratch.push(xt);
  const y = f(xt, xt.shape);
  backend.scratch.push(y);
  return backend.runRaw('Transpose', [y, backend.constInt([0, 3, 1, 2])])[0];
}

/** TF.js's explicit padding of NCHW data, in NHWC order. */
const nhwcPad = (pad, dataFormat) => (dataFormat === 'NCHW' && Array.isArray(pad) ? [pad[0], pad[2], pad[3], pad[1]] : pad);

/** A 2-D convolution (depthwise or not, fused with `f` from fusion() if given) as an eager tensor. */
function conv2d(backend, inputs, attrs, depthwise, f = null) {
  const { x, filter } = inputs;
  attrs = { ...attrs, pad: nhwcPad(attrs.pad, attrs.dataFormat) };
  const dilations = pair(attrs.dilations ?? 1);
  const strides = pair(attrs.strides);
  const op = f === null ? (depthwise ? 'DepthwiseConv2dNative' : 'Conv2D') : depthwise ? 'FusedDepthwiseConv2dNative' : '_FusedConv2D';
  return inNhwc(backend, x, attrs.dataFormat, (xt, shape) => {
    const info = backend_util.computeConv2DInfo(shape, filter.shape, strides, dilations, attrs.pad, attrs.dimRoundingMode, depthwise);
    return backend.runRaw(op, [xt, backend.tensorOf(filter), ...(f?.args ?? [])], {
      strides: [1, strides[0], strides[1], 1],
      dilations: [1, dilations[0], dilations[1], 1],
      ...convPadAttrs(attrs.pad, info, attrs.dimRoundingMode),
      ...f?.attrs,
    })[0];
  });
}

def('Conv2D', ({ inputs, attrs, backend }) => backend.adopt(conv2d(backend, inputs, attrs, false)));
def('DepthwiseConv2dNative', ({ inputs, attrs, backend }) => backend.adopt(conv2d(backend, inputs, attrs, true)));
for (const [name, depthwise] of [['FusedConv2D', false], ['FusedDepthwiseConv2D', true]]) {
  def(name, ({ inputs, attrs, backend }) => {
    const f = inputs.x.dtype === 'float32' ? fusion(backend, inputs, attrs) : null;
    if (f !== null) return backend.adopt(conv2d(backend, inputs, attrs, depthwise, f));
    return epilogue(backend, conv2d(backend, inputs, attrs, depthwise), inputs, attrs);
  });
}

def('Conv2DBackpropInput', ({ inputs: { dy, filter }, attrs, backend }) => {
  const strides = pair(attrs.strides);
  const nchw = attrs.dataFormat === 'NCHW';
  const inShape = nchw ? [attrs.inputShape[0], attrs.inputShape[2], attrs.inputShape[3], attrs.inputShape[1]] : attrs.inputShape;
  const info = backend_util.computeConv2DInfo(inShape, filter.shape, strides, 1, attrs.pad, attrs.dimRoundingMode);
  return backend.adopt(
    inNhwc(backend, dy, attrs.dataFormat, (dyt) => {
      // TF.js reads dy only where the convolution of inputShape has outputs: rows and columns of a
      // larger dy past them are left out (TF refuses such a dy).
      const [n, h, w, c] = dyt.shape;
      if (h > info.outHeight || w > info.outWidth) {
        const size = [n, Math.min(h, info.outHeight), Math.min(w, info.outWidth), c];
        dyt = temp(backend, 'Slice', [dyt, backend.constInt([0, 0, 0, 0]), backend.constInt(size)]);
      }
      return backend.runRaw('Conv2DBackpropInput', [backend.constInt(inShape), backend.tensorOf(filter), dyt], {
        strides: [1, strides[0], strides[1], 1],
        ...convPadAttrs(attrs.pad, info, attrs.dimRoundingMode),
      })[0];
    }),
  );
});

def('Conv2DBackpropFilter', ({ inputs: { x, dy }, attrs, backend }) => {
  const strides = pair(attrs.strides);
  const nchwT = (t) => backend.runRaw('Transpose', [backend.tensorOf(t), backend.constInt([0, 2, 3, 1])])[0];
  const nchw = attrs.dataFormat === 'NCHW';
  const xt = nchw ? nchwT(x) : backend.tensorOf(x);
  const dyt = nchw ? nchwT(dy) : backend.tensorOf(dy);
  if (nchw) backend.scratch.push(xt, dyt);
  const info = backend_util.computeConv2DInfo(xt.shape, attrs.filterShape, strides, 1, attrs.pad, attrs.dimRoundingMode);
  return backend.run1('Conv2DBackpropFilter', [xt, backend.constInt(attrs.filterShape), dyt], {
    strides: [1, strides[0], strides[1], 1],
    ...convPadAttrs(attrs.pad, info, attrs.dimRoundingMode),
  });
});

for (const [name, sizes] of [
  ['DepthwiseConv2dNativeBackpropInput', 'inputShape'],
  ['DepthwiseConv2dNativeBackpropFilter', 'filterShape'],
]) {
  def(name, ({ inputs, attrs, backend }) => {
    const strides = pair(attrs.strides);
    const dilations = pair(attrs.dilations ?? 1);
    const xShape = sizes === 'inputShape' ? attrs.inputShape : inputs.x.shape;
    const fShape = sizes === 'filterShape' ? attrs.filterShape : inputs.filter.shape;
    const info = backend_util.computeConv2DInfo(xShape, fShape, strides, dilations, attrs.pad, attrs.dimRoundingMode, true);
    const args =
      sizes === 'inputShape'
        ? [backend.constInt(attrs.inputShape), inputs.filter, inputs.dy]
        : [inputs.x, backend.constInt(attrs.filterShape), inputs.dy];
    return backend.run1(name, args, {
      strides: [1, strides[0], strides[1], 1],
      dilations: [1, dilations[0], dilations[1], 1],
      ...convPadAttrs(attrs.pad, info, attrs.dimRoundingMode),
    });
  });
}

const strides5 = (s) => [1, ...triple(s), 1];
def('Conv3D', ({ inputs: { x, filter }, attrs, backend }) =>
  backend.run1('Conv3D', [x, filter], {
    strides: strides5(attrs.strides),
    dilations: strides5(attrs.dilations ?? 1),
    padding: attrs.pad.toUpperCase(),
  }),
);
def('Conv3DBackpropInputV2', ({ inputs: { dy, filter }, attrs, backend }) =>
  backend.run1('Conv3DBackpropInputV2', [backend.constInt(attrs.inputShape), filter, dy], {
    strides: strides5(attrs.strides),
    padding: attrs.pad.toUpperCase(),
  }),
);
def('Conv3DBackpropFilterV2', ({ inputs: { x, dy }, attrs, backend }) =>
  backend.run1('Conv3DBackpropFilterV2', [x, backend.constInt(attrs.filterShape), dy], {
    strides: strides5(attrs.strides),
    padding: attrs.pad.toUpperCase(),
  }),
);

// ---- pooling ----------------------------------------------------------------------------------

function poolAttrs(x, attrs) {
  const filter = pair(attrs.filterSize);
  const strides = pair(attrs.strides);
  const info = backend_util.computePool2DInfo(x.shape, filter, strides, 1, attrs.pad, attrs.dimRoundingMode);
  return { ksize: [1, filter[0], filter[1], 1], strides: [1, strides[0], strides[1], 1], info };
}

/**
 * A 2-D or 3-D pool's pads as [before, after] per spatial dim, from TF.js's geometry `info`
 * (computePool2DInfo, computePool3DInfo): the after pad gives TF.js's output size (negative when
 * TF.js's rounding leaves the input's last rows out of every window).
 */
function spatialPads(info) {
  const dims = info.outDepth === undefined ? ['Height', 'Width'] : ['Depth', 'Height', 'Width'];
  const before = { Depth: info.padInfo.front, Height: info.padInfo.top, Width: info.padInfo.left };
  return dims.map((d) => {
    const b = before[d];
    if (b < 0) throw unimplemented(`pooling with a negative pad (${JSON.stringify(info.padInfo)})`);
    return [b, (info[`out${d}`] - 1) * info[`stride${d}`] + info[`effectiveFilter${d}`] - info[`in${d}`] - b];
  });
}

/** TF's padding for TF.js's pad when TF has it ('SAME', 'VALID'), else null (explicit pads). */
function tfPadding(attrs, pads) {
  if ((attrs.pad === 'same' || attrs.pad === 'valid') && attrs.dimRoundingMode == null) return attrs.pad.toUpperCase();
  return pads.every(([b, a]) => b === 0 && a === 0) ? 'VALID' : null;
}

/** The smallest value of a dtype: max pooling's padding. */
const lowest = (backend, dtype) => (dtype === 'int32' ? backend.scalar(-2147483648, 'int32') : backend.scalar(-Infinity));

/** Runs `op` and keeps its first output until the kernel ends. */
function temp(backend, op, args, attrs) {
  const [y] = backend.runRaw(op, args, attrs);
  backend.scratch.push(y);
  return y;
}

/** An [n, 2] int32 paddings tensor, disposed when the kernel ends. */
function paddings(backend, pairs) {
  const t = backend.context.tensor(Int32Array.from(pairs.flat()), [pairs.length, 2], 'int32');
  backend.scratch.push(t);
  return t;
}

/** Channels-last `xt` (an eager tensor) cropped by negative after-pads, then padded with `value`. */
function padSpatial(backend, xt, pads, value) {
  let t = xt;
  if (pads.some(([, a]) => a < 0)) {
    const size = [xt.shape[0], ...pads.map(([, a], i) => xt.shape[i + 1] + Math.min(a, 0)), xt.shape.at(-1)];
    t = temp(backend, 'Slice', [t, backend.constInt(size.map(() => 0)), backend.constInt(size)]);
  }
  return temp(backend, 'PadV2', [t, paddings(backend, [[0, 0], ...pads.map(([b, a]) => [b, Math.max(a, 0)]), [0, 0]]), value]);
}

/**
 * A pool with TF.js's numeric, explicit or rounded pads: the input padded, then a VALID pool. Max
 * pads with the lowest value; average divides by the in-bounds count, as TF.js does (a 3-D window
 * with none of the input gives 0, a 2-D one NaN, as in TF.js).
 */
function paddedPool(backend, op, x, ksize, strides, pads) {
  const valid = { ksize, strides, padding: 'VALID' };
  const xt = backend.tensorOf(x);
  if (op.startsWith('MaxPool')) return backend.run1(op, [padSpatial(backend, xt, pads, lowest(backend, x.dtype))], valid);
  const sum = temp(backend, op, [padSpatial(backend, xt, pads, backend.scalar(0))], valid);
  const onesShape = [1, ...x.shape.slice(1, -1), 1];
  const ones = backend.context.tensor(new Float32Array(util.sizeFromShape(onesShape)).fill(1), onesShape, 'float32');
  backend.scratch.push(ones);
  // The in-bounds fraction of each window (AvgPool of ones).
  let count = temp(backend, op, [padSpatial(backend, ones, pads, backend.scalar(0))], valid);
  if (pads.length === 3) count = temp(backend, 'Maximum', [count, backend.scalar(1 / util.sizeFromShape(ksize))]);
  return backend.run1('RealDiv', [sum, count]);
}

/** A pool's input gradient `gp` (an eager tensor) on the padded input, back to `inShape`. */
function unpadGrad(backend, gp, pads, inShape) {
  backend.scratch.push(gp);
  const begin = [0, ...pads.map(([b]) => b), 0];
  const size = [inShape[0], ...pads.map(([, a], i) => inShape[i + 1] + Math.min(a, 0)), inShape.at(-1)];
  if (pads.every(([, a]) => a >= 0)) return backend.run1('Slice', [gp, backend.constInt(begin), backend.constInt(size)]);
  // Rows the pool left out get no gradient.
  const g = temp(backend, 'Slice', [gp, backend.constInt(begin), backend.constInt(size)]);
  return backend.run1('PadV2', [g, paddings(backend, [[0, 0], ...pads.map(([, a]) => [0, -Math.min(a, 0)]), [0, 0]]), backend.scalar(0)]);
}

/** Max pooling's input gradient (2-D or 3-D `op`), explicit pads through the padded input. */
function maxPoolGrad(backend, op, { dy, input, output }, ksize, strides, pads, padding) {
  if (padding !== null) return backend.run1(op, [input, output, dy], { ksize, strides, padding });
  const xp = padSpatial(backend, backend.tensorOf(input), pads, lowest(backend, input.dtype));
  const [gp] = backend.runRaw(op, [xp, backend.tensorOf(output), backend.tensorOf(dy)], { ksize, strides, padding: 'VALID' });
  return unpadGrad(backend, gp, pads, input.shape);
}

/**
 * Average pooling's input gradient (2-D or 3-D `op`). With explicit pads each window's dy is
 * spread over the whole window (TF.js's gradient divides by the window's size, in-bounds or not).
 */
function avgPoolGrad(backend, op, { dy, input }, ksize, strides, pads, padding) {
  if (padding !== null) return backend.run1(op, [backend.constInt(input.shape), dy], { ksize, strides, padding });
  const padded = [input.shape[0], ...pads.map(([b, a], i) => input.shape[i + 1] + b + a), input.shape.at(-1)];
  const [gp] = backend.runRaw(op, [backend.constInt(padded), backend.tensorOf(dy)], { ksize, strides, padding: 'VALID' });
  return unpadGrad(backend, gp, pads, input.shape);
}

for (const op of ['MaxPool', 'AvgPool']) {
  def(op, ({ inputs: { x }, attrs, backend }) => {
    const { ksize, strides, info } = poolAttrs(x, attrs);
    // As TF.js's kernels: a 1x1 window that keeps the shape is the identity, whatever the pads.
    if (info.filterHeight === 1 && info.filterWidth === 1 && util.arraysEqual(info.inShape, info.outShape)) {
      return backend.run1('Identity', [x]);
    }
    if (util.sizeFromShape(info.outShape) === 0) return backend.makeOutput(null, info.outShape, x.dtype);
    const pads = spatialPads(info);
    const padding = tfPadding(attrs, pads);
    if (padding !== null) return backend.run1(op, [x], { ksize, strides, padding });
    return paddedPool(backend, op, x, ksize, strides, pads);
  });
}
def('MaxPoolGrad', ({ inputs, attrs, backend }) => {
  const { ksize, strides, info } = poolAttrs(inputs.input, attrs);
  const pads = spatialPads(info);
  return maxPoolGrad(backend, 'MaxPoolGrad', inputs, ksize, strides, pads, tfPadding(attrs, pads));
});
def('AvgPoolGrad', ({ inputs, attrs, backend }) => {
  const { ksize, strides, info } = poolAttrs(inputs.input, attrs);
  const pads = spatialPads(info);
  return avgPoolGrad(backend, 'AvgPoolGrad', inputs, ksize, strides, pads, tfPadding(attrs, pads));
});
def('MaxPoolWithArgmax', ({ inputs: { x }, attrs, backend }) => {
  const { ksize, strides, info } = poolAttrs(x, attrs);
  const padding = tfPadding(attrs, spatialPads(info));
  if (padding === null) throw unimplemented(`MaxPoolWithArgmax with padding ${JSON.stringify(attrs.pad)}`);
  // TF.js's max skips NaN (TF's MaxPoolWithArgmax picks it): NaN pools as -Infinity.
  let xt = backend.tensorOf(x);
  if (x.dtype === 'float32') xt = temp(backend, 'SelectV2', [temp(backend, 'IsNan', [xt]), backend.scalar(-Infinity), xt]);
  return backend.run('MaxPoolWithArgmax', [xt], {
    ksize,
    strides,
    padding,
    include_batch_in_index: !!attrs.includeBatchInIndex,
    Targmax: 'int64',
  });
});

/** TF.js's 3-D pool geometry as TF's attrs, with its pads and TF's padding (null: explicit). */
function pool3(attrs, xShape) {
  const info = backend_util.computePool3DInfo(xShape, attrs.filterSize, attrs.strides, 1, attrs.pad, attrs.dimRoundingMode);
  const pads = spatialPads(info);
  return { ksize: strides5(attrs.filterSize), strides: strides5(attrs.strides), info, pads, padding: tfPadding(attrs, pads) };
}
for (const op of ['MaxPool3D', 'AvgPool3D']) {
  def(op, ({ inputs: { x }, attrs, backend }) => {
    const { ksize, strides, info, pads, padding } = pool3(attrs, x.shape);
    if (util.sizeFromShape(info.outShape) === 0) return backend.makeOutput(null, info.outShape, x.dtype);
    if (padding !== null) return backend.run1(op, [x], { ksize, strides, padding });
    return paddedPool(backend, op, x, ksize, strides, pads);
  });
}
def('MaxPool3DGrad', ({ inputs, attrs, backend }) => {
  const { ksize, strides, pads, padding } = pool3(attrs, inputs.input.shape);
  return maxPoolGrad(backend, 'MaxPool3DGrad', inputs, ksize, strides, pads, padding);
});
def('AvgPool3DGrad', ({ inputs, attrs, backend }) => {
  const { ksize, strides, pads, padding } = pool3(attrs, inputs.input.shape);
  return avgPoolGrad(backend, 'AvgPool3DGrad', inputs, ksize, strides, pads, padding);
});

// ---- normalization and images -------------------------------------------------------------

// TF.js's batchNorm broadcasts mean, variance, scale and offset against x of any rank.
def('FusedBatchNorm', ({ inputs, attrs, backend }) => {
  const { x, mean, variance, scale, offset } = inputs;
  const own = [];
  const op = (name, args) => {
    const [t] = backend.runRaw(name, args);
    own.push(t);
    return t;
  };
  try {
    let inv = op('Rsqrt', [op('AddV2', [backend.tensorOf(variance), backend.scalar(attrs.varianceEpsilon ?? 0.001)])]);
    if (scale != null) inv = op('Mul', [inv, backend.tensorOf(scale)]);
    let y = op('Mul', [op('Sub', [backend.tensorOf(x), backend.tensorOf(mean)]), inv]);
    if (offset != null) y = op('AddV2', [y, backend.tensorOf(offset)]);
    own.pop();
    return backend.adopt(y);
  } finally {
    for (const t of own) t.dispose();
  }
});
def('LRN', ({ inputs: { x }, attrs, backend }) =>
  backend.run1('LRN', [x], { depth_radius: attrs.depthRadius, bias: attrs.bias, alpha: attrs.alpha, beta: attrs.beta }),
);
def('LRNGrad', ({ inputs: { x, y, dy }, attrs, backend }) =>
  backend.run1('LRNGrad', [dy, x, y], { depth_radius: attrs.depthRadius, bias: attrs.bias, alpha: attrs.alpha, beta: attrs.beta }),
);
def('EluGrad', ({ inputs: { dy, y }, backend }) => backend.run1('EluGrad', [dy, y]));

for (const op of ['ResizeBilinear', 'ResizeNearestNeighbor']) {
  def(op, ({ inputs: { images }, attrs, backend }) =>
    backend.run1(op, [images, backend.constInt(attrs.size)], {
      align_corners: !!attrs.alignCorners,
      half_pixel_centers: !!attrs.halfPixelCenters,
    }),
  );
}
def('ResizeBilinearGrad', ({ inputs: { images, dy }, attrs, backend }) =>
  backend.run1('ResizeBilinearGrad', [dy, images], { align_corners: !!attrs.alignCorners, half_pixel_centers: !!attrs.halfPixelCenters }),
);
def('ResizeNearestNeighborGrad', ({ inputs: { images, dy }, attrs, backend }) =>
  backend.run1('ResizeNearestNeighborGrad', [dy, backend.constInt(images.shape.slice(1, 3))], {
    align_corners: !!attrs.alignCorners,
    half_pixel_centers: !!attrs.halfPixelCenters,
  }),
);
def('CropAndResize', ({ inputs: { image, boxes, boxInd }, attrs, backend }) =>
  backend.run1('CropAndResize', [image, boxes, boxInd, backend.constInt(attrs.cropSize)], {
    method: attrs.method,
    extrapolation_value: attrs.extrapolationValue,
  }),
);
def('FlipLeftRight', ({ inputs: { image }, backend }) => backend.run1('ReverseV2', [image, backend.constInt([2])]));
def('Dilation2D', ({ inputs: { x, filter }, attrs, backend }) => {
  const s = pair(attrs.strides);
  const d = pair(attrs.dilations);
  return backend.run1('Dilation2D', [x, filter], { strides: [1, s[0], s[1], 1], rates: [1, d[0], d[1], 1], padding: attrs.pad.toUpperCase() });
});
for (const name of ['Dilation2DBackpropInput', 'Dilation2DBackpropFilter']) {
  def(name, ({ inputs: { x, filter, dy }, attrs, backend }) => {
    const s = pair(attrs.strides);
    const d = pair(attrs.dilations);
    return backend.run1(name, [x, filter, dy], { strides: [1, s[0], s[1], 1], rates: [1, d[0], d[1], 1], padding: attrs.pad.toUpperCase() });
  });
}
def('Transform', ({ inputs: { image, transforms }, attrs, backend }) => {
  const [h, w] = attrs.outputShape ?? image.shape.slice(1, 3);
  return backend.run1('ImageProjectiveTransformV3', [image, transforms, backend.constInt([h, w]), backend.scalar(attrs.fillValue ?? 0)], {
    interpolation: attrs.interpolation.toUpperCase(),
    fill_mode: attrs.fillMode.toUpperCase(),
    dtype: 'float32',
  });
});

// ---- shapes and data movement -----------------------------------------------------------------

// Reshapes share the data (another reference to the dataId), as in TF.js's CPU and wasm backends:
// TF.js's leak check and gradient bookkeeping count on it. The runtime tensor is reshaped when a
// kernel reads the new shape.
function reshaped(backend, x, shape) {
  const size = x.shape.reduce((a, b) => a * b, 1);
  const $shape = util.inferFromImplicitShape(shape, size);
  const $size = $shape.reduce((a, b) => a * b, 1);
  if ($size !== size) {
    throw new EagerError('InvalidArgument', `The new shape (${$shape}) has ${$size} elements and the old shape (${x.shape}) has ${size} elements. The new shape and old shape must have the same number of elements.`);
  }
  backend.incRef(x.dataId);
  return { dataId: x.dataId, shape: $shape, dtype: x.dtype };
}
def('Reshape', ({ inputs: { x }, attrs, backend }) => reshaped(backend, x, attrs.shape));
def('ExpandDims', ({ inputs: { input }, attrs, backend }) => {
  const rank = input.shape.length;
  const dim = attrs.dim < 0 ? attrs.dim + rank + 1 : attrs.dim;
  if (!(dim >= 0 && dim <= rank)) throw new EagerError('InvalidArgument', `Axis must be in the interval [${-(rank + 1)}, ${rank}]`);
  return reshaped(backend, input, [...input.shape.slice(0, dim), 1, ...input.shape.slice(dim)]);
});
def('Concat', ({ inputs, attrs, backend }) => {
  const axis = attrs.axis < 0 ? attrs.axis + inputs[0].shape.length : attrs.axis;
  // As TF.js: empty inputs are dropped (they may differ in rank), the shape counts them all.
  backend_util.assertParamsConsistent(inputs.map((t) => t.shape), axis);
  const outShape = backend_util.computeOutShape(inputs.map((t) => t.shape), axis);
  const list = inputs.filter((t) => t.shape.reduce((a, b) => a * b, 1) > 0);
  if (list.length === 0) return backend.makeOutput(inputs[0].dtype === 'string' ? [] : null, outShape, inputs[0].dtype);
  if (list.length === 1) return backend.run1('Identity', [list[0]]);
  return backend.run1('ConcatV2', [...list, backend.constInt(axis)]);
});
def('Pack', ({ inputs, attrs, backend }) => backend.run1('Pack', inputs, { axis: attrs.axis }));
def('Unpack', ({ inputs: { value }, attrs, backend }) => {
  const axis = attrs.axis < 0 ? attrs.axis + value.shape.length : attrs.axis;
  return backend.run('Unpack', [value], { axis, num: value.shape[axis] });
});
def('SplitV', ({ inputs: { x }, attrs, backend }) => {
  const axis = attrs.axis < 0 ? attrs.axis + x.shape.length : attrs.axis;
  const sizes = backend_util.prepareSplitSize(x, attrs.numOrSizeSplits, axis);
  return backend.run('SplitV', [x, backend.constInt(sizes), backend.constInt(axis)], { num_split: sizes.length });
});
def('Slice', ({ inputs: { x }, attrs, backend }) => {
  const [begin, size] = backend_util.slice_util.parseSliceParams(x, attrs.begin, attrs.size);
  return backend.run1('Slice', [x, backend.constInt(begin), backend.constInt(size)]);
});
def('StridedSlice', ({ inputs: { x }, attrs, backend }) =>
  backend.run1('StridedSlice', [x, backend.constInt(attrs.begin), backend.constInt(attrs.end), backend.constInt(attrs.strides)], {
    begin_mask: attrs.beginMask,
    end_mask: attrs.endMask,
    ellipsis_mask: attrs.ellipsisMask,
    new_axis_mask: attrs.newAxisMask,
    shrink_axis_mask: attrs.shrinkAxisMask,
  }),
);
def('Tile', ({ inputs: { x }, attrs, backend }) => backend.run1('Tile', [x, backend.constInt(attrs.reps)]));
def('Transpose', ({ inputs: { x }, attrs, backend }) => backend.run1('Transpose', [x, backend.constInt(attrs.perm)]));
def('Reverse', ({ inputs: { x }, attrs, backend }) =>
  backend.run1('ReverseV2', [x, backend.constInt(util.parseAxisParam(attrs.dims, x.shape))]),
);
def('GatherV2', ({ inputs: { x, indices }, attrs, backend }) => {
  const axis = util.parseAxisParam(attrs.axis, x.shape)[0];
  // TF.js's checks and words for the axis and batch dims.
  backend_util.segment_util.collectGatherOpShapeInfo(x, indices, axis, attrs.batchDims ?? 0);
  return rewording(
    /^GatherV2: indices\[[\d,]+\] = (-?\d+) is not in \[0, (\d+)\)/,
    (m) => `GatherV2: the index value ${m[1]} is not in [0, ${Number(m[2]) - 1}]`,
    () => backend.run1('GatherV2', [x, indices, backend.constInt(axis)], { batch_dims: attrs.batchDims ?? 0 }),
  );
});
def('GatherNd', ({ inputs: { params, indices }, backend }) => backend.run1('GatherNd', [params, indices]));
// TF.js reads 1-D indices as one index per element (TF wants them as [n, 1]).
const asIndexRows = (indices) => (indices.shape.length === 1 ? { ...indices, shape: [indices.shape[0], 1] } : indices);
def('ScatterNd', ({ inputs: { indices, updates }, attrs, backend }) =>
  backend.run1('ScatterNd', [asIndexRows(indices), updates, backend.constInt(attrs.shape)]),
);
def('TensorScatterUpdate', ({ inputs: { tensor, indices, updates }, backend }) =>
  backend.run1('TensorScatterUpdate', [tensor, indices, updates]),
);
def('PadV2', ({ inputs: { x }, attrs, backend }) => {
  const pads = backend.context.tensor(Int32Array.from(attrs.paddings.flat()), [attrs.paddings.length, 2], 'int32');
  backend.scratch.push(pads);
  return backend.run1('PadV2', [x, pads, backend.scalar(attrs.constantValue ?? 0, x.dtype)]);
});
def('MirrorPad', ({ inputs: { x }, attrs, backend }) => {
  const pads = backend.context.tensor(Int32Array.from(attrs.paddings.flat()), [attrs.paddings.length, 2], 'int32');
  backend.scratch.push(pads);
  return backend.run1('MirrorPad', [x, pads], { mode: attrs.mode.toUpperCase() });
});
def('Fill', ({ attrs, backend }) => {
  if (attrs.dtype === 'string') {
    const n = attrs.shape.reduce((a, b) => a * b, 1);
    return backend.makeOutput(new Array(n).fill(new TextEncoder().encode(attrs.value)), attrs.shape, 'string');
  }
  return backend.run1('Fill', [backend.constInt(attrs.shape), backend.scalar(attrs.value, attrs.dtype ?? 'float32')]);
});
// TF.js's range: empty when the step points away from stop, a step of 1 counts down when stop < start.
def('Range', ({ attrs, backend }) => {
  const { start, stop } = attrs;
  let step = attrs.step;
  if (start === stop || (start < stop && step < 0) || (stop < start && step > 1)) {
    return backend.makeOutput(null, [0], attrs.dtype ?? 'float32');
  }
  if (stop < start && step === 1) step = -1;
  const n = Math.ceil(Math.abs((stop - start) / step));
  const values = (attrs.dtype === 'int32' ? new Int32Array(n) : new Float32Array(n)).map((_, i) => start + i * step);
  return backend.makeOutput(values, [n], attrs.dtype ?? 'float32');
});
def('LinSpace', ({ attrs, backend }) =>
  backend.run1('LinSpace', [backend.scalar(attrs.start), backend.scalar(attrs.stop), backend.constInt(attrs.num)]),
);
def('OneHot', ({ inputs: { indices }, attrs, backend }) => {
  const dt = attrs.dtype ?? 'int32';
  return backend.run1('OneHot', [indices, backend.constInt(attrs.depth), backend.scalar(attrs.onValue, dt), backend.scalar(attrs.offValue, dt)], {
    axis: -1,
  });
});
def('DepthToSpace', ({ inputs: { x }, attrs, backend }) =>
  backend.run1('DepthToSpace', [x], { block_size: attrs.blockSize, data_format: attrs.dataFormat ?? 'NHWC' }),
);
def('SpaceToBatchND', ({ inputs: { x }, attrs, backend }) => {
  const pads = backend.context.tensor(Int32Array.from(attrs.paddings.flat()), [attrs.paddings.length, 2], 'int32');
  backend.scratch.push(pads);
  return backend.run1('SpaceToBatchND', [x, backend.constInt(attrs.blockShape), pads]);
});
def('BatchToSpaceND', ({ inputs: { x }, attrs, backend }) => {
  const crops = backend.context.tensor(Int32Array.from(attrs.crops.flat()), [attrs.crops.length, 2], 'int32');
  backend.scratch.push(crops);
  return backend.run1('BatchToSpaceND', [x, backend.constInt(attrs.blockShape), crops]);
});
def('BroadcastTo', ({ inputs: { x }, attrs, backend }) => backend.run1('BroadcastTo', [x, backend.constInt(attrs.shape)]));
def('BroadcastArgs', ({ inputs: { s0, s1 }, backend }) => backend.run1('BroadcastArgs', [s0, s1]));
def('Unique', ({ inputs: { x }, attrs, backend }) => {
  const axis = backend.constInt([attrs.axis ?? 0]);
  // TF.js keys elements by their text: all NaNs are one value (TF's float compare keeps each apart).
  const values = x.dtype === 'string' || x.dtype === 'float32' ? backend.readSync(x.dataId) : null;
  if (values === null || (x.dtype === 'float32' && !values.some(Number.isNaN))) {
    return backend.run('UniqueV2', [x, axis], { out_idx: 'int32' });
  }
  // UniqueV2 on int32 ids (one per distinct string or number), the unique ids mapped back.
  const ids = new Map();
  const firsts = [];
  const keyed = Int32Array.from(values, (v) => {
    const key = x.dtype === 'string' ? Array.prototype.join.call(v, ',') : String(v);
    if (!ids.has(key)) ids.set(key, firsts.push(v) - 1);
    return ids.get(key);
  });
  const t = backend.context.tensor(keyed, x.shape, 'int32');
  backend.scratch.push(t);
  const [y, idx] = backend.runRaw('UniqueV2', [t, axis], { out_idx: 'int32' });
  backend.scratch.push(y);
  const out = Array.from(y.dataSync(), (id) => firsts[id]);
  return [backend.makeOutput(x.dtype === 'string' ? out : Float32Array.from(out), y.shape, x.dtype), backend.adopt(idx)];
});
def('Einsum', ({ inputs, attrs, backend }) => {
  // TF.js's checks and words first (its kernel refuses repeated labels in one operand, which TF sums).
  const { allDims, idDims } = backend_util.decodeEinsumEquation(attrs.equation, inputs.length);
  backend_util.checkEinsumDimSizes(allDims.length, idDims, inputs);
  return backend.run1('Einsum', inputs, { equation: attrs.equation });
});
// TF's Diag has no bool: TF.js's runs on 0/1 int32 and casts back.
def('Diag', ({ inputs: { x }, backend }) => {
  if (x.dtype !== 'bool') return backend.run1('Diag', [x]);
  const [d] = backend.runRaw('Diag', [backend.cast(x, 'int32')]);
  backend.scratch.push(d);
  return backend.run1('Cast', [d], { DstT: 'bool' });
});
def('MatrixBandPart', ({ inputs: { input, numLower, numUpper }, backend }) =>
  backend.run1('MatrixBandPart', [input, numLower, numUpper]),
);
def('TopK', ({ inputs: { x }, attrs, backend }) => backend.run('TopKV2', [x, backend.constInt(attrs.k)], { sorted: attrs.sorted !== false }));
for (const name of ['LowerBound', 'UpperBound']) {
  def(name, ({ inputs: { sortedSequence, values }, backend }) => backend.run1(name, [sortedSequence, values], { out_type: 'int32' }));
}
def('SearchSorted', ({ inputs: { sortedSequence, values }, attrs, backend }) =>
  backend.run1(attrs.side === 'right' ? 'UpperBound' : 'LowerBound', [sortedSequence, values], { out_type: 'int32' }),
);
def('Bincount', ({ inputs: { x, weights }, attrs, backend }) =>
  backend.run1('Bincount', [x, backend.constInt(attrs.size), weights]),
);
def('DenseBincount', ({ inputs: { x, weights }, attrs, backend }) =>
  backend.run1('DenseBincount', [x, backend.constInt(attrs.size), weights], { binary_output: !!attrs.binaryOutput }),
);
def('UnsortedSegmentSum', ({ inputs: { x, segmentIds }, attrs, backend }) =>
  backend.run1('UnsortedSegmentSum', [x, segmentIds, backend.constInt(attrs.numSegments)]),
);
def('Multinomial', ({ inputs: { logits }, attrs, backend }) => {
  let l = backend.tensorOf(logits);
  if (attrs.normalized) {
    [l] = backend.runRaw('Log', [l]);
    backend.scratch.push(l);
  }
  return backend.run1('Multinomial', [l, backend.constInt(attrs.numSamples)], {
    // TF's seeds are integers; TF.js's may be any number.
    seed: Number.isInteger(attrs.seed) ? attrs.seed : Math.floor((attrs.seed ?? 0) * 2 ** 31),
    seed2: 0,
    output_dtype: 'int32',
  });
});

// ---- non-max suppression, sparse and ragged ---------------------------------------------------

def('NonMaxSuppressionV3', ({ inputs: { boxes, scores }, attrs, backend }) =>
  backend.run1('NonMaxSuppressionV3', [boxes, scores, backend.constInt(attrs.maxOutputSize), backend.scalar(attrs.iouThreshold), backend.scalar(attrs.scoreThreshold)]),
);
def('NonMaxSuppressionV4', ({ inputs: { boxes, scores }, attrs, backend }) =>
  backend.run(
    'NonMaxSuppressionV4',
    [boxes, scores, backend.constInt(attrs.maxOutputSize), backend.scalar(attrs.iouThreshold), backend.scalar(attrs.scoreThreshold)],
    { pad_to_max_output_size: !!attrs.padToMaxOutputSize },
  ),
);
def('NonMaxSuppressionV5', ({ inputs: { boxes, scores }, attrs, backend }) => {
  const [indices, selected, count] = backend.runRaw('NonMaxSuppressionV5', [
    backend.tensorOf(boxes),
    backend.tensorOf(scores),
    backend.constInt(attrs.maxOutputSize),
    backend.scalar(attrs.iouThreshold),
    backend.scalar(attrs.scoreThreshold),
    backend.scalar(attrs.softNmsSigma),
  ]);
  count.dispose();
  return [backend.adopt(indices), backend.adopt(selected)];
});
def('SparseToDense', ({ inputs: { sparseIndices, sparseValues, defaultValue }, attrs, backend }) =>
  backend.run1('SparseToDense', [sparseIndices, backend.constInt(attrs.outputShape), sparseValues, defaultValue], { validate_indices: true }),
);
// TF words a negative row as past the last row; TF.js says it is negative.
def('SparseFillEmptyRows', ({ inputs: { indices, values, denseShape, defaultValue }, backend }) =>
  rewording(
    /^SparseFillEmptyRows: (indices\(\d+, 0\) is invalid: -\d+) >= \d+/,
    (m) => `${m[1]} < 0`,
    () => backend.run('SparseFillEmptyRows', [backend.cast(indices, 'int64'), values, backend.cast(denseShape, 'int64'), defaultValue]),
  ),
);
def('SparseReshape', ({ inputs: { inputIndices, inputShape, newShape }, backend }) =>
  backend.run('SparseReshape', [inputIndices, inputShape, newShape].map((t) => backend.cast(t, 'int64'))),
);
/** TF's out-of-range segment id error as TF.js words it (its input is segmentIds). */
const segmentWords = (f) =>
  rewording(/^Sparse\w+: (Segment id -?\d+ out of range \[0, \d+\)), possibly because 'segment_ids' input is not sorted\.$/, (m) => `${m[1]}, possibly because segmentIds input is not sorted.`, f);
def('SparseSegmentSum', ({ inputs: { data, indices, segmentIds }, backend }) =>
  segmentWords(() => backend.run1('SparseSegmentSum', [data, indices, segmentIds])),
);
// TF's SparseSegmentMean is for floats; TF.js's mean of int32 data is int32 (truncated).
def('SparseSegmentMean', ({ inputs: { data, indices, segmentIds }, backend }) =>
  segmentWords(() => {
    if (data.dtype === 'float32') return backend.run1('SparseSegmentMean', [data, indices, segmentIds]);
    const [mean] = backend.runRaw('SparseSegmentMean', [backend.asFloat(data), backend.tensorOf(indices), backend.tensorOf(segmentIds)]);
    backend.scratch.push(mean);
    return backend.run1('Cast', [mean], { DstT: data.dtype });
  }),
);
def('RaggedGather', ({ inputs: { paramsNestedSplits, paramsDenseValues, indices }, attrs, backend }) =>
  rewording(
    /^RaggedGather: Ragged splits must be sorted\.?$/,
    () => 'Ragged splits must be sorted in ascending order',
    () =>
      backend.run('RaggedGather', [...paramsNestedSplits, paramsDenseValues, indices], {
        PARAMS_RAGGED_RANK: paramsNestedSplits.length,
        OUTPUT_RAGGED_RANK: attrs.outputRaggedRank,
      }),
  ),
);
// TF.js's row splits are int32: a row longer than int32's range is refused, in TF.js's words.
def('RaggedRange', ({ inputs: { starts, limits, deltas }, backend }) => {
  const ins = [starts, limits, deltas];
  if (ins.every((t) => t.shape.length <= 1)) {
    const [s, l, d] = ins.map((t) => backend.readSync(t.dataId));
    const n = Math.max(s.length, l.length, d.length);
    const at = (v, i) => (v.length === 1 ? v[0] : v[i]);
    for (let i = 0; i < n; i++) {
      const [si, li, di] = [at(s, i), at(l, i), at(d, i)];
      if (di === 0) throw tfjsError('Requires delta != 0');
      if ((di > 0 && li < si) || (di < 0 && li > si)) continue;
      if (Math.ceil(Math.abs((li - si) / di)) > 2147483647) throw tfjsError('Requires ((limit - start) / delta) <= 2147483647');
    }
  }
  return backend.run('RaggedRange', ins, { Tsplits: 'int32' });
});
def('RaggedTensorToTensor', ({ inputs: { shape, values, defaultValue, rowPartitionTensors }, attrs, backend }) =>
  backend.run1('RaggedTensorToTensor', [shape, values, defaultValue, ...rowPartitionTensors], {
    row_partition_types: attrs.rowPartitionTypes,
  }),
);

// ---- browser ----------------------------------------------------------------------------------

// tf.browser.draw: the image as RGBA bytes on the canvas's 2-D context (float32 in [0, 1], int32
// in [0, 255]; one channel is grey, three get the option's alpha). Returns the image tensor it got,
// as TF.js's CPU backend does: tf.browser.draw keeps no result, so nothing new may be made.
def('Draw', ({ inputs: { image }, attrs, backend }) => {
  const { canvas, options } = attrs;
  const [height, width] = image.shape;
  const depth = image.shape.length === 2 ? 1 : image.shape[2];
  const data = backend.readSync(image.dataId);
  const scale = image.dtype === 'float32' ? 255 : 1;
  const alpha = options?.imageOptions?.alpha ?? 1;
  const bytes = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    const p = i * 4;
    bytes[p + 3] = 255 * alpha;
    for (let d = 0; d < depth; d++) {
      const v = data[i * depth + d];
      const max = image.dtype === 'float32' ? 1 : 255;
      if (!(v >= 0 && v <= max)) {
        throw new EagerError('InvalidArgument', `Tensor values for a ${image.dtype} Tensor must be in the range [0 - ${max}] but encountered ${v}.`);
      }
      if (depth === 1) bytes[p] = bytes[p + 1] = bytes[p + 2] = v * scale;
      else bytes[p + d] = v * scale;
    }
  }
  // The pixels go through a 2-D context; a context type named after the backend means its own
  // choice, as TF.js's GPU backends read 'webgl' and 'webgpu'.
  const asked = options?.contextOptions?.contextType;
  const type = asked == null || asked === 'eager-wasm' ? '2d' : asked;
  if (type !== '2d') throw new EagerError('InvalidArgument', `Context type ${asked} is not supported by the eager-wasm backend.`);
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext(type, options?.contextOptions?.contextAttributes ?? {});
  if (ctx == null) throw new EagerError('InvalidArgument', `Could not get the context with ${type} type.`);
  ctx.putImageData(new ImageData(bytes, width, height), 0, 0);
  return image;
});

// ---- complex64 and strings ----------------------------------------------------------------------

def('Complex', ({ inputs: { real, imag }, backend }) => backend.run1('Complex', [real, imag], { Tout: 'complex64' }));
for (const name of ['Real', 'Imag', 'ComplexAbs']) {
  def(name, ({ inputs, backend }) => backend.run1(name, [inputs.input ?? inputs.x], { Tout: 'float32' }));
}
for (const name of ['FFT', 'IFFT']) {
  def(name, ({ inputs: { input }, backend }) => backend.run1(name, [input]));
}

def('StringSplit', ({ inputs: { input, delimiter }, attrs, backend }) =>
  backend.run('StringSplit', [input, delimiter], { skip_empty: attrs.skipEmpty !== false }),
);
def('StringNGrams', ({ inputs: { data, dataSplits }, attrs, backend }) =>
  backend.run('StringNGrams', [data, dataSplits], {
    separator: attrs.separator,
    ngram_widths: attrs.nGramWidths,
    left_pad: attrs.leftPad,
    right_pad: attrs.rightPad,
    pad_width: attrs.padWidth,
    preserve_short_sequences: !!attrs.preserveShortSequences,
  }),
);
def('StringToHashBucketFast', ({ inputs: { input }, attrs, backend }) =>
  backend.run1('StringToHashBucketFast', [input], { num_buckets: attrs.numBuckets }),
);
def('StaticRegexReplace', ({ inputs: { x }, attrs, backend }) =>
  backend.run1('StaticRegexReplace', [x], { pattern: attrs.pattern, rewrite: attrs.rewrite, replace_global: attrs.replaceGlobal !== false }),
);

// tf.image.rotateWithOffset: each output pixel reads the input at its position rotated by
// `radians` about `center` (fractions of width and height), rounded to the nearest pixel; outside
// the image it is `fillValue` (per channel, the 4th one opaque). Computed in JS, as TF.js does.
def('RotateWithOffset', ({ inputs: { image }, attrs, backend }) => {
  const { radians, fillValue, center } = attrs;
  const [batch, height, width, channels] = image.shape;
  const [cx, cy] = backend_util.getImageCenter(center, height, width);
  const sin = Math.sin(radians);
  const cos = Math.cos(radians);
  const src = backend.readSync(image.dataId);
  const out = new src.constructor(src.length);
  for (let b = 0; b < batch; b++) {
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const sx = Math.round((x - cx) * cos - (y - cy) * sin + cx);
        const sy = Math.round((x - cx) * sin + (y - cy) * cos + cy);
        const inside = sx >= 0 && sx < width && sy >= 0 && sy < height;
        const o = ((b * height + y) * width + x) * channels;
        const i = ((b * height + sy) * width + sx) * channels;
        for (let c = 0; c < channels; c++) {
          const fill = typeof fillValue === 'number' ? fillValue : c === 3 ? 255 : fillValue[c];
          out[o + c] = inside ? src[i + c] : fill;
        }
      }
    }
  }
  return backend.makeOutput(out, image.shape, image.dtype);
});
