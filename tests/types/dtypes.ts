// Compiled (never run) by scripts/pack-test.mjs with `tsc --strict` against the packed package's
// types (issue 17): Tensor<D> gives each dtype's typed array with no cast, and the wrong one is an
// error (each @ts-expect-error line must fail to compile, or tsc reports the directive unused).
import { init, EagerContext, Tensor } from 'eager-wasm';

await init();
const ctx = new EagerContext();
const f = ctx.tensor(new Float32Array([1, 2, 3, 4]), [2, 2]);
const fv: Float32Array = f.dataSync();
const doubled: number = f.dataSync()[0] * 2;
const i: Int32Array = ctx.tensor(new Uint8Array([1, 2])).dataSync(); // byte arrays make int32, as in TF.js
const n: Float32Array = ctx.tensor([[1, 0], [0, 1]]).dataSync();
const big: bigint = ctx.tensor(new BigInt64Array([1n])).dataSync()[0];
const flags: Uint8Array = ctx.tensor([true, false]).dataSync();
const bytes: Uint8Array = ctx.tensor(new Uint8Array([1]), [1], 'uint8').dataSync();
// complex64: interleaved (re, im) floats in and out; it is the widest dtype.
const cplx = ctx.tensor(new Float32Array([1, 2]), [], 'complex64');
const pairs: Float32Array = cplx.dataSync();
const widest: Tensor<'complex64'> = cplx.add(f);
const rows: number[][] = f.arraySync<number[][]>();
const chained: Float32Array = f.add(1).mul(f).sum(1, true).dataSync();
const indices: Int32Array = f.argMax(-1).dataSync();
const casted: Tensor<'int32'> = f.cast('int32');
const asAny: Tensor = casted;
const mask: Uint8Array = f.greater(2).dataSync();
const ints = ctx.tensor(new Int32Array([1, 2]));
const widened: Float32Array = ints.mul(ctx.tensor(new Float32Array([0.5, 0.5]))).dataSync(); // int32 * float32: float32
// TF.js's dtypes: a JS number is float32 (int32 + 1 is float32), int32 / int32 floors, mean is float32.
const floated: Float32Array = ints.add(1).dataSync();
const kept32: Int32Array = ints.add(new Int32Array([1])).dataSync();
const floored: Int32Array = ints.div(ints).dataSync();
const scaled: Float32Array = ctx.fromPixels({ data: new Uint8Array(4), width: 1, height: 1 }).div(255).dataSync();
const averaged: Float32Array = ints.mean().dataSync();
const counted: Int32Array = ctx.tensor([true, false]).sum().dataSync();
const exponent: Float32Array = ints.exp().dataSync();
const flat: Float32Array = f.flatten().dataSync();
const t2: Int32Array = ctx.ops.tensor2d([1, 2, 3, 4], [2, 2], 'int32').dataSync();
const s1: Float32Array = ctx.ops.scalar(1).dataSync();
const variance: Float32Array = ctx.ops.moments(ints).variance.dataSync();
const firsts: Int32Array = ctx.ops.concat([ints, f]).dataSync();
const { values, indices: top } = f.topk(1);
const vv: Float32Array = values.dataSync();
const tv: Int32Array = top.dataSync();
const resized: Float32Array = ctx.fromPixels({ data: new Uint8Array(4), width: 1, height: 1 }).resizeBilinear([2, 2]).dataSync();
const pixels: Int32Array = ctx.fromPixels({ data: new Uint8Array(4), width: 1, height: 1 }, 1).dataSync();
const raw: Uint8Array = ctx.fromPixels({ data: new Uint8Array(4), width: 1, height: 1 }, 4, { dtype: 'uint8' }).dataSync();
const model = await ctx.loadGraphModel('/model/model.json');
const y: Float32Array = model.predict(f).dataSync();
const detector = await ctx.loadGraphModel<'boxes' | 'scores'>('/detector/model.json');
const { boxes, scores } = detector.predict(f);
const classes = await ctx.loadGraphModel<null, 'int32'>('/classes/model.json');
const c: Int32Array = classes.predict(f).dataSync();
const kept: Int32Array = ctx.ops.image.nonMaxSuppression([[0, 0, 1, 1]], [0.5], 1).dataSync();
const same: Tensor<'float32'> = ctx.tidy(() => ctx.ops.conv2d(f, f, 1, 'same'));

// @ts-expect-error a float32 tensor's values are not an Int32Array
const wrong1: Int32Array = f.dataSync();
// @ts-expect-error int32 * float32 is float32
const wrong3: Int32Array = ints.mul(f).dataSync();
// @ts-expect-error argMax is int32
const wrong2: Float32Array = f.argMax().dataSync();
// @ts-expect-error int64 values are bigints
const wrong3: number = ctx.tensor(new BigInt64Array([1n])).dataSync()[0];
// @ts-expect-error a one-output model's predict is a Tensor, not a record
const wrong4 = model.predict(f).boxes;
// @ts-expect-error the nesting asked of arraySync must hold the dtype's values
const wrong5 = f.arraySync<bigint[]>();
// @ts-expect-error int32 + a JS number is float32, as in TF.js
const wrong6: Int32Array = ints.add(1).dataSync();
// @ts-expect-error mean is float32
const wrong7: Int32Array = ints.mean().dataSync();
// @ts-expect-error fromPixels makes int32 or uint8 only
ctx.fromPixels({ data: new Uint8Array(4), width: 1, height: 1 }, 3, { dtype: 'float32' });

export { fv, doubled, i, n, big, flags, bytes, rows, chained, indices, asAny, mask, vv, tv, resized, pixels, raw, y, boxes, scores, c, kept, same, wrong1, wrong2, wrong3, wrong4, wrong5, wrong6, wrong7, floated, kept32, floored, scaled, averaged, counted, exponent, flat, t2, s1, variance, firsts };
