// Op ids by name, and ctx.ops: TF.js's everyday ops as thin wrappers over execute (so the kernel
// cache sees the same ops), mostly built from tables, plus the chainable Tensor methods over them.
// Arguments, defaults and result dtypes follow TF.js 4.22 (checked against its CPU backend by
// tests/js/tfjs-parity.test.mjs): a JS value is a tensor of its own dtype (a number is float32),
// mixed operands meet in the wider dtype, int32 / int32 divides by flooring, and so on.

import { opId } from './eager_wasm.js';
import { EagerError, callWasm } from './errors.js';
import { readFirst, readOutputs } from './io.js';
import { describe, invalid, isStackOverflow, messageOf, typedArrayKind } from './snapshot.js';
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

/**
 * A plain array of int32 integers from `values`: an integer, an array or an integer typed array.
 * Anything else (a bigint, a boolean, an object) is refused, naming `what` (e.g. 'sum: axis').
 */
function ints(values, what, arrayOnly = false) {
  let list;
  try {
    if (typeof values === 'number' && !arrayOnly) list = [values];
    else if (Array.isArray(values)) list = Array.from(values);
    else {
      const kind = typedArrayKind(values);
      if (kind === undefined || kind.startsWith('Big')) {
        throw invalid(`${what} must be ${arrayOnly ? 'an array of integers' : 'an integer or an array of integers'}, got ${describe(values)}`);
      }
      list = Array.from(values);
    }
  } catch (e) {
    throw e instanceof EagerError || isStackOverflow(e) ? e : invalid(`${what} could not be read: ${messageOf(e)}`, e);
  }
  for (const x of list) {
    if (typeof x !== 'number' || (x | 0) !== x) {
      throw invalid(`${what}: expected int32 integers, got ${typeof x === 'number' ? x : describe(x)}`);
    }
  }
  return list;
}

/** One int32 integer (an axis, a size, a count). */
function int1(v, what) {
  if (typeof v !== 'number' || (v | 0) !== v) throw invalid(`${what} must be an integer, got ${describe(v)}`);
  return v;
}

const isTensor = (x) => handleOf(x) !== undefined;
/** A TF.js options object (not an array, not a Tensor), for helpers taking options or positions. */
const isOptions = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !isTensor(v);
const upper = (s) => (typeof s === 'string' ? s.toUpperCase() : s);
/** TF.js's name of TF op `op`: 'Relu6' -> 'relu6'. */
const jsName = (op) => op[0].toLowerCase() + op.slice(1);

/** TF.js's message for an argument of the wrong dtype. */
const wrongDtype = (arg, fn, want, got) =>
  invalid(`Argument '${arg}' passed to '${fn}' must be ${want} tensor, but got ${got} tensor`);

/** A spatial attr (strides, dilations, ksize) as TF's 4 numbers: n, [h, w] or the 4 already. */
function spatial(v, nchw, name) {
  if (v === undefined) return undefined;
  const [h, w] = typeof v === 'number' ? [v, v] : Array.isArray(v) && v.length === 2 ? v : [];
  if (h === undefined) {
    if (Array.isArray(v) && v.length === 4) return Array.from(v);
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

// Unary ops by what they do to int32 and bool: FLOAT ones compute in float32 (TF.js's exp and erf
// give float32 there; the others it refuses or truncates into int32), INTEGER ones keep int32 and
// leave bool's 0/1 as they are (TF.js returns bool with the same values).
const FLOAT_UNARY =
  'Acos Acosh Asin Asinh Atan Atanh Cos Cosh Elu Erf Exp Expm1 Log Log1p Reciprocal Rsqrt Selu ' +
  'Sigmoid Sin Sinh Softplus Sqrt Tan Tanh';
const INTEGER_UNARY = 'Abs Ceil Floor Identity Neg Relu Relu6 Round Sign Square';
/** Of those, the ones TF defines for float32 only. */
const FLOAT_ONLY = new Set(['Ceil', 'Floor']);
const ARITHMETIC = 'AddV2 Sub Mul RealDiv FloorDiv FloorMod Maximum Minimum Pow SquaredDifference Atan2 DivNoNan';
const COMPARISON = 'Equal NotEqual Greater GreaterEqual Less LessEqual';
const RENAMED = { addV2: 'add', realDiv: 'div', floorMod: 'mod', isNan: 'isNaN' };
/** The order mixed operands widen in (TF.js's upcasting, plus uint8 and int64). */
const WIDTH = { bool: 0, uint8: 1, int32: 2, int64: 3, float32: 4, complex64: 5 };
const INTEGER = new Set(['uint8', 'int32', 'int64']);

/** Helpers that are not Tensor methods: they do not take the tensor they work on first (or TF.js has no such method). */
const NOT_METHODS = new Set([
  'concat', 'stack', 'addN', 'einsum', 'zeros', 'ones', 'fill', 'range', 'linspace', 'where', 'image',
  'tensor', 'scalar', 'tensor1d', 'tensor2d', 'tensor3d', 'tensor4d', 'moments', 'gatherND',
]);

/**
 * `e` as helper `name`'s failure: its message starts with `name: ` once (in place of a TF op's
 * name), and a dtype the runtime's op refused is said without TF's attr names.
 */
function inTermsOf(name, e) {
  let msg = e.message;
  if (msg.startsWith(`${name}: `) || msg.startsWith('Argument ')) return e;
  msg = msg.replace(/^[A-Z][A-Za-z0-9]*: /, '');
  const dtype = /^op \w+ does not support (\w+) for attr '\w+' \(supported: ([^)]*)\)$/.exec(msg);
  if (dtype !== null) msg = `${dtype[1]} tensors are not supported (supported: ${dtype[2]})`;
  const mixed = /^input '\w+' of op \w+ does not match attr '\w+': inputs imply (\w+), attr says (\w+)$/.exec(msg);
  if (mixed !== null) msg = `the tensors must have one dtype, got ${mixed[2]} and ${mixed[1]}`;
  return new EagerError(e.code, `${name}: ${msg}`, { cause: e });
}

/** The rank nested arrays (or a typed array, rank 1, or a scalar, rank 0) would make, without reading them all. */
function inferredRank(v) {
  let rank = 0;
  try {
    for (let level = v; rank <= 8; rank++) {
      if (Array.isArray(level)) level = level[0];
      else if (typedArrayKind(level) !== undefined) return rank + 1;
      else return rank;
    }
  } catch (e) {
    throw isStackOverflow(e) ? e : invalid(`the values could not be read: ${messageOf(e)}`, e);
  }
  return rank;
}

/** `shape` with a 1 put back at each of `axes` (non-negative), as TF.js's expandShapeToKeepDim. */
function keepDimShape(shape, axes) {
  const out = [];
  let j = 0;
  for (let d = 0; d < shape.length + axes.length; d++) out.push(axes.includes(d) ? 1 : shape[j++]);
  return out;
}

export function makeOps(ctx) {
  const run = (op, inputs, attrs) => ctx._run(opIdOf(op), op, inputs, attrs);
  const one = (op, inputs, attrs) => readFirst(ctx, run(op, inputs, attrs));
  const all = (op, inputs, attrs) => readOutputs(ctx, run(op, inputs, attrs));

  /**
   * Helper `name`: `fn(made, ...args)`, where tensors made from JS values (and temporaries) go to
   * `made` and are disposed when it returns or throws; a failure reading the arguments is
   * InvalidArgument, and a failure of the op says which helper it was.
   */
  const helper = (name, fn) =>
    function (...args) {
      const made = [];
      try {
        return fn(made, ...args);
      } catch (e) {
        if (e instanceof EagerError) throw inTermsOf(name, e);
        throw isStackOverflow(e) ? e : invalid(`${name}: the arguments could not be read: ${messageOf(e)}`, e);
      } finally {
        for (const t of made) t.dispose();
      }
    };
  /** Op `op` on `inputs` for helper `name` without the helper's wrapping (the hot path), its failure said as the helper's. */
  const direct = (name, op, inputs) => {
    try {
      return one(op, inputs);
    } catch (e) {
      throw e instanceof EagerError ? inTermsOf(name, e) : e;
    }
  };
  /** A temporary: `t`, disposed when the helper returns. */
  const temp = (made, t) => {
    made.push(t);
    return t;
  };
  /** `v` if a Tensor, else a tensor of it (its own dtype as TF.js infers it, or `dtype`), disposed after the call. */
  const ten = (made, v, dtype) => (isTensor(v) ? v : temp(made, ctx.tensor(v, undefined, dtype)));
  /** `v` as a tensor that must be of `dtype` (JS values are read as `dtype`), as TF.js's convertToTensor. */
  const typed = (made, v, dtype, arg, fn) => {
    if (!isTensor(v)) return temp(made, make(v, undefined, dtype));
    if (v.dtype !== dtype) throw wrongDtype(arg, fn, dtype, v.dtype);
    return v;
  };
  /**
   * ctx.tensor, with TF.js's reading of numbers as bool (true when they round to non-zero): the
   * values are read (and checked) by ctx.tensor as they are, then rounded.
   */
  const make = (values, shape, dtype) => {
    if (dtype !== 'bool' || typeof values === 'boolean') return ctx.tensor(values, shape, dtype);
    const t = ctx.tensor(values, shape);
    if (t.dtype === 'bool') return t;
    try {
      return ctx.tensor(Array.from(t.dataSync(), (x) => Math.round(Number(x)) !== 0), t.shape, 'bool');
    } finally {
      t.dispose();
    }
  };
  /** An int32 tensor of `v` (a vector, or a scalar when `scalar`), unless `v` is a Tensor. */
  const int = (made, v, what, scalar, arrayOnly) => {
    if (isTensor(v)) return v;
    if (scalar) return temp(made, ctx.tensor(Int32Array.of(int1(v, what)), [], 'int32'));
    const list = ints(v, what, arrayOnly);
    return temp(made, ctx.tensor(Int32Array.from(list), [list.length], 'int32'));
  };
  /** `t` cast to `dtype` (a temporary) unless it has it. */
  const cast = (made, t, dtype) => (t.dtype === dtype ? t : temp(made, one('Cast', [t], { DstT: dtype })));
  /** `t` in float32 unless it is already (the dtype TF.js's float math gives). */
  const float = (made, t) => cast(made, t, 'float32');
  const wider = (a, b) => (WIDTH[a] >= WIDTH[b] ? a : b);
  /** The axes TF.js's parseAxisParam makes of `axis` for `x`: all when null, each in [-rank, rank), non-negative. */
  const axesOf = (x, axis, what) => {
    if (axis === undefined || axis === null) return [...x.shape.keys()];
    const list = ints(axis, what);
    return list.map((a) => {
      if (a < -x.rank || a >= x.rank) {
        throw invalid(`${what}: all values in axis param must be in range [-${x.rank}, ${x.rank}) but got axis ${a}`);
      }
      return a < 0 ? a + x.rank : a;
    });
  };
  /** `[[before, after], ...]` as an int32 [n, 2] tensor. */
  const paddingsTensor = (made, paddings, what) => {
    if (!Array.isArray(paddings) || !paddings.every((p) => Array.isArray(p) && p.length === 2)) {
      throw invalid(`${what} must be an array of [before, after] pairs, got ${describe(paddings)}`);
    }
    return temp(made, ctx.tensor(Int32Array.from(ints(paddings.flat(), what)), [paddings.length, 2], 'int32'));
  };
  const axisTensor = (made, axes) => temp(made, ctx.tensor(Int32Array.from(axes), [axes.length], 'int32'));
  /** Runs `fn(x4)` on a rank-4 x; a rank-3 x (one image) gets a batch dim of 1 and loses it after. */
  const batched = (made, x, fn) => {
    x = ten(made, x);
    if (x.rank !== 3) return fn(x);
    const x4 = temp(made, ops.expandDims(x, 0));
    const y = temp(made, fn(x4));
    return ops.squeeze(y, [0]);
  };

  const ops = {};
  for (const op of FLOAT_UNARY.split(' ')) {
    const name = jsName(op);
    ops[name] = (x) => (isTensor(x) && x.dtype === 'float32' ? direct(name, op, [x]) : slowFloat(x));
    const slowFloat = helper(name, (m, x) => one(op, [float(m, ten(m, x))]));
  }
  for (const op of INTEGER_UNARY.split(' ')) {
    const name = jsName(op);
    ops[name] = helper(name, (m, x) => {
      x = ten(m, x);
      // bool's 0/1 and (for ceil/floor) integers are their own result.
      if (x.dtype === 'bool' || (x.dtype !== 'float32' && FLOAT_ONLY.has(op))) return one('Identity', [x]);
      return one(op, [x]);
    });
  }
  for (const op of ['IsFinite', 'IsInf', 'IsNan']) {
    const name = RENAMED[jsName(op)] ?? jsName(op);
    ops[name] = helper(name, (m, x) => one(op, [float(m, ten(m, x))]));
  }
  for (const op of ['OnesLike', 'ZerosLike']) {
    const name = jsName(op);
    ops[name] = helper(name, (m, x) => one(op, [ten(m, x)]));
  }
  ops.logicalNot = helper('logicalNot', (m, x) => one('LogicalNot', [typed(m, x, 'bool', 'x', 'logicalNot')]));

  // Binary ops, as TF.js: each operand a tensor of its own dtype (a JS number is float32), the two
  // cast to the wider one (bool < int32 < float32), then the op's own rule.
  const operands = (m, a, b) => {
    const ta = ten(m, a);
    const tb = ten(m, b);
    const d = wider(ta.dtype, tb.dtype);
    return [cast(m, ta, d), cast(m, tb, d), d];
  };
  for (const op of ARITHMETIC.split(' ')) {
    const name = RENAMED[jsName(op)] ?? jsName(op);
    const slow = helper(name, (m, a, b) => {
      let [ta, tb, d] = operands(m, a, b);
      if (op === 'Atan2') return d === 'float32' ? one(op, [ta, tb]) : one(op, [float(m, ta), float(m, tb)]);
      if (d === 'bool') {
        // TF.js takes the max/min and the floored quotient of bools as int32; the rest it computes
        // into a bool tensor holding other values than 0 and 1 (true + true = 2): refused here.
        if (op !== 'Maximum' && op !== 'Minimum' && op !== 'FloorDiv') {
          throw invalid(`${name}: a and b are both bool; cast one to int32 or float32 first`);
        }
        [ta, tb, d] = [cast(m, ta, 'int32'), cast(m, tb, 'int32'), 'int32'];
      }
      if (INTEGER.has(d)) {
        // TF.js: integer division by zero gives 0 (where TF's kernels refuse it), and div of
        // integers is floorDiv.
        if (op === 'RealDiv' || op === 'DivNoNan' || op === 'FloorDiv') return intDivide(m, 'FloorDiv', ta, tb);
        if (op === 'FloorMod') return intDivide(m, 'FloorMod', ta, tb);
        if (op === 'Pow') return intPow(m, ta, tb);
      }
      if (op !== 'FloorDiv') return one(op, [ta, tb]);
      // TF.js's floorDiv is int32 whatever the operands; an infinite or NaN quotient becomes 0.
      return toInt32(m, one(op, [ta, tb]));
    });
    // Two float32 Tensors (the hot case) skip the helper.
    ops[name] =
      op === 'FloorDiv'
        ? slow
        : (a, b) => (isTensor(a) && isTensor(b) && a.dtype === 'float32' && b.dtype === 'float32' ? direct(name, op, [a, b]) : slow(a, b));
  }
  /** a `op` b for integer tensors, 0 where b is 0 (as TF.js's backends give). */
  const intDivide = (m, op, a, b) => {
    const zero = temp(m, one('Equal', [b, temp(m, ctx.tensor(0, [], b.dtype))]));
    const safe = temp(m, one('SelectV2', [zero, temp(m, ctx.tensor(1, [], b.dtype)), b]));
    const q = temp(m, one(op, [a, safe]));
    return one('SelectV2', [zero, temp(m, ctx.tensor(0, [], q.dtype)), q]);
  };
  /** Float32 `y` (consumed) as int32 the way TF.js stores a float in an Int32Array: truncated, 0 if not finite. */
  const toInt32 = (m, y) => {
    temp(m, y);
    const finite = temp(m, one('IsFinite', [y]));
    const safe = temp(m, one('SelectV2', [finite, y, temp(m, ctx.tensor(0, [], 'float32'))]));
    return one('Cast', [safe], { DstT: 'int32' });
  };
  /** Integer a ** b: TF.js truncates a negative power's fraction into the integer (2 ** -1 is 0), where TF refuses it. */
  const intPow = (m, a, b) => {
    const zero = temp(m, ctx.tensor(0, [], b.dtype));
    const negative = temp(m, one('Less', [b, zero]));
    const whole = temp(m, one('Pow', [a, temp(m, one('Maximum', [b, zero]))]));
    const fraction = toInt32(m, one('Pow', [float(m, a), float(m, b)]));
    return one('SelectV2', [negative, cast(m, temp(m, fraction), a.dtype), whole]);
  };
  for (const op of COMPARISON.split(' ')) {
    const name = jsName(op);
    const ordered = op !== 'Equal' && op !== 'NotEqual';
    ops[name] = helper(name, (m, a, b) => {
      const [ta, tb, d] = operands(m, a, b);
      return d === 'bool' && ordered ? one(op, [cast(m, ta, 'int32'), cast(m, tb, 'int32')]) : one(op, [ta, tb]);
    });
  }
  for (const op of ['LogicalAnd', 'LogicalOr']) {
    const name = jsName(op);
    ops[name] = helper(name, (m, a, b) => one(op, [typed(m, a, 'bool', 'a', name), typed(m, b, 'bool', 'b', name)]));
  }
  ops.logicalXor = helper('logicalXor', (m, a, b) => {
    const ta = typed(m, a, 'bool', 'a', 'logicalXor');
    const tb = typed(m, b, 'bool', 'b', 'logicalXor');
    return one('NotEqual', [ta, tb]);
  });
  ops.prelu = helper('prelu', (m, x, alpha) => one('Prelu', [float(m, ten(m, x)), float(m, ten(m, alpha))]));
  ops.biasAdd = helper('biasAdd', (m, x, bias) => one('BiasAdd', operands(m, x, bias).slice(0, 2)));

  // Reductions: TF.js sums and multiplies bool as int32, averages in float32, and takes all/any of bool only.
  const reduce = (op, name, prepare) =>
    helper(name, (m, x, axis, keepDims = false) => {
      x = ten(m, x);
      const axes = axesOf(x, axis, `${name}: axis`);
      // TF.js averages by dividing first, so the mean over nothing is 0 (TF's is NaN).
      const empty = op === 'Mean' && axes.some((a) => x.shape[a] === 0);
      return one(empty ? 'Sum' : op, [prepare(m, x), axisTensor(m, axes)], { keep_dims: !!keepDims });
    });
  const boolAsInt = (m, x) => (x.dtype === 'bool' ? cast(m, x, 'int32') : x);
  ops.sum = reduce('Sum', 'sum', boolAsInt);
  ops.prod = reduce('Prod', 'prod', boolAsInt);
  ops.mean = reduce('Mean', 'mean', float);
  for (const op of ['Max', 'Min']) {
    const name = jsName(op);
    ops[name] = helper(name, (m, x, axis, keepDims = false) => {
      x = ten(m, x);
      const axes = axesOf(x, axis, `${name}: axis`);
      const y = one(op, [boolAsInt(m, x), axisTensor(m, axes)], { keep_dims: !!keepDims });
      return x.dtype === 'bool' ? one('Cast', [temp(m, y)], { DstT: 'bool' }) : y;
    });
  }
  for (const op of ['All', 'Any']) {
    const name = jsName(op);
    ops[name] = helper(name, (m, x, axis, keepDims = false) => {
      x = typed(m, x, 'bool', 'x', name);
      return one(op, [x, axisTensor(m, axesOf(x, axis, `${name}: axis`))], { keep_dims: !!keepDims });
    });
  }
  for (const op of ['ArgMax', 'ArgMin']) {
    const name = jsName(op);
    ops[name] = helper(name, (m, x, axis = 0) => {
      x = ten(m, x);
      const [a] = axesOf(x, int1(axis, `${name}: axis`), `${name}: axis`);
      return one(op, [boolAsInt(m, x), int(m, a, `${name}: axis`, true)], { output_type: 'int32' });
    });
  }
  for (const op of ['Cumsum', 'Cumprod']) {
    const name = jsName(op);
    ops[name] = helper(name, (m, x, axis = 0, exclusive = false, reverse = false) => {
      x = ten(m, x);
      const [a] = axesOf(x, int1(axis, `${name}: axis`), `${name}: axis`);
      return one(op, [boolAsInt(m, x), int(m, a, `${name}: axis`, true)], { exclusive: !!exclusive, reverse: !!reverse });
    });
  }
  for (const [op, arg] of [['Softmax', 'logits'], ['LogSoftmax', 'logits']]) {
    const name = jsName(op);
    ops[name] = helper(name, (m, x, dim = -1) => {
      x = typed(m, x, 'float32', arg, name);
      if (dim !== -1 && dim !== x.rank - 1) {
        throw invalid(`${name}: along a non-last dimension is not yet supported (as in TF.js): logits is rank ${x.rank}, dim ${dim}`);
      }
      return one(op, [x]);
    });
  }
  // conv2d(x, filter, strides, pad, dataFormat, dilations) as in TF.js, or (x, filter, options).
  const convAttrs = (o) => {
    const nchw = o.dataFormat === 'NCHW';
    return {
      strides: spatial(o.strides ?? 1, nchw, 'strides'),
      ...padding(o.pad ?? o.padding, o.explicitPaddings, nchw),
      dilations: spatial(o.dilations, nchw, 'dilations'),
      data_format: o.dataFormat,
    };
  };
  /** NCHW conv options as the NHWC ones of the transposed input. */
  const nhwcOptions = (o) => {
    const dims = (v) => (Array.isArray(v) && v.length === 4 ? [v[0], v[2], v[3], v[1]] : v);
    const flat = (v) => (Array.isArray(v) && v.length === 8 ? [v[0], v[1], v[4], v[5], v[6], v[7], v[2], v[3]] : v);
    return { strides: dims(o.strides), dilations: dims(o.dilations), pad: dims(o.pad), padding: dims(o.padding), explicitPaddings: flat(o.explicitPaddings), dataFormat: 'NHWC' };
  };
  for (const [name, op] of [['conv2d', 'Conv2D'], ['depthwiseConv2d', 'DepthwiseConv2dNative']]) {
    ops[name] = helper(name, (m, x, filter, ...rest) => {
      const o = isOptions(rest[0]) ? rest[0] : { strides: rest[0], pad: rest[1], dataFormat: rest[2], dilations: rest[3] };
      const above1 = (v) => (typeof v === 'number' ? v > 1 : Array.isArray(v) && v.some((d) => d > 1));
      if (above1(o.strides) && above1(o.dilations)) {
        throw invalid(`${name}: either strides or dilations must be 1, got strides ${o.strides} and dilations ${o.dilations} (as in TF.js)`);
      }
      if (o.dataFormat !== 'NCHW') {
        const attrs = convAttrs(o);
        return batched(m, x, (x4) => one(op, operands(m, x4, filter).slice(0, 2), attrs));
      }
      // NCHW (TF.js runs it on the CPU; the runtime's kernels are NHWC): transposed around NHWC.
      const attrs = convAttrs(nhwcOptions(o));
      return batched(m, x, (x4) => {
        const [xt, f] = operands(m, temp(m, ops.transpose(x4, [0, 2, 3, 1])), filter);
        return ops.transpose(temp(m, one(op, [xt, f], attrs)), [0, 3, 1, 2]);
      });
    });
  }
  // conv1d(x, filter, stride, pad, dataFormat = 'NWC', dilation = 1): conv2d over a height of 1.
  ops.conv1d = helper('conv1d', (m, x, filter, stride, pad, dataFormat = 'NWC', dilation = 1) => {
    if (dataFormat !== 'NWC') throw invalid(`conv1d: dataFormat must be 'NWC', got ${describe(dataFormat)}`);
    x = ten(m, x);
    filter = ten(m, filter);
    if (x.rank !== 2 && x.rank !== 3) throw invalid(`conv1d: x must be rank 3 (or 2), got rank ${x.rank}`);
    if (filter.rank !== 3) throw invalid(`conv1d: filter must be rank 3, got rank ${filter.rank}`);
    const x3 = x.rank === 2 ? [1, ...x.shape] : x.shape;
    const x4 = temp(m, ops.reshape(x, [x3[0], 1, x3[1], x3[2]]));
    const f4 = temp(m, ops.reshape(filter, [1, ...filter.shape]));
    const y = temp(m, ops.conv2d(x4, f4, [1, stride], pad, 'NHWC', [1, dilation]));
    return ops.reshape(y, x.rank === 2 ? [y.shape[2], y.shape[3]] : [y.shape[0], y.shape[2], y.shape[3]]);
  });
  // conv2dTranspose(x, filter, outputShape, strides, pad): the gradient of conv2d for its input.
  ops.conv2dTranspose = helper('conv2dTranspose', (m, x, filter, outputShape, strides, pad) => {
    const shape = ints(outputShape, 'conv2dTranspose: outputShape');
    x = ten(m, x);
    if (x.rank !== 3 && x.rank !== 4) throw invalid(`conv2dTranspose: x must be rank 4 (or 3), got rank ${x.rank}`);
    if (shape.length !== x.rank) throw invalid(`conv2dTranspose: outputShape must have rank ${x.rank}, got ${shape.length}`);
    const sizes = x.rank === 3 ? [1, ...shape] : shape;
    const attrs = convAttrs({ strides, pad });
    return batched(m, x, (x4) => {
      const [dy, f] = operands(m, x4, filter);
      return one('Conv2DBackpropInput', [int(m, sizes, 'conv2dTranspose: outputShape'), f, dy], attrs);
    });
  });
  // separableConv2d(x, depthwiseFilter, pointwiseFilter, strides, pad, dilation, dataFormat).
  ops.separableConv2d = helper('separableConv2d', (m, x, depthwiseFilter, pointwiseFilter, strides, pad, dilation = [1, 1], dataFormat = 'NHWC') => {
    const d = temp(m, ops.depthwiseConv2d(x, depthwiseFilter, strides, pad, dataFormat, dilation));
    return ops.conv2d(d, pointwiseFilter, 1, 'valid', dataFormat);
  });
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
      // TF.js refuses avgPool of integers; maxPool keeps their dtype (pooled here in float32, exact).
      if (op === 'AvgPool' && isTensor(x) && x.dtype !== 'float32') throw wrongDtype('x', name, 'float32', x.dtype);
      return batched(m, x, (x4) => {
        const y = one(op, [float(m, x4)], attrs);
        return op === 'MaxPool' && x4.dtype !== 'float32' ? one('Cast', [temp(m, y)], { DstT: x4.dtype }) : y;
      });
    });
  }
  const resize = (op) =>
    helper(jsName(op), (m, images, size, alignCorners = false, halfPixelCenters = false) =>
      batched(m, images, (x4) =>
        one(op, [x4, int(m, size, `${jsName(op)}: size`)], { align_corners: alignCorners, half_pixel_centers: halfPixelCenters }),
      ),
    );
  const image = {
    resizeBilinear: resize('ResizeBilinear'),
    resizeNearestNeighbor: resize('ResizeNearestNeighbor'),
    nonMaxSuppression: helper('nonMaxSuppression', (m, boxes, scores, maxOutputSize, iouThreshold = 0.5, scoreThreshold = -Infinity) =>
      one('NonMaxSuppressionV3', [
        float(m, ten(m, boxes)),
        float(m, ten(m, scores)),
        int(m, maxOutputSize, 'nonMaxSuppression: maxOutputSize', true),
        ten(m, iouThreshold, 'float32'),
        ten(m, scoreThreshold, 'float32'),
      ]),
    ),
    nonMaxSuppressionWithScore: helper(
      'nonMaxSuppressionWithScore',
      (m, boxes, scores, maxOutputSize, iouThreshold = 0.5, scoreThreshold = -Infinity, softNmsSigma = 0) => {
        const [selectedIndices, selectedScores, valid] = all('NonMaxSuppressionV5', [
          float(m, ten(m, boxes)),
          float(m, ten(m, scores)),
          int(m, maxOutputSize, 'nonMaxSuppressionWithScore: maxOutputSize', true),
          ...[iouThreshold, scoreThreshold, softNmsSigma].map((v) => ten(m, v, 'float32')),
        ]);
        valid.dispose();
        return { selectedIndices, selectedScores };
      },
    ),
    cropAndResize: helper('cropAndResize', (m, image, boxes, boxInd, cropSize, method = 'bilinear', extrapolationValue = 0) =>
      one('CropAndResize', [ten(m, image), float(m, ten(m, boxes)), typed(m, boxInd, 'int32', 'boxInd', 'cropAndResize'), int(m, cropSize, 'cropAndResize: cropSize')], {
        method,
        extrapolation_value: extrapolationValue,
      }),
    ),
    flipLeftRight: helper('flipLeftRight', (m, image) => {
      image = ten(m, image);
      if (image.rank !== 4) throw invalid(`flipLeftRight: image must be rank 4, but got rank ${image.rank}`);
      return one('ReverseV2', [image, axisTensor(m, [2])]);
    }),
  };

  /** A number for a tensor of `dtype` as TF.js stores it: truncated toward zero for integers. */
  const valueFor = (v, dtype) => (typeof v === 'number' && INTEGER.has(dtype) && Number.isFinite(v) ? Math.trunc(v) : v);
  /** TF.js's tensor1d..tensor4d: `values` nested to rank n, or flat with a shape of n dims. */
  const tensorN = (n) =>
    function (values, shape, dtype) {
      if (n === 1) [shape, dtype] = [undefined, shape];
      const fn = `tensor${n}d`;
      const rank = inferredRank(values);
      if (n === 1 && rank !== 1) throw invalid('tensor1d() requires values to be a flat/TypedArray');
      if (shape !== undefined && shape !== null) {
        if (!Array.isArray(shape) || shape.length !== n) throw invalid(`${fn}() requires shape to have ${['', 'one', 'two', 'three', 'four'][n]} numbers`);
      }
      if (n > 1 && rank !== n && rank !== 1) throw invalid(`${fn}() requires values to be ${'number' + '[]'.repeat(n)} or flat/TypedArray`);
      if (n > 1 && rank === 1 && (shape === undefined || shape === null)) {
        throw invalid(`${fn}() requires shape to be provided when \`values\` are a flat/TypedArray`);
      }
      return make(values, shape ?? undefined, dtype);
    };

  Object.assign(ops, {
    image,
    resizeBilinear: image.resizeBilinear,
    resizeNearestNeighbor: image.resizeNearestNeighbor,
    clone: ops.identity,
    tensor: (values, shape, dtype) => make(values, shape, dtype),
    scalar: (value, dtype) => {
      if (value !== null && typeof value === 'object') throw invalid('scalar(): the value must be a primitive (a number, boolean or bigint)');
      return make(value, [], dtype);
    },
    tensor1d: tensorN(1),
    tensor2d: tensorN(2),
    tensor3d: tensorN(3),
    tensor4d: tensorN(4),
    matMul: helper('matMul', (m, a, b, transposeA = false, transposeB = false) => {
      if (isOptions(transposeA)) ({ transposeA, transposeB } = transposeA);
      const [ta, tb, d] = operands(m, a, b);
      if (d === 'bool') throw invalid('matMul: a and b are both bool; cast one to int32 or float32 first');
      return ta.rank > 2 || tb.rank > 2
        ? one('BatchMatMulV2', [ta, tb], { adj_x: !!transposeA, adj_y: !!transposeB })
        : one('MatMul', [ta, tb], { transpose_a: !!transposeA, transpose_b: !!transposeB });
    }),
    leakyRelu: helper('leakyRelu', (m, x, alpha = 0.2) => one('LeakyRelu', [float(m, ten(m, x))], { alpha })),
    clipByValue: helper('clipByValue', (m, x, min, max) => {
      x = ten(m, x);
      if (!(min <= max)) throw invalid(`clipByValue: min (${min}) must be less than or equal to max (${max})`);
      // int32 with fractional bounds: TF.js clips the values and truncates the bounds' share.
      const exact = !INTEGER.has(x.dtype) || (Number.isInteger(min) && Number.isInteger(max));
      const v = exact ? x : float(m, x);
      const y = one('ClipByValue', [v, ten(m, min, v.dtype), ten(m, max, v.dtype)]);
      return exact ? y : one('Cast', [temp(m, y)], { DstT: x.dtype });
    }),
    cast: helper('cast', (m, x, dtype) => one('Cast', [ten(m, x)], { DstT: dtype })),
    reshape: helper('reshape', (m, x, shape) => one('Reshape', [ten(m, x), int(m, shape, 'reshape: shape', false, true)])),
    expandDims: helper('expandDims', (m, x, axis = 0) => {
      x = ten(m, x);
      if (int1(axis, 'expandDims: axis') > x.rank) throw invalid('expandDims: axis must be <= rank of the tensor');
      return one('ExpandDims', [x, int(m, axis, 'expandDims: axis', true)]);
    }),
    squeeze: helper('squeeze', (m, x, axis) =>
      one('Squeeze', [ten(m, x)], { squeeze_dims: axis === undefined || axis === null ? [] : ints(axis, 'squeeze: axis') }),
    ),
    transpose: helper('transpose', (m, x, perm) => {
      x = ten(m, x);
      const p = perm === undefined || perm === null ? [...x.shape.keys()].reverse() : ints(perm, 'transpose: perm');
      if (p.length !== x.rank) throw invalid(`transpose: rank of input ${x.rank} must match length of perm ${p}`);
      return one('Transpose', [x, int(m, p, 'transpose: perm')]);
    }),
    // slice(x, begin, size?): begin/size shorter than the rank are padded with 0 / -1 (to the end).
    slice: helper('slice', (m, x, begin, size) => {
      x = ten(m, x);
      const b = ints(begin, 'slice: begin');
      const s = size === undefined || size === null ? [] : ints(size, 'slice: size');
      for (let i = 0; i < x.rank; i++) {
        b[i] ??= 0;
        s[i] ??= -1;
      }
      return one('Slice', [x, int(m, b, 'slice: begin'), int(m, s, 'slice: size')]);
    }),
    stridedSlice: helper('stridedSlice', (m, x, begin, end, strides, beginMask = 0, endMask = 0, ellipsisMask = 0, newAxisMask = 0, shrinkAxisMask = 0) => {
      const b = ints(begin, 'stridedSlice: begin');
      return one('StridedSlice', [ten(m, x), int(m, b, 'stridedSlice: begin'), int(m, end, 'stridedSlice: end'), int(m, strides ?? b.map(() => 1), 'stridedSlice: strides')], {
        begin_mask: beginMask,
        end_mask: endMask,
        ellipsis_mask: ellipsisMask,
        new_axis_mask: newAxisMask,
        shrink_axis_mask: shrinkAxisMask,
      });
    }),
    // TF.js's concat gives tensors[0]'s dtype: the others are cast to it.
    concat: helper('concat', (m, tensors, axis = 0) => {
      const list = Array.from(tensors, (t) => ten(m, t));
      if (list.length === 0) throw invalid('concat: pass at least one tensor to concat');
      const d = list[0].dtype;
      const [a] = axesOf(list[0], int1(axis, 'concat: axis'), 'concat: axis');
      if (list.length === 1) return one('Identity', list);
      return one('ConcatV2', [...list.map((t) => cast(m, t, d)), int(m, a, 'concat: axis', true)]);
    }),
    stack: helper('stack', (m, tensors, axis = 0) => {
      const list = Array.from(tensors, (t) => ten(m, t));
      if (list.length === 0) throw invalid('stack: pass at least one tensor to tf.stack');
      if (list.some((t) => t.dtype !== list[0].dtype)) throw invalid('stack: all tensors passed to stack must have matching dtypes');
      return one('Pack', list, { axis: int1(axis, 'stack: axis') });
    }),
    unstack: helper('unstack', (m, x, axis = 0) => {
      x = ten(m, x);
      const [a] = axesOf(x, int1(axis, 'unstack: axis'), 'unstack: axis');
      return all('Unpack', [x], { num: x.shape[a], axis: a });
    }),
    // split(x, n | sizes, axis): n equal parts, or parts of the given sizes (one may be -1).
    split: helper('split', (m, x, numOrSizeSplits, axis = 0) => {
      x = ten(m, x);
      const [ax] = axesOf(x, int1(axis, 'split: axis'), 'split: axis');
      const a = int(m, ax, 'split: axis', true);
      if (typeof numOrSizeSplits === 'number') return all('Split', [a, x], { num_split: int1(numOrSizeSplits, 'split: numOrSizeSplits') });
      const sizes = ints(numOrSizeSplits, 'split: numOrSizeSplits');
      return all('SplitV', [x, int(m, sizes, 'split: numOrSizeSplits'), a], { num_split: sizes.length });
    }),
    // pad(x, [[before, after], ...], constantValue)
    pad: helper('pad', (m, x, paddings, constantValue = 0) => {
      x = ten(m, x);
      const p = paddingsTensor(m, paddings, 'pad: paddings');
      return one('PadV2', [x, p, ten(m, valueFor(constantValue, x.dtype), x.dtype)]);
    }),
    mirrorPad: helper('mirrorPad', (m, x, paddings, mode) => {
      const p = paddingsTensor(m, paddings, 'mirrorPad: paddings');
      return one('MirrorPad', [ten(m, x), p], { mode: upper(mode) });
    }),
    tile: helper('tile', (m, x, reps) => one('Tile', [ten(m, x), int(m, reps, 'tile: reps', false, true)])),
    broadcastTo: helper('broadcastTo', (m, x, shape) => one('BroadcastTo', [ten(m, x), int(m, shape, 'broadcastTo: shape', false, true)])),
    reverse: helper('reverse', (m, x, axis) => {
      x = ten(m, x);
      return one('ReverseV2', [x, axisTensor(m, axesOf(x, axis, 'reverse: axis'))]);
    }),
    gather: helper('gather', (m, x, indices, axis = 0, batchDims = 0) => {
      x = ten(m, x);
      const [a] = axesOf(x, int1(axis, 'gather: axis'), 'gather: axis');
      return one('GatherV2', [x, typed(m, indices, 'int32', 'indices', 'gather'), int(m, a, 'gather: axis', true)], {
        batch_dims: int1(batchDims, 'gather: batchDims'),
      });
    }),
    gatherND: helper('gatherND', (m, x, indices) => one('GatherNd', [ten(m, x), typed(m, indices, 'int32', 'indices', 'gatherND')])),
    where: helper('where', (m, condition, a, b) => {
      const c = typed(m, condition, 'bool', 'condition', 'where');
      const [ta, tb] = operands(m, a, b);
      return one('SelectV2', [c, ta, tb]);
    }),
    oneHot: helper('oneHot', (m, indices, depth, onValue = 1, offValue = 0, dtype = 'int32') => {
      if (int1(depth, 'oneHot: depth') < 2) throw invalid(`oneHot: depth must be >=2, but it is ${depth}`);
      const i = typed(m, indices, 'int32', 'indices', 'oneHot');
      return one('OneHot', [i, int(m, depth, 'oneHot: depth', true), ten(m, valueFor(onValue, dtype), dtype), ten(m, valueFor(offValue, dtype), dtype)], {
        axis: -1,
      });
    }),
    topk: helper('topk', (m, x, k = 1, sorted = true) => {
      const [values, indices] = all('TopKV2', [ten(m, x), int(m, k, 'topk: k', true)], { sorted: !!sorted });
      return { values, indices };
    }),
    unique: helper('unique', (m, x, axis = 0) => {
      x = ten(m, x);
      const [a] = axesOf(x, int1(axis, 'unique: axis'), 'unique: axis');
      const [values, indices] =
        x.rank === 1 ? all('Unique', [x], { out_idx: 'int32' }) : all('UniqueV2', [x, axisTensor(m, [a])], { out_idx: 'int32' });
      return { values, indices };
    }),
    addN: helper('addN', (m, tensors) => {
      const list = Array.from(tensors, (t) => ten(m, t));
      if (list.length === 0) throw invalid('addN: must pass at least one tensor to tf.addN()');
      if (list.some((t) => t.dtype !== list[0].dtype)) throw invalid('addN: all tensors passed to tf.addN() must have the same dtype');
      return one('AddN', list);
    }),
    einsum: helper('einsum', (m, equation, ...tensors) => {
      const list = tensors.map((t) => ten(m, t));
      const d = list.reduce((acc, t) => wider(acc, t.dtype), 'bool');
      if (d === 'float32' || d === 'bool') return one('Einsum', list.map((t) => cast(m, t, d)), { equation });
      // The runtime's Einsum is float32 only: integers are summed in float32 (exact below 2^24).
      const y = temp(m, one('Einsum', list.map((t) => float(m, t)), { equation }));
      return one('Cast', [y], { DstT: d });
    }),
    depthToSpace: helper('depthToSpace', (m, x, blockSize, dataFormat = 'NHWC') =>
      one('DepthToSpace', [ten(m, x)], { block_size: int1(blockSize, 'depthToSpace: blockSize'), data_format: dataFormat }),
    ),
    fill: helper('fill', (m, shape, value, dtype) => {
      const d = dtype ?? (typeof value === 'boolean' ? 'bool' : typeof value === 'bigint' ? 'int64' : 'float32');
      return one('Fill', [int(m, shape, 'fill: shape', false, true), ten(m, valueFor(value, d), d)]);
    }),
    zeros: (shape, dtype = 'float32') => ops.fill(shape, 0, dtype),
    ones: (shape, dtype = 'float32') => ops.fill(shape, 1, dtype),
    // range(start, stop, step = 1, dtype = 'float32') as TF.js's: empty where the step leads away
    // from stop, a step of 1 counts down when stop < start.
    range: helper('range', (m, start, stop, step = 1, dtype = 'float32') => {
      if (step === 0) throw invalid('range: cannot have a step of zero');
      if (start === stop || (start < stop && step < 0) || (stop < start && step > 1)) return ctx.tensor([], [0], dtype);
      if (stop < start && step === 1) step = -1;
      if (dtype === 'int32' && ![start, stop, step].every(Number.isInteger)) {
        // Fractional bounds: TF.js adds the step to the previous (truncated) value, in an Int32Array.
        const values = new Int32Array(Math.abs(Math.ceil((stop - start) / step)));
        values[0] = start;
        for (let i = 1; i < values.length; i++) values[i] = values[i - 1] + step;
        return ctx.tensor(values, [values.length], 'int32');
      }
      return one('Range', [start, stop, step].map((v) => ten(m, v, dtype)));
    }),
    linspace: helper('linspace', (m, start, stop, num) => {
      if (int1(num, 'linspace: num') === 0) throw invalid('linspace: cannot request zero samples');
      return one('LinSpace', [ten(m, start, 'float32'), ten(m, stop, 'float32'), int(m, num, 'linspace: num', true)]);
    }),
    // batchNorm(x, mean, variance, offset?, scale?, varianceEpsilon = 0.001)
    batchNorm: helper('batchNorm', (m, x, mean, variance, offset, scale, varianceEpsilon = 0.001) => {
      const xt = ten(m, x);
      const mt = ten(m, mean);
      const vt = ten(m, variance);
      if (mt.rank !== vt.rank) throw invalid('batchNorm: mean and variance must have equal ranks');
      const inv = temp(m, ops.rsqrt(temp(m, ops.add(vt, varianceEpsilon))));
      let y = temp(m, ops.mul(temp(m, ops.sub(xt, mt)), scale === undefined || scale === null ? inv : temp(m, ops.mul(inv, ten(m, scale)))));
      if (offset !== undefined && offset !== null) y = temp(m, ops.add(y, ten(m, offset)));
      m.splice(m.indexOf(y), 1);
      return y;
    }),
    // moments(x, axis = null, keepDims = false): { mean, variance } over axis, as TF.js computes them.
    moments: helper('moments', (m, x, axis = null, keepDims = false) => {
      x = ten(m, x);
      const axes = axesOf(x, axis, 'moments: axis');
      const mean = ops.mean(x, axes, keepDims);
      try {
        const shape = keepDims ? mean.shape : keepDimShape(mean.shape, axes);
        const centred = temp(m, ops.sub(float(m, x), temp(m, ops.reshape(mean, shape))));
        const variance = ops.mean(temp(m, ops.square(centred)), axes, keepDims);
        return { mean, variance };
      } catch (e) {
        mean.dispose();
        throw e;
      }
    }),
    // norm(x, ord = 'euclidean', axis = null, keepDims = false), as TF.js's normImpl.
    norm: helper('norm', (m, x, ord = 'euclidean', axis = null, keepDims = false) => {
      x = ten(m, x);
      const axes = axis === null || axis === undefined ? null : axesOf(x, axis, 'norm: axis');
      const t = (y) => temp(m, y);
      const bad = () => invalid(`norm: invalid ord value: ${String(ord)}`);
      let n;
      if (x.rank === 0) n = t(ops.abs(x));
      else if (axes === null || axes.length === 1) {
        const v = axes === null ? t(ops.reshape(x, [-1])) : x;
        const ax = axes === null ? 0 : axes[0];
        if (ord === 1) n = t(ops.sum(t(ops.abs(v)), ax));
        else if (ord === Infinity) n = t(ops.max(t(ops.abs(v)), ax));
        else if (ord === -Infinity) n = t(ops.min(t(ops.abs(v)), ax));
        else if (ord === 'euclidean' || ord === 2) n = t(ops.sqrt(t(ops.sum(t(ops.square(v)), ax))));
        else throw bad();
      } else if (axes.length === 2) {
        const [a0, a1] = axes;
        if (ord === 1) n = t(ops.max(t(ops.sum(t(ops.abs(x)), a0)), a1 - 1));
        else if (ord === Infinity) n = t(ops.max(t(ops.sum(t(ops.abs(x)), a1)), a0));
        else if (ord === -Infinity) n = t(ops.min(t(ops.sum(t(ops.abs(x)), a1)), a0));
        else if (ord === 'fro' || ord === 'euclidean') n = t(ops.sqrt(t(ops.sum(t(ops.square(x)), axes))));
        else throw bad();
      } else throw invalid(`norm: invalid axis: ${axis}`);
      const shape = keepDims ? keepDimShape(n.shape, axes ?? [...x.shape.keys()]) : n.shape;
      return ops.reshape(n, shape);
    }),
    // logSumExp(x, axis = null, keepDims = false): max + log(sum(exp(x - max))), as TF.js.
    logSumExp: helper('logSumExp', (m, x, axis = null, keepDims = false) => {
      x = ten(m, x);
      if (x.dtype === 'bool') x = float(m, x);
      const axes = axesOf(x, axis, 'logSumExp: axis');
      const t = (y) => temp(m, y);
      const xMax = t(ops.max(x, axes, true));
      const d = t(ops.log(t(ops.sum(t(ops.exp(t(ops.sub(x, xMax)))), axes))));
      const res = t(ops.add(t(ops.reshape(xMax, d.shape)), d));
      return ops.reshape(res, keepDims ? keepDimShape(res.shape, axes) : res.shape);
    }),
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
const define = (name, fn) => {
  Tensor.prototype[name] = fn;
};
for (const name of Object.keys(makeOps({ tensor: null }))) {
  if (NOT_METHODS.has(name) || name in Tensor.prototype) continue;
  define(name, function (...args) {
    return opsOf(this, name)[name](this, ...args);
  });
}
for (const name of ['concat', 'stack']) {
  define(name, function (x, axis) {
    const ops = opsOf(this, name);
    let list;
    try {
      list = [this, ...(Array.isArray(x) ? x : [x])];
    } catch (e) {
      throw invalid(`${name}: the arguments could not be read: ${messageOf(e)}`, e);
    }
    return ops[name](list, axis);
  });
}
// TF.js's methods that are not ops of their own.
define('where', function (condition, b) {
  return opsOf(this, 'where').where(condition, this, b);
});
define('flatten', function () {
  return opsOf(this, 'flatten').reshape(this, [this.size]);
});
define('asType', function (dtype) {
  return opsOf(this, 'asType').cast(this, dtype);
});
for (const [name, dtype] of [['toFloat', 'float32'], ['toInt', 'int32'], ['toBool', 'bool']]) {
  define(name, function () {
    return opsOf(this, name).cast(this, dtype);
  });
}
define('asScalar', function () {
  if (this.size !== 1) throw invalid('asScalar: the array must have only 1 element');
  return opsOf(this, 'asScalar').reshape(this, []);
});
define('as1D', function () {
  return opsOf(this, 'as1D').reshape(this, [this.size]);
});
define('as2D', function (rows, columns) {
  return opsOf(this, 'as2D').reshape(this, [rows, columns]);
});
define('as3D', function (rows, columns, depth) {
  return opsOf(this, 'as3D').reshape(this, [rows, columns, depth]);
});
define('as4D', function (rows, columns, depth, depth2) {
  return opsOf(this, 'as4D').reshape(this, [rows, columns, depth, depth2]);
});
define('reshapeAs', function (x) {
  return opsOf(this, 'reshapeAs').reshape(this, x.shape);
});
