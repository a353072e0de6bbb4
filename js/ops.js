// Op ids by name, and ctx.ops: typed helpers over execute for the everyday ops.

import { opId } from './eager_wasm.js';
import { EagerError, callWasm } from './errors.js';
import { readFirst } from './io.js';
import { invalid, messageOf } from './snapshot.js';
import { handleOf } from './tensor.js';

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

/** An Int32Array of `values` (an array of integers) for a helper's shape/axes/perm input. */
function ints(values, op) {
  try {
    return Int32Array.from(values, (x) => {
      if (typeof x !== 'number' || (x | 0) !== x) throw invalid(`${op}: expected int32 integers, got ${typeof x === 'number' ? x : typeof x}`);
      return x;
    });
  } catch (e) {
    throw e instanceof EagerError ? e : invalid(`${op}: expected an array of integers: ${messageOf(e)}`, e);
  }
}

/** A helper's attrs from its options object; a failed read (getter, Proxy) is InvalidArgument. */
function options(op, read) {
  try {
    return read();
  } catch (e) {
    throw e instanceof EagerError ? e : invalid(`${op}: the options could not be read: ${messageOf(e)}`, e);
  }
}

function pair(v, name) {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return [1, v, v, 1];
  if (Array.isArray(v) && v.length === 2) return [1, v[0], v[1], 1];
  if (Array.isArray(v) && v.length === 4) return v;
  throw new EagerError('InvalidArgument', `${name} must be a number, [h, w] or [1, h, w, 1]`);
}

export function makeOps(ctx) {
  // Every helper's op has one output: skip the outputs array.
  const one = (op, inputs, attrs) => readFirst(ctx, ctx._run(opIdOf(op), op, inputs, attrs));
  const unary = (op) => (x) => one(op, [x]);
  const binary = (op) => (a, b) => one(op, [a, b]);
  const withIntTensor = (op, x, values) => {
    const t = ctx.tensor(ints(values, op), undefined, 'int32');
    try {
      return one(op, [x, t]);
    } finally {
      t.dispose();
    }
  };
  const conv = (op) => (x, filter, o = {}) =>
    one(
      op,
      [x, filter],
      options(op, () => ({
        strides: pair(o.strides ?? 1, 'strides'),
        padding: o.padding ?? 'VALID',
        dilations: pair(o.dilations, 'dilations'),
        explicit_paddings: o.explicitPaddings,
        data_format: o.dataFormat,
      })),
    );
  const pool = (op) => (x, o = {}) =>
    one(
      op,
      [x],
      options(op, () => ({
        ksize: pair(o.filterSize ?? o.ksize ?? 2, 'filterSize'),
        strides: pair(o.strides ?? o.filterSize ?? 2, 'strides'),
        padding: o.padding ?? 'VALID',
        data_format: o.dataFormat,
      })),
    );
  return {
    matMul: (a, b, o = {}) => one('MatMul', [a, b], { transpose_a: o.transposeA, transpose_b: o.transposeB }),
    conv2d: conv('Conv2D'),
    depthwiseConv2d: conv('DepthwiseConv2dNative'),
    maxPool: pool('MaxPool'),
    avgPool: pool('AvgPool'),
    add: binary('AddV2'),
    sub: binary('Sub'),
    mul: binary('Mul'),
    div: binary('RealDiv'),
    maximum: binary('Maximum'),
    minimum: binary('Minimum'),
    pow: binary('Pow'),
    biasAdd: binary('BiasAdd'),
    relu: unary('Relu'),
    relu6: unary('Relu6'),
    sigmoid: unary('Sigmoid'),
    tanh: unary('Tanh'),
    exp: unary('Exp'),
    log: unary('Log'),
    sqrt: unary('Sqrt'),
    neg: unary('Neg'),
    abs: unary('Abs'),
    softmax: unary('Softmax'),
    identity: unary('Identity'),
    leakyRelu: (x, alpha = 0.2) => one('LeakyRelu', [x], { alpha }),
    cast: (x, dtype) => one('Cast', [x], { DstT: dtype }),
    reshape: (x, shape) => withIntTensor('Reshape', x, shape),
    transpose: (x, perm) =>
      withIntTensor('Transpose', x, perm ?? (handleOf(x) === undefined ? [] : [...x.shape.keys()].reverse())),
    sum: (x, axes, keepDims = false) => {
      const t = ctx.tensor(ints(axes, 'Sum'), undefined, 'int32');
      try {
        return one('Sum', [x, t], { keep_dims: keepDims });
      } finally {
        t.dispose();
      }
    },
  };
}

