// ctx.ops and the chainable Tensor methods against TF.js 4.22 itself (tfjs-core with its CPU
// backend, and TF.js's own chained-op methods): every helper and method runs on the same inputs in
// both, and the results must agree in dtype, shape and values (float32 within a float tolerance),
// or both must throw. int32/float32/bool operand mixes, JS numbers and arrays as operands, the axis
// forms (number, array, negative, none) and keepDims are covered. Where eager-wasm differs on
// purpose, DEVIATIONS says where and why, and the case is checked against what eager-wasm does
// instead; every entry there must be needed by some case.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { api, root, throwsCode } from './helpers.mjs';

const { EagerContext, EagerError, Tensor } = api;

/**
 * TF.js (CommonJS builds; Node's ESM cannot load tfjs-core's extensionless ESM files) on the CPU
 * backend, with the chained-op methods TF.js's union package registers (t.add(...), t.flatten(), ...):
 * their source files, with each import bound to the same export of the loaded core.
 */
async function loadTfjs() {
  const require = createRequire(join(root, 'package.json'));
  const tf = require('@tensorflow/tfjs-core/dist/tf-core.node.js');
  require('@tensorflow/tfjs-backend-cpu/dist/tf-backend-cpu.node.js');
  const dir = join(dirname(require.resolve('@tensorflow/tfjs-core/package.json')), 'dist/public/chained_ops');
  const scope = { ...tf.image, ...tf, getGlobalTensorClass: () => tf.Tensor, assert: tf.util.assert };
  for (const f of readdirSync(dir)) {
    if (!f.endsWith('.js') || f.includes('_test') || f.startsWith('register_all')) continue;
    const src = readFileSync(join(dir, f), 'utf8').replace(/^import \{([^}]*)\} from '[^']*';$/gm, 'const {$1} = scope;');
    new Function('scope', src)(scope);
  }
  const log = console.log;
  const warn = console.warn;
  console.log = console.warn = () => {}; // TF.js's advice to install tfjs-node
  try {
    await tf.setBackend('cpu');
  } finally {
    console.log = log;
    console.warn = warn;
  }
  return tf;
}
const tf = await loadTfjs();

// Inputs, made by `o` (TF.js's tf or ctx.ops: both have tensor()).
const F = (o) => o.tensor([[-1.5, 0, 2], [3.25, -4, 5]]);
const I = (o) => o.tensor([[-1, 0, 2], [3, -4, 5]], undefined, 'int32');
const B = (o) => o.tensor([[true, false, true], [false, false, true]]);
/** Divisors without zeros. */
const F2 = (o) => o.tensor([[2, -1.5, 3], [0.5, 4, -2]]);
const I2 = (o) => o.tensor([[2, -3, 1], [4, 2, -1]], undefined, 'int32');
/** In each unary op's domain. */
const UNIT = (o) => o.tensor([[-0.5, 0, 0.25], [0.75, -0.9, 0.1]]);
const POS = (o) => o.tensor([[0.5, 1, 2], [3, 4.5, 6]]);
const GE1 = (o) => o.tensor([[1, 1.5, 2], [3, 4.5, 6]]);
const IPOS = (o) => o.tensor([[1, 2, 3], [4, 5, 6]], undefined, 'int32');
const IMG = (o) => o.tensor(Float32Array.from({ length: 2 * 4 * 4 * 3 }, (_, i) => Math.sin(i) * 2), [2, 4, 4, 3]);
const FILTER = (o) => o.tensor(Float32Array.from({ length: 2 * 2 * 3 * 2 }, (_, i) => Math.cos(i)), [2, 2, 3, 2]);

const DOMAIN = { acos: UNIT, asin: UNIT, atanh: UNIT, acosh: GE1, log: POS, sqrt: POS, rsqrt: POS, log1p: POS, reciprocal: POS };
const INT_DOMAIN = { acosh: IPOS, log: IPOS, sqrt: IPOS, rsqrt: IPOS, log1p: IPOS, reciprocal: IPOS };
const UNARY =
  'abs acos acosh asin asinh atan atanh ceil cos cosh elu erf exp expm1 floor log log1p neg reciprocal relu relu6 ' +
  'round rsqrt selu sigmoid sign sin sinh softplus sqrt square tan tanh isFinite isInf isNaN logicalNot onesLike ' +
  'zerosLike clone';
const FLOAT_MATH = 'acos acosh asin asinh atan atanh cos cosh elu erf exp expm1 log log1p reciprocal rsqrt selu sigmoid sin sinh softplus sqrt tan tanh';
const BINARY =
  'add sub mul div floorDiv mod pow maximum minimum squaredDifference atan2 divNoNan equal notEqual greater ' +
  'greaterEqual less lessEqual logicalAnd logicalOr logicalXor prelu';
const ARITHMETIC = 'add sub mul div floorDiv mod pow squaredDifference atan2 divNoNan';

/**
 * Where eager-wasm differs from TF.js on purpose: [cases (a RegExp on the label), why, what eager-wasm
 * gives instead: a TF.js call giving the same, or 'throws'].
 */
const INTEGER_LIKE = '(int32|bool|true|Int32Array|2)';
const DEVIATIONS = [
  [
    new RegExp(`^(${FLOAT_MATH.replaceAll(' ', '|')})\\((int32|bool)\\)$`),
    'float math on int32 or bool: TF.js refuses most of it (log, sqrt, sin, ...) and truncates the rest into ' +
      'int32 or bool on the CPU backend (acos(-1) = 3); eager-wasm computes it in float32, as TF.js does for exp',
    'float32',
  ],
  [/^(ceil|floor)\((int32|bool)\)$/, 'TF.js refuses ceil/floor of integers; eager-wasm returns them unchanged', 'same'],
  [
    new RegExp(`^atan2\\(${INTEGER_LIKE}, ?${INTEGER_LIKE}\\)$|^x\\.atan2\\(y\\) (int32|bool)$`),
    'atan2 of integers: TF.js truncates the angle into int32 (or bool); eager-wasm gives float32',
    'float32',
  ],
  [/^logSumExp\(bool,/, 'logSumExp of bool: TF.js subtracts bools (NaN results); eager-wasm computes it on 0/1 in float32', 'float32'],
  [
    new RegExp(`^(${ARITHMETIC.replaceAll(' ', '|')}|matMul)\\((bool|true), ?(bool|true)\\)$|^x\\.(${ARITHMETIC.replaceAll(' ', '|')})\\(y\\) bool$`),
    'arithmetic on two bool operands: TF.js returns a bool tensor holding values other than 0 and 1 (true + true = 2); ' +
      'eager-wasm refuses it (InvalidArgument: cast one operand first)',
    'throws',
  ],
  [
    /\(axis (true|a Date|1\.5)\)$/,
    'an axis that is a boolean, a Date or a fraction: TF.js coerces it to a number (true is 1); eager-wasm refuses it, naming the argument',
    'throws',
  ],
  [
    /^tensor int32 from fractions$/,
    'a tensor of int32 from fractions: TF.js truncates them; eager-wasm makes every tensor from values converted exactly or refused (InvalidArgument)',
    'throws',
  ],
  [
    /^topk int32 k 3 unsorted$/,
    "topk with sorted = false: the k values' order is unspecified (TF.js's CPU keeps its selection's order); eager-wasm returns them sorted",
    'alt',
  ],
  [/^depthwiseConv2d NCHW$/, "depthwiseConv2d with dataFormat 'NCHW': TF.js's CPU backend reads the input as NHWC; eager-wasm honours NCHW", 'alt'],
  [/^max of an empty axis$/, "max over an empty axis: TF.js's CPU reads past the data (NaN); eager-wasm gives TF's -Infinity", 'alt'],
  [/^(cumsum|cumprod)\(\w+, -1/, "a negative axis in cumsum/cumprod: TF.js's CPU kernel returns a malformed shape ([,2]); eager-wasm counts it from the end", 'alt'],
  [
    /^conv2d numeric pad, unequal strides$/,
    'conv2d with a numeric pad and unequal strides: TF.js sizes the output width with the height stride; eager-wasm uses each dim\'s stride (as TF.js does for explicit pads)',
    'alt',
  ],
];

/** The cases: [label, fn(o) -> result] (o is tf or ctx.ops); a result is a Tensor, an array or an object of them. */
const CASES = [];
const add = (label, fn, alt) => CASES.push([label, fn, alt]);

for (const op of UNARY.split(' ')) {
  add(`${op}(float32)`, (o) => o[op]((DOMAIN[op] ?? F)(o)));
  add(`${op}(int32)`, (o) => o[op]((INT_DOMAIN[op] ?? I)(o)));
  add(`${op}(bool)`, (o) => o[op](B(o)));
  add(`x.${op}()`, (o) => (DOMAIN[op] ?? F)(o)[op]());
  add(`${op}(JS array)`, (o) => o[op]([0.25, 0.5]));
}
const DTYPED = { float32: [F, F2], int32: [I, I2], bool: [B, B] };
for (const op of BINARY.split(' ')) {
  for (const [da, [xa]] of Object.entries(DTYPED)) {
    for (const [db, [, xb]] of Object.entries(DTYPED)) add(`${op}(${da}, ${db})`, (o) => o[op](xa(o), xb(o)));
    for (const [js, v] of [['2', 2], ['1.5', 1.5], ['true', true], ['[1, 2, 3]', [1, 2, 3]], ['Int32Array', new Int32Array([1, 2, 3])]]) {
      add(`${op}(${da}, ${js})`, (o) => o[op](xa(o), v));
      add(`${op}(${js}, ${da})`, (o) => o[op](v, xa(o)));
    }
    add(`x.${op}(y) ${da}`, (o) => xa(o)[op](DTYPED[da][1](o)));
  }
}
add('div(fromPixels-like int32, 255)', (o) => o.div(o.tensor([[0, 128, 255]], undefined, 'int32'), 255));
add('int32 / int32 by zero', (o) => o.div(I(o), o.zerosLike(I(o))));
add('divNoNan(float32, 0)', (o) => o.divNoNan(F(o), o.zerosLike(F(o))));
add('mod(int32, 0)', (o) => o.mod(I(o), o.zerosLike(I(o))));
add('add broadcasting [2, 1] and [3]', (o) => o.add(o.tensor([[1], [2]]), o.tensor([10, 20, 30])));

const AXES = [['none', undefined], ['null', null], ['0', 0], ['1', 1], ['-1', -1], ['[0, 1]', [0, 1]], ['[-1]', [-1]], ['[]', []], ['[1, 0]', [1, 0]]];
for (const op of ['sum', 'mean', 'max', 'min', 'prod', 'all', 'any', 'logSumExp']) {
  for (const [dt, x] of [['float32', F], ['int32', I], ['bool', B]]) {
    for (const [an, axis] of AXES) {
      for (const keepDims of [false, true]) add(`${op}(${dt}, axis ${an}, keepDims ${keepDims})`, (o) => o[op](x(o), axis, keepDims));
    }
  }
  add(`x.${op}(1, true)`, (o) => F(o)[op](1, true));
}
for (const op of ['argMax', 'argMin']) {
  for (const [dt, x] of [['float32', F], ['int32', I], ['bool', B]]) {
    for (const [an, axis] of [['none', undefined], ['0', 0], ['1', 1], ['-1', -1]]) add(`${op}(${dt}, axis ${an})`, (o) => o[op](x(o), axis));
  }
  add(`x.${op}(1)`, (o) => F(o)[op](1));
}
for (const op of ['cumsum', 'cumprod']) {
  for (const [dt, x] of [['float32', F], ['int32', I], ['bool', B]]) {
    for (const [axis, exclusive, reverse] of [[undefined], [1], [-1, true], [0, false, true], [1, true, true]]) {
      add(`${op}(${dt}, ${axis}, ${exclusive}, ${reverse})`, (o) => o[op](x(o), axis, exclusive, reverse), (o) => o[op](x(o), axis < 0 ? axis + 2 : axis, exclusive, reverse));
    }
  }
  add(`x.${op}(1)`, (o) => F(o)[op](1));
}
// Axes and shapes that are not integers: both throw (eager-wasm naming the argument: see below).
for (const [name, v] of [['1n', 1n], ['true', true], ['{}', {}], ['a Date', new Date(0)], ['1.5', 1.5], ['5', 5]]) {
  add(`sum(axis ${name})`, (o) => o.sum(F(o), v));
  add(`x.sum(axis ${name})`, (o) => F(o).sum(v));
  add(`reverse(axis ${name})`, (o) => o.reverse(F(o), v));
  add(`mean(axis ${name})`, (o) => o.mean(F(o), v));
  add(`argMax(axis ${name})`, (o) => o.argMax(F(o), v));
  add(`expandDims(axis ${name})`, (o) => o.expandDims(F(o), v));
  add(`zeros(shape ${name})`, (o) => o.zeros(v));
  add(`fill(shape ${name})`, (o) => o.fill(v, 7));
}

// Shapes and structure.
const SHAPES = [
  ['reshape', (o) => o.reshape(F(o), [3, 2])],
  ['reshape -1', (o) => o.reshape(I(o), [-1])],
  ['x.reshape', (o) => F(o).reshape([1, 6])],
  ['expandDims', (o) => o.expandDims(F(o))],
  ['expandDims 2', (o) => o.expandDims(F(o), 2)],
  ['expandDims -1', (o) => o.expandDims(I(o), -1)],
  ['x.expandDims(1)', (o) => B(o).expandDims(1)],
  ['squeeze', (o) => o.squeeze(o.reshape(F(o), [1, 2, 1, 3]))],
  ['squeeze [2]', (o) => o.squeeze(o.reshape(F(o), [1, 2, 1, 3]), [2])],
  ['x.squeeze', (o) => o.reshape(F(o), [1, 6]).squeeze()],
  ['slice begin only', (o) => o.slice(F(o), [0, 1])],
  ['slice number begin and size', (o) => o.slice(F(o), 1, [1])],
  ['slice size -1', (o) => o.slice(I(o), [0, 1], [-1, 1])],
  ['x.slice', (o) => F(o).slice([1, 0], [1, 2])],
  ['stridedSlice', (o) => o.stridedSlice(F(o), [0, 0], [2, 3], [1, 2])],
  ['stridedSlice masks', (o) => o.stridedSlice(F(o), [1, 0], [2, 3], [1, 1], 1, 0, 0, 0, 1)],
  ['x.stridedSlice', (o) => F(o).stridedSlice([0, 2], [2, 0], [1, -1])],
  ['transpose', (o) => o.transpose(F(o))],
  ['transpose perm', (o) => o.transpose(o.reshape(F(o), [1, 2, 3]), [2, 0, 1])],
  ['transpose bad perm', (o) => o.transpose(F(o), [1, 0, 2])],
  ['x.transpose', (o) => I(o).transpose()],
  ['concat axis 0', (o) => o.concat([F(o), F2(o)])],
  ['concat axis 1', (o) => o.concat([F(o), F2(o)], 1)],
  ['concat axis -1', (o) => o.concat([I(o), I2(o)], -1)],
  ['concat int32 then float32', (o) => o.concat([I(o), F2(o)])],
  ['concat float32 then int32', (o) => o.concat([F(o), I2(o)])],
  ['concat int32 then a JS array', (o) => o.concat([I(o), [[1.5, 2, 3]]])],
  ['concat one tensor', (o) => o.concat([F(o)])],
  ['concat nothing', (o) => o.concat([])],
  ['x.concat(y)', (o) => F(o).concat(F2(o))],
  ['x.concat([y, z], 1)', (o) => F(o).concat([F2(o), F(o)], 1)],
  ['stack', (o) => o.stack([F(o), F2(o)])],
  ['stack axis 1', (o) => o.stack([F(o), F2(o)], 1)],
  ['stack with a JS array', (o) => o.stack([F(o), [[1, 2, 3], [4, 5, 6]]])],
  ['stack mixed dtypes', (o) => o.stack([I(o), F(o)])],
  ['x.stack(y)', (o) => I(o).stack(I2(o))],
  ['unstack', (o) => o.unstack(F(o))],
  ['unstack axis 1', (o) => o.unstack(I(o), 1)],
  ['unstack axis -1', (o) => o.unstack(I(o), -1)],
  ['x.unstack', (o) => B(o).unstack()],
  ['split 3 on axis 1', (o) => o.split(F(o), 3, 1)],
  ['split sizes', (o) => o.split(F(o), [1, 2], 1)],
  ['split sizes with -1', (o) => o.split(I(o), [1, -1], -1)],
  ['x.split', (o) => F(o).split(2)],
  ['pad', (o) => o.pad(F(o), [[1, 0], [0, 2]])],
  ['pad constant', (o) => o.pad(F(o), [[1, 0], [0, 2]], 9)],
  ['pad int32 with 1.5', (o) => o.pad(I(o), [[0, 0], [1, 0]], 1.5)],
  ['x.pad', (o) => I(o).pad([[0, 1], [1, 1]])],
  ['mirrorPad reflect', (o) => o.mirrorPad(F(o), [[1, 1], [1, 1]], 'reflect')],
  ['mirrorPad symmetric', (o) => o.mirrorPad(I(o), [[0, 1], [2, 0]], 'symmetric')],
  ['x.mirrorPad', (o) => F(o).mirrorPad([[1, 0], [0, 1]], 'reflect')],
  ['tile', (o) => o.tile(F(o), [2, 1])],
  ['x.tile', (o) => B(o).tile([1, 2])],
  ['broadcastTo', (o) => o.broadcastTo(o.tensor([1, 2, 3]), [2, 3])],
  ['x.broadcastTo', (o) => o.tensor([[1], [2]], undefined, 'int32').broadcastTo([2, 4])],
  ['reverse all', (o) => o.reverse(F(o))],
  ['reverse 1', (o) => o.reverse(F(o), 1)],
  ['reverse [-1, 0]', (o) => o.reverse(I(o), [-1, 0])],
  ['x.reverse', (o) => F(o).reverse(0)],
  ['gather', (o) => o.gather(F(o), [1, 0, 1])],
  ['gather axis 1', (o) => o.gather(F(o), [2, 0], 1)],
  ['gather axis -1 int32 tensor indices', (o) => o.gather(I(o), o.tensor([2, 2], undefined, 'int32'), -1)],
  ['gather float indices', (o) => o.gather(F(o), o.tensor([1]))],
  ['gather batchDims', (o) => o.gather(F(o), o.tensor([[0, 2], [1, 1]], undefined, 'int32'), 1, 1)],
  ['x.gather', (o) => F(o).gather([1])],
  ['gatherND', (o) => o.gatherND(F(o), [[1, 2], [0, 0]])],
  ['gatherND rows', (o) => o.gatherND(I(o), o.tensor([[1]], undefined, 'int32'))],
  ['where', (o) => o.where(B(o), F(o), F2(o))],
  ['where int32 and float32', (o) => o.where(B(o), I(o), F2(o))],
  ['where with a JS number', (o) => o.where(B(o), I(o), 0)],
  ['where JS condition', (o) => o.where([[1, 0, 1], [0, 0, 1]], F(o), F2(o))],
  ['where int32 condition', (o) => o.where(I(o), F(o), F2(o))],
  ['x.where(cond, y)', (o) => F(o).where(B(o), F2(o))],
  ['oneHot', (o) => o.oneHot([0, 2], 3)],
  ['oneHot on/off', (o) => o.oneHot(o.tensor([1, 0], undefined, 'int32'), 4, 5, -1)],
  ['oneHot float32', (o) => o.oneHot(o.tensor([1, 0], undefined, 'int32'), 3, 1, 0, 'float32')],
  ['oneHot float indices', (o) => o.oneHot(o.tensor([1, 0]), 3)],
  ['x.oneHot', (o) => o.tensor([2, 1], undefined, 'int32').oneHot(3)],
  ['topk', (o) => o.topk(F(o))],
  ['topk k 2', (o) => o.topk(I(o), 2)],
  ['x.topk', (o) => F(o).topk(3)],
  ['unique', (o) => o.unique([3, 1, 3, 2, 1])],
  ['unique int32', (o) => o.unique(o.tensor([3, 1, 3], undefined, 'int32'))],
  ['unique rows', (o) => o.unique(o.tensor([[1, 2], [1, 2], [3, 4]]), 0)],
  ['unique columns', (o) => o.unique(o.tensor([[1, 1, 2], [3, 3, 4]]), 1)],
  ['x.unique', (o) => o.tensor([true, false, true]).unique()],
  ['cast float32 to int32', (o) => o.cast(o.tensor([-1.7, 1.7, 2.5]), 'int32')],
  ['cast to bool', (o) => o.cast(F(o), 'bool')],
  ['cast bool to float32', (o) => o.cast(B(o), 'float32')],
  ['x.cast', (o) => I(o).cast('float32')],
  ['clipByValue', (o) => o.clipByValue(F(o), -1, 2.5)],
  ['clipByValue int32', (o) => o.clipByValue(I(o), 0, 2)],
  ['clipByValue int32 by fractions', (o) => o.clipByValue(I(o), 0.5, 2.5)],
  ['clipByValue min > max', (o) => o.clipByValue(F(o), 3, 2)],
  ['x.clipByValue', (o) => F(o).clipByValue(0, 1)],
  ['leakyRelu', (o) => o.leakyRelu(F(o))],
  ['leakyRelu int32', (o) => o.leakyRelu(I(o), 0.5)],
  ['x.leakyRelu', (o) => F(o).leakyRelu(0.1)],
  ['softmax', (o) => o.softmax(F(o))],
  ['softmax -1', (o) => o.softmax(F(o), -1)],
  ['softmax 1', (o) => o.softmax(F(o), 1)],
  ['softmax 0', (o) => o.softmax(F(o), 0)],
  ['softmax int32', (o) => o.softmax(I(o))],
  ['x.softmax', (o) => F(o).softmax()],
  ['logSoftmax', (o) => o.logSoftmax(F(o))],
  ['logSoftmax 0', (o) => o.logSoftmax(F(o), 0)],
  ['x.logSoftmax', (o) => F(o).logSoftmax()],
  ['matMul', (o) => o.matMul(F(o), F2(o), false, true)],
  ['matMul transposeA', (o) => o.matMul(F(o), F2(o), true)],
  ['matMul(int32, int32)', (o) => o.matMul(I(o), I2(o), false, true)],
  ['matMul(int32, float32)', (o) => o.matMul(I(o), F2(o), false, true)],
  ['matMul(float32, int32)', (o) => o.matMul(F(o), I2(o), true, false)],
  ['matMul(bool, bool)', (o) => o.matMul(B(o), B(o), false, true)],
  ['matMul JS arrays', (o) => o.matMul([[1, 2]], [[3], [4]])],
  ['matMul batched', (o) => o.matMul(o.reshape(F(o), [1, 2, 3]), F2(o), false, true)],
  ['x.matMul', (o) => F(o).matMul(F2(o), true)],
  ['addN', (o) => o.addN([F(o), F2(o), F(o)])],
  ['addN int32', (o) => o.addN([I(o), I2(o)])],
  ['addN mixed dtypes', (o) => o.addN([I(o), F(o)])],
  ['einsum', (o) => o.einsum('ij,kj->ik', F(o), F2(o))],
  ['einsum int32', (o) => o.einsum('ij,kj->ik', I(o), I2(o))],
  ['einsum int32 and float32', (o) => o.einsum('ij,kj->ik', I(o), F2(o))],
  ['depthToSpace', (o) => o.depthToSpace(o.reshape(o.range(0, 8), [1, 1, 2, 4]), 2)],
  ['x.depthToSpace', (o) => o.reshape(o.range(0, 8), [1, 1, 2, 4]).depthToSpace(2)],
  ['fill', (o) => o.fill([2, 3], 1.5)],
  ['fill int32 with 1.5', (o) => o.fill([2], 1.5, 'int32')],
  ['fill bool', (o) => o.fill([2], true)],
  ['zeros', (o) => o.zeros([2, 2])],
  ['zeros int32', (o) => o.zeros([3], 'int32')],
  ['ones bool', (o) => o.ones([2], 'bool')],
  ['ones scalar', (o) => o.ones([])],
  ['range', (o) => o.range(0, 5)],
  ['range step', (o) => o.range(5, 0, -2)],
  ['range int32', (o) => o.range(0, 4, 1, 'int32')],
  ['range fractional', (o) => o.range(0, 1, 0.25)],
  ['range int32 fractional stop', (o) => o.range(0, 4.5, 1, 'int32')],
  ['range down by the default step', (o) => o.range(5, 0)],
  ['range down by -1.5', (o) => o.range(5, 0, -1.5)],
  ['range empty', (o) => o.range(3, 3)],
  ['range away from stop', (o) => o.range(0, 3, -1)],
  ['range int32 down', (o) => o.range(4, -2, -2, 'int32')],
  ['range int32 fractional start and step', (o) => o.range(0.5, 3, 0.75, 'int32')],
  ['linspace', (o) => o.linspace(0, 1, 5)],
  ['linspace one sample', (o) => o.linspace(2, 9, 1)],
  ['linspace zero samples', (o) => o.linspace(0, 1, 0)],
  ['tensor', (o) => o.tensor([[1, 2], [3, 4]])],
  ['tensor with a shape', (o) => o.tensor([1, 2, 3, 4], [2, 2], 'int32')],
  ['tensor bool from numbers', (o) => o.tensor([0.25, 0.6, -1, 0], undefined, 'bool')],
  ['tensor int32 from fractions', (o) => o.tensor([1.5, -2.7], undefined, 'int32')],
  ['scalar', (o) => o.scalar(3.5)],
  ['scalar bool from a number', (o) => o.scalar(0.4, 'bool')],
  ['scalar int32', (o) => o.scalar(3, 'int32')],
  ['scalar bool', (o) => o.scalar(true)],
  ['scalar of an array', (o) => o.scalar([1])],
  ['tensor1d', (o) => o.tensor1d([1, 2, 3])],
  ['tensor1d int32', (o) => o.tensor1d([1, 2, 3], 'int32')],
  ['tensor1d typed', (o) => o.tensor1d(new Int32Array([1, 2]))],
  ['tensor1d nested', (o) => o.tensor1d([[1, 2]])],
  ['tensor2d', (o) => o.tensor2d([[1, 2], [3, 4]])],
  ['tensor2d flat with a shape', (o) => o.tensor2d([1, 2, 3, 4, 5, 6], [3, 2], 'int32')],
  ['tensor2d flat without a shape', (o) => o.tensor2d([1, 2, 3, 4])],
  ['tensor2d bad shape', (o) => o.tensor2d([[1, 2]], [2])],
  ['tensor2d rank 3 values', (o) => o.tensor2d([[[1]]])],
  ['tensor3d', (o) => o.tensor3d([[[1], [2]]])],
  ['tensor3d flat', (o) => o.tensor3d(new Float32Array(6), [1, 2, 3])],
  ['tensor4d', (o) => o.tensor4d([[[[1, 2]]]], undefined, 'int32')],
  ['tensor4d flat', (o) => o.tensor4d([1, 2, 3, 4], [1, 2, 2, 1])],
  ['batchNorm', (o) => o.batchNorm(F(o), o.tensor1d([1, 0, -1]), o.tensor1d([1, 4, 0.25]))],
  ['batchNorm offset scale', (o) => o.batchNorm(F(o), [1, 0, -1], [1, 4, 0.25], [0.5, 0.5, 0], [2, 1, 3], 0.01)],
  ['batchNorm 4d', (o) => o.batchNorm(IMG(o), o.tensor1d([0.1, 0.2, 0.3]), o.tensor1d([1, 2, 3]), o.tensor1d([0, 1, 2]), o.tensor1d([1, 1, 2]))],
  ['x.batchNorm', (o) => F(o).batchNorm([1, 0, -1], [1, 4, 0.25])],
  ['moments', (o) => o.moments(F(o))],
  ['moments axis 0', (o) => o.moments(F(o), 0)],
  ['moments axes keepDims', (o) => o.moments(IMG(o), [0, 1, 2], true)],
  ['moments int32 axis -1', (o) => o.moments(I(o), -1)],
  ['norm', (o) => o.norm(F(o))],
  ['norm 1', (o) => o.norm(F(o), 1)],
  ['norm Infinity axis 1', (o) => o.norm(F(o), Infinity, 1)],
  ['norm -Infinity axis 0 keepDims', (o) => o.norm(F(o), -Infinity, 0, true)],
  ['norm 2 axis -1', (o) => o.norm(F(o), 2, -1)],
  ['norm fro', (o) => o.norm(F(o), 'fro', [0, 1])],
  ['norm matrix 1', (o) => o.norm(F(o), 1, [0, 1])],
  ['norm matrix Infinity keepDims', (o) => o.norm(F(o), Infinity, [0, 1], true)],
  ['norm keepDims', (o) => o.norm(F(o), 'euclidean', null, true)],
  ['norm bad ord', (o) => o.norm(F(o), 3)],
  ['norm scalar', (o) => o.norm(o.scalar(-3))],
  ['x.norm', (o) => F(o).norm()],
  ['x.logSumExp', (o) => F(o).logSumExp()],
  ['conv2d valid', (o) => o.conv2d(IMG(o), FILTER(o), 1, 'valid')],
  ['conv2d same strides 2', (o) => o.conv2d(IMG(o), FILTER(o), 2, 'same')],
  ['conv2d numeric pad', (o) => o.conv2d(IMG(o), FILTER(o), 2, 1)],
  ['conv2d numeric pad, unequal strides', (o) => o.conv2d(IMG(o), FILTER(o), [1, 2], 1), (o) => o.conv2d(IMG(o), FILTER(o), [1, 2], [[0, 0], [1, 1], [1, 1], [0, 0]])],
  ['conv2d dilations', (o) => o.conv2d(IMG(o), FILTER(o), 1, 'same', 'NHWC', 2)],
  ['conv2d one image', (o) => o.conv2d(o.slice(IMG(o), [1], [1]).squeeze([0]), FILTER(o), 1, 'valid')],
  ['conv2d explicit pad', (o) => o.conv2d(IMG(o), FILTER(o), 1, [[0, 0], [1, 0], [0, 1], [0, 0]])],
  ['x.conv2d', (o) => IMG(o).conv2d(FILTER(o), 1, 'same')],
  ['depthwiseConv2d', (o) => o.depthwiseConv2d(IMG(o), FILTER(o), 1, 'same')],
  ['depthwiseConv2d strides valid', (o) => o.depthwiseConv2d(IMG(o), FILTER(o), 2, 'valid')],
  ['x.depthwiseConv2d', (o) => IMG(o).depthwiseConv2d(FILTER(o), [1, 1], 'valid')],
  ['conv1d', (o) => o.conv1d(o.reshape(IMG(o), [2, 16, 3]), o.slice(FILTER(o), [0], [1]).squeeze([0]), 1, 'same')],
  ['conv1d stride 2 valid', (o) => o.conv1d(o.reshape(IMG(o), [2, 16, 3]), o.slice(FILTER(o), [0], [1]).squeeze([0]), 2, 'valid')],
  ['conv1d rank 2 dilated', (o) => o.conv1d(o.reshape(IMG(o), [32, 3]), o.slice(FILTER(o), [0], [1]).squeeze([0]), 1, 'valid', 'NWC', 2)],
  ['x.conv1d', (o) => o.reshape(IMG(o), [2, 16, 3]).conv1d(o.slice(FILTER(o), [1], [1]).squeeze([0]), 1, 'valid')],
  ['conv2dTranspose same', (o) => o.conv2dTranspose(o.slice(IMG(o), [0, 0, 0, 0], [-1, -1, -1, 2]), FILTER(o), [2, 8, 8, 3], 2, 'same')],
  ['conv2dTranspose valid', (o) => o.conv2dTranspose(o.slice(IMG(o), [0, 0, 0, 0], [-1, 3, 3, 2]), FILTER(o), [2, 4, 4, 3], 1, 'valid')],
  ['conv2dTranspose one image', (o) => o.conv2dTranspose(o.slice(IMG(o), [0, 0, 0, 0], [1, -1, -1, 2]).squeeze([0]), FILTER(o), [8, 8, 3], [2, 2], 'same')],
  ['x.conv2dTranspose', (o) => o.slice(IMG(o), [0, 0, 0, 0], [-1, 3, 3, 2]).conv2dTranspose(FILTER(o), [2, 4, 4, 3], 1, 'valid')],
  ['separableConv2d', (o) => o.separableConv2d(IMG(o), o.reshape(FILTER(o), [2, 2, 3, 2]), o.reshape(o.range(0, 12), [1, 1, 6, 2]), 1, 'same')],
  ['separableConv2d strides valid', (o) => o.separableConv2d(IMG(o), o.slice(FILTER(o), [0, 0, 0, 0], [-1, -1, -1, 1]), o.ones([1, 1, 3, 4]), 2, 'valid')],
  ['x.separableConv2d', (o) => IMG(o).separableConv2d(o.slice(FILTER(o), [0, 0, 0, 0], [-1, -1, -1, 1]), o.ones([1, 1, 3, 1]), 1, 'valid')],
  ['maxPool', (o) => o.maxPool(IMG(o), 2, 2, 'valid')],
  ['maxPool same', (o) => o.maxPool(IMG(o), [3, 3], 1, 'same')],
  ['maxPool int32', (o) => o.maxPool(o.cast(IMG(o), 'int32'), 2, 1, 'valid')],
  ['x.maxPool', (o) => IMG(o).maxPool(2, 1, 'same')],
  ['avgPool', (o) => o.avgPool(IMG(o), 2, 2, 'valid')],
  ['avgPool same', (o) => o.avgPool(IMG(o), [3, 2], [1, 2], 'same')],
  ['avgPool int32', (o) => o.avgPool(o.cast(IMG(o), 'int32'), 2, 1, 'valid')],
  ['x.avgPool', (o) => IMG(o).avgPool(2, 2, 'valid')],
  ['image.resizeBilinear', (o) => o.image.resizeBilinear(IMG(o), [3, 5])],
  ['image.resizeBilinear alignCorners', (o) => o.image.resizeBilinear(IMG(o), [7, 7], true)],
  ['image.resizeBilinear halfPixelCenters', (o) => o.image.resizeBilinear(IMG(o), [6, 3], false, true)],
  ['image.resizeBilinear one image', (o) => o.image.resizeBilinear(o.slice(IMG(o), [1], [1]).squeeze([0]), [2, 2])],
  ['x.resizeBilinear', (o) => IMG(o).resizeBilinear([2, 8])],
  ['image.resizeNearestNeighbor', (o) => o.image.resizeNearestNeighbor(IMG(o), [3, 5])],
  ['image.resizeNearestNeighbor alignCorners', (o) => o.image.resizeNearestNeighbor(IMG(o), [7, 7], true)],
  ['image.resizeNearestNeighbor halfPixelCenters', (o) => o.image.resizeNearestNeighbor(IMG(o), [6, 3], false, true)],
  ['x.resizeNearestNeighbor', (o) => IMG(o).resizeNearestNeighbor([2, 8])],
  ['image.flipLeftRight', (o) => o.image.flipLeftRight(IMG(o))],
  ['image.flipLeftRight rank 3', (o) => o.image.flipLeftRight(o.slice(IMG(o), [0], [1]).squeeze([0]))],
  ['image.nonMaxSuppression', (o) => o.image.nonMaxSuppression([[0, 0, 1, 1], [0, 0, 0.9, 1], [0, 2, 1, 3], [0, 2.1, 1, 3]], [0.9, 0.8, 0.7, 0.95], 3)],
  ['image.nonMaxSuppression thresholds', (o) => o.image.nonMaxSuppression([[0, 0, 1, 1], [0, 0, 0.9, 1], [0, 2, 1, 3]], [0.9, 0.8, 0.3], 3, 0.95, 0.5)],
  ['image.nonMaxSuppressionWithScore', (o) => o.image.nonMaxSuppressionWithScore([[0, 0, 1, 1], [0, 0, 0.9, 1], [0, 2, 1, 3]], [0.9, 0.8, 0.7], 3, 0.5, 0)],
  ['image.cropAndResize', (o) => o.image.cropAndResize(IMG(o), [[0, 0, 1, 1], [0.25, 0.25, 0.75, 1]], [0, 1], [3, 2])],
  ['image.cropAndResize nearest', (o) => o.image.cropAndResize(IMG(o), [[0, 0, 0.5, 1]], [1], [2, 2], 'nearest', 0)],
  // Negative axes, other dtypes, broadcasting.
  ['squeeze [-2]', (o) => o.squeeze(o.reshape(F(o), [2, 1, 3]), [-2])],
  ['stack axis -1', (o) => o.stack([F(o), F2(o)], -1)],
  ['stack bool', (o) => o.stack([B(o), B(o)], 1)],
  ['oneHot negative index', (o) => o.oneHot([-1, 1], 3)],
  ['topk int32 k 3 unsorted', (o) => o.topk(I(o), 3, false).values, (o) => o.topk(I(o), 3, true).values],
  ['transpose bool', (o) => o.transpose(B(o))],
  ['tile int32', (o) => o.tile(I(o), [1, 2])],
  ['reverse bool', (o) => o.reverse(B(o), 1)],
  ['cast int32 to bool', (o) => o.cast(I(o), 'bool')],
  ['cast bool to int32', (o) => o.cast(B(o), 'int32')],
  ['softmax rank 1', (o) => o.softmax(o.tensor([1, 2, 3]))],
  ['softmax rank 3', (o) => o.softmax(o.reshape(F(o), [1, 2, 3]))],
  ['logSoftmax rank 3', (o) => o.logSoftmax(o.reshape(F(o), [2, 3, 1]))],
  ['matMul rank 1', (o) => o.matMul(o.tensor([1, 2]), o.tensor([3, 4]))],
  ['matMul shapes differ', (o) => o.matMul(F(o), F2(o))],
  ['conv2d NCHW', (o) => o.conv2d(o.transpose(IMG(o), [0, 3, 1, 2]), FILTER(o), 1, 'valid', 'NCHW')],
  ['resizeBilinear alignCorners and halfPixelCenters', (o) => o.image.resizeBilinear(IMG(o), [3, 3], true, true)],
  ['where broadcasting a condition row', (o) => o.where([true, false, true], F(o), F2(o))],
  ['where scalar condition', (o) => o.where(o.scalar(false), F(o), F2(o))],
  ['add a scalar tensor', (o) => o.add(F(o), o.scalar(2))],
  ['sub scalars', (o) => o.sub(o.scalar(5, 'int32'), o.scalar(7, 'int32'))],
  ['pow negative base fractional exponent', (o) => o.pow(F(o), 0.5)],
  ['argMax rank 1', (o) => o.argMax(o.tensor([3, 9, 2]))],
  ['gather out of range', (o) => o.gather(F(o), [5])],
  ['reshape to a bad size', (o) => o.reshape(F(o), [4])],
  ['slice past the end', (o) => o.slice(F(o), [0, 2], [1, 2])],
  ['split unevenly', (o) => o.split(F(o), 2, 1)],
  ['concat rank mismatch', (o) => o.concat([F(o), o.tensor([1, 2, 3])])],
  ['add shapes that do not broadcast', (o) => o.add(F(o), o.tensor([1, 2]))],
  ['mean of an empty tensor', (o) => o.mean(o.zeros([0, 3]), 0)],
  ['sum of an empty tensor', (o) => o.sum(o.zeros([0, 3]))],
  ['max of an empty axis', (o) => o.max(o.zeros([0, 3]), 0), (o) => o.fill([3], -Infinity)],
  ['conv2d NCHW strides', (o) => o.conv2d(o.transpose(IMG(o), [0, 3, 1, 2]), FILTER(o), [1, 2], 'same', 'NCHW')],
  ['conv2d NCHW dilations', (o) => o.conv2d(o.transpose(IMG(o), [0, 3, 1, 2]), FILTER(o), 1, 'valid', 'NCHW', [2, 1])],
  ['conv2d strides and dilations', (o) => o.conv2d(IMG(o), FILTER(o), 2, 'same', 'NHWC', 2)],
  ['depthwiseConv2d strides and dilations', (o) => o.depthwiseConv2d(IMG(o), FILTER(o), [1, 2], 'same', 'NHWC', [2, 1])],
  ['conv2d NCHW explicit pad', (o) => o.conv2d(o.transpose(IMG(o), [0, 3, 1, 2]), FILTER(o), 1, [[0, 0], [0, 0], [1, 0], [0, 1]], 'NCHW')],
  ['depthwiseConv2d NCHW', (o) => o.depthwiseConv2d(o.transpose(IMG(o), [0, 3, 1, 2]), FILTER(o), 1, 'same', 'NCHW'), (o) => o.transpose(o.depthwiseConv2d(IMG(o), FILTER(o), 1, 'same'), [0, 3, 1, 2])],
  // TF.js's Tensor methods that are not ops of their own.
  ['x.flatten()', (o) => F(o).flatten()],
  ['x.asType', (o) => F(o).asType('int32')],
  ['x.toFloat', (o) => I(o).toFloat()],
  ['x.toInt', (o) => F(o).toInt()],
  ['x.toBool', (o) => F(o).toBool()],
  ['x.asScalar', (o) => o.tensor([[5]]).asScalar()],
  ['x.as1D', (o) => F(o).as1D()],
  ['x.as2D', (o) => F(o).as2D(3, 2)],
  ['x.as3D', (o) => F(o).as3D(1, 3, 2)],
  ['x.as4D', (o) => I(o).as4D(1, 2, 3, 1)],
  ['x.reshapeAs', (o) => F(o).reshapeAs(o.zeros([6, 1]))],
  ['x.clone', (o) => B(o).clone()],
];
for (const [label, fn, alt] of SHAPES) add(label, fn, alt);

/** A result as plain data: { dtype, shape, data } for a tensor, arrays and objects of them alike. */
function plain(r) {
  if (r instanceof tf.Tensor || r instanceof Tensor) return { dtype: r.dtype, shape: [...r.shape], data: Array.from(r.dataSync(), Number) };
  if (Array.isArray(r)) return r.map(plain);
  if (r !== null && typeof r === 'object') return Object.fromEntries(Object.keys(r).sort().map((k) => [k, plain(r[k])]));
  return r;
}

/** Runs `fn` with TF.js (side 'tfjs') or eager-wasm's ctx.ops: `{ value }` or `{ error }`. */
function runOn(side, fn, ctx) {
  try {
    if (side === 'tfjs') return { value: tf.tidy(() => plain(fn(tf))) };
    return { value: ctx.tidy(() => plain(fn(ctx.ops))) };
  } catch (e) {
    if (side === 'eager' && !(e instanceof EagerError)) return { error: `not an EagerError: ${e?.stack ?? e}` };
    return { error: e?.message ?? String(e), code: e?.code };
  }
}

/** Why `got` (eager-wasm) is not `want` (TF.js), or null when they agree. */
function difference(got, want, path = '') {
  if (got === null || typeof got !== 'object' || want === null || typeof want !== 'object') {
    return got === want ? null : `${path}: ${JSON.stringify(got)} vs ${JSON.stringify(want)}`;
  }
  if ('dtype' in want && 'data' in want) {
    if (got.dtype !== want.dtype) return `${path} dtype ${got.dtype} vs ${want.dtype}`;
    if (JSON.stringify(got.shape) !== JSON.stringify(want.shape)) return `${path} shape [${got.shape}] vs [${want.shape}]`;
    for (let i = 0; i < want.data.length; i++) {
      const [g, w] = [got.data[i], want.data[i]];
      const same = Number.isNaN(w) ? Number.isNaN(g) : g === w || (want.dtype === 'float32' && Number.isFinite(w) && Math.abs(g - w) <= 1e-5 + 1e-4 * Math.abs(w));
      if (!same) return `${path} element ${i}: ${g} vs ${w} (${JSON.stringify(got.data)} vs ${JSON.stringify(want.data)})`;
    }
    return null;
  }
  const keys = Object.keys(want);
  if (JSON.stringify(Object.keys(got)) !== JSON.stringify(keys)) return `${path} keys ${Object.keys(got)} vs ${keys}`;
  for (const k of keys) {
    const d = difference(got[k], want[k], `${path}.${k}`);
    if (d !== null) return d;
  }
  return null;
}

/** What TF.js gives for what eager-wasm does instead, for a deviation's `instead`. */
function insteadOf(instead, fn) {
  if (instead === 'same') return runOn('tfjs', (o) => fn(new Proxy(o, { get: (t, k) => (k === 'ceil' || k === 'floor' ? (x) => t.clone(x) : t[k]) })));
  // 'float32': the same call with every input tensor made float32.
  const floats = (o) => new Proxy(o, { get: (t, k) => (k === 'tensor' ? (...args) => tf.cast(t.tensor(...args), 'float32') : t[k]) });
  return runOn('tfjs', (o) => fn(floats(o)));
}

/** Helpers TF.js has no counterpart of (so no case compares them): their own tests are in ops.test.mjs. */
const EAGER_ONLY = new Set(['identity', 'biasAdd', 'resizeBilinear', 'resizeNearestNeighbor']);

/**
 * Records which ctx.ops helpers and Tensor methods the cases call directly (not those a helper
 * calls inside): wraps each in `ctx.ops` and on Tensor.prototype; returns [called, restore].
 */
function recordCalls(ctx) {
  const called = new Set();
  let depth = 0;
  const wrap = (owner, key, label) => {
    const f = owner[key];
    owner[key] = function (...args) {
      if (depth === 0) called.add(label);
      depth++;
      try {
        return f.apply(this, args);
      } finally {
        depth--;
      }
    };
    return () => {
      owner[key] = f;
    };
  };
  const restore = [];
  for (const [k, f] of Object.entries(ctx.ops)) if (typeof f === 'function') restore.push(wrap(ctx.ops, k, `ops.${k}`));
  for (const k of Object.keys(ctx.ops.image)) restore.push(wrap(ctx.ops.image, k, `ops.image.${k}`));
  const methods = Object.getOwnPropertyNames(Tensor.prototype).filter((k) => {
    const d = Object.getOwnPropertyDescriptor(Tensor.prototype, k);
    return typeof d.value === 'function' && k !== 'constructor';
  });
  for (const k of methods) restore.push(wrap(Tensor.prototype, k, `x.${k}`));
  const names = [...Object.keys(ctx.ops).filter((k) => k !== 'image').map((k) => `ops.${k}`), ...Object.keys(ctx.ops.image).map((k) => `ops.image.${k}`), ...methods.map((k) => `x.${k}`)];
  return [called, names, () => restore.forEach((r) => r())];
}

test('ctx.ops and the Tensor methods agree with TF.js 4.22 (CPU backend) on dtype, shape and values', () => {
  const ctx = new EagerContext();
  const [called, names, restore] = recordCalls(ctx);
  const failures = [];
  const used = new Set();
  let compared = 0;
  for (const [label, fn, altFn] of CASES) {
    const want = runOn('tfjs', fn);
    const got = runOn('eager', fn, ctx);
    const deviation = DEVIATIONS.find(([re]) => re.test(label));
    const agree = 'error' in want ? 'error' in got && got.code !== undefined : 'value' in got && difference(got.value, want.value) === null;
    if (agree) {
      compared++;
      continue;
    }
    if (deviation !== undefined) {
      const [re, , instead] = deviation;
      used.add(re);
      if (instead === 'throws') {
        if (got.code === 'InvalidArgument') continue;
      } else {
        const alt = instead === 'alt' ? runOn('tfjs', altFn) : insteadOf(instead, fn);
        if ('value' in got && 'value' in alt && difference(got.value, alt.value) === null) continue;
        failures.push(`${label} (a listed deviation): eager-wasm ${JSON.stringify(got).slice(0, 300)}, TF.js on ${instead} inputs ${JSON.stringify(alt).slice(0, 300)}`);
        continue;
      }
    }
    const d = 'value' in want && 'value' in got ? difference(got.value, want.value) : null;
    failures.push(`${label}: ${d ?? `eager-wasm ${JSON.stringify(got).slice(0, 300)}, TF.js ${JSON.stringify(want).slice(0, 300)}`}`);
  }
  assert.equal(failures.length, 0, `${failures.length} of ${CASES.length} cases differ from TF.js:\n${failures.join('\n')}`);
  for (const [re, why] of DEVIATIONS) assert.ok(used.has(re), `deviation ${re} (${why}) is needed by no case: remove it`);
  assert.ok(compared > 1000, `only ${compared} cases compared`);
  restore();
  // Every helper and method TF.js has is compared by some case (the Tensor's own members aside).
  const own = new Set(['x.dataSync', 'x.data', 'x.readInto', 'x.bytesSync', 'x.bytes', 'x.arraySync', 'x.array', 'x.dispose', 'x.toString', 'x.print']);
  const uncovered = names.filter((n) => !called.has(n) && !own.has(n) && !EAGER_ONLY.has(n.replace(/^(ops|x)\./, '')));
  assert.deepEqual(uncovered, [], 'helpers or methods no case calls');
  assert.equal(ctx.memory().numTensors, 0, 'tensors left behind');
  ctx.dispose();
});

test('axes and shapes that are not integers are InvalidArgument naming the argument', () => {
  const ctx = new EagerContext();
  const x = ctx.tensor([[1, 2, 3], [4, 5, 6]]);
  for (const bad of [1n, true, {}, new Date(0), 'a', null]) {
    if (bad !== null) {
      throwsCode(() => x.sum(bad), 'InvalidArgument', /sum: axis/);
      throwsCode(() => ctx.ops.reverse(x, bad), 'InvalidArgument', /reverse: axis/);
      throwsCode(() => x.mean([0, bad]), 'InvalidArgument', /mean: axis/);
      throwsCode(() => x.argMax(bad), 'InvalidArgument', /argMax: axis/);
      throwsCode(() => x.transpose(bad), 'InvalidArgument', /transpose: perm/);
    }
    throwsCode(() => ctx.ops.zeros(bad), 'InvalidArgument', /fill: shape/);
    throwsCode(() => ctx.ops.fill(bad, 7), 'InvalidArgument', /fill: shape/);
    throwsCode(() => x.reshape(bad), 'InvalidArgument', /reshape: shape/);
    throwsCode(() => x.tile(bad), 'InvalidArgument', /tile: reps/);
    throwsCode(() => x.pad(bad), 'InvalidArgument', /pad: paddings/);
    throwsCode(() => x.pad([[0, 0], [bad, 1]]), 'InvalidArgument', /pad: paddings/);
  }
  throwsCode(() => x.sum(2), 'InvalidArgument', /sum: .*range \[-2, 2\).* 2/);
  x.dispose();
  assert.equal(ctx.memory().numTensors, 0);
  ctx.dispose();
});

test('dtype errors speak of the TF.js argument, once', () => {
  const ctx = new EagerContext();
  const i = ctx.tensor(new Int32Array([1, 2]));
  const f = ctx.tensor([1.5, 2]);
  throwsCode(() => ctx.ops.logicalAnd(i, f), 'InvalidArgument', /^Argument 'a' passed to 'logicalAnd' must be bool tensor, but got int32 tensor$/);
  throwsCode(() => ctx.ops.gather(f, f), 'InvalidArgument', /^Argument 'indices' passed to 'gather' must be int32 tensor, but got float32 tensor$/);
  throwsCode(() => ctx.ops.stack([i, f]), 'InvalidArgument', /^stack: all tensors passed to stack must have matching dtypes$/);
  throwsCode(() => ctx.ops.add(ctx.tensor([true]), ctx.tensor([false])), 'InvalidArgument', /^add: a and b are both bool/);
  // A failure inside the op names the helper once, not the TF op's name twice.
  const f3 = ctx.tensor([1, 2, 3]);
  for (const call of [() => ctx.ops.gather(f, [7]), () => ctx.ops.add(f, [1, 2, 3]), () => f.add(f3), () => f.reshape([3])]) {
    assert.throws(call, (e) => {
      assert.ok(e instanceof EagerError && e.code === 'InvalidArgument', String(e));
      assert.ok(!/(\w+): \1:/.test(e.message), e.message);
      assert.doesNotMatch(e.message, /attr '|AddV2|GatherV2|Reshape/);
      assert.match(e.message, /^(gather|add|reshape): /);
      return true;
    });
  }
  // fromPixels' int32 divided by a number is float32, as in TF.js.
  const px = ctx.tensor(new Int32Array([0, 51, 255]));
  const y = px.div(255);
  assert.equal(y.dtype, 'float32');
  assert.deepEqual(Array.from(y.dataSync()), [0, 0.2, 1].map(Math.fround));
  for (const t of [i, f, f3, px, y]) t.dispose();
  ctx.dispose();
});
