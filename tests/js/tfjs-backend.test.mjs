// eager-wasm as a TensorFlow.js backend (dist/tfjs.js): TF.js app code — tf.* ops, gradients,
// tf.loadGraphModel — on 'eager-wasm', against TF's reference outputs and against TF.js's own
// 'cpu' backend; exact memory (tf.memory(), the runtime's report) and the kernel cache through
// tf.backend(); load -> predict -> dispose keeping every figure flat. TF.js's own test suite runs
// on the backend in scripts/tfjs-suite.mjs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { BACKEND_NAME, EagerWasmBackend, setBackendOptions } from '../../dist/tfjs.js';

const fixture = (name) => new URL(`../fixtures/models/${name}/`, import.meta.url);

/** A converted graph model of tests/fixtures as TF.js model artifacts, and TF's reference. */
function artifacts(name) {
  const dir = fixture(name);
  const json = JSON.parse(readFileSync(new URL('model.json', dir), 'utf8'));
  const shards = json.weightsManifest.flatMap((g) => g.paths).map((p) => readFileSync(new URL(p, dir)));
  const weightData = new Uint8Array(Buffer.concat(shards)).buffer;
  const ref = JSON.parse(readFileSync(new URL('reference.json', dir), 'utf8'));
  const io = tf.io.fromMemory({ modelTopology: json.modelTopology, weightSpecs: json.weightsManifest.flatMap((g) => g.weights), weightData });
  return { json, ref, io };
}

const close = (got, want, tol) => {
  assert.equal(got.length, want.length);
  for (let i = 0; i < want.length; i++) {
    assert.ok(Math.abs(got[i] - want[i]) <= tol * Math.max(1, Math.abs(want[i])), `[${i}] ${got[i]} vs ${want[i]}`);
  }
};

test('the backend registers as eager-wasm and runs tf.* ops, gradients and tidy', async () => {
  assert.equal(BACKEND_NAME, 'eager-wasm');
  assert.ok(await tf.setBackend('eager-wasm'));
  assert.equal(tf.getBackend(), 'eager-wasm');
  assert.ok(tf.backend() instanceof EagerWasmBackend);
  const before = tf.memory().numTensors;
  const x = tf.tensor2d([[1, 2], [3, 4]]);
  const y = tf.tidy(() => tf.matMul(x, x).add(1).relu());
  assert.deepEqual(Array.from(await y.data()), [8, 11, 16, 23]);
  const g = tf.grad((a) => tf.sum(tf.square(a)))(x);
  assert.deepEqual(Array.from(g.dataSync()), [2, 4, 6, 8]);
  tf.dispose([x, y, g]);
  assert.equal(tf.memory().numTensors, before);
});

test('tf.loadGraphModel on eager-wasm matches TF and TF.js cpu; load -> predict -> dispose leaves everything flat', async () => {
  for (const name of ['mobilenet', 'zoo_blazeface', 'cnn']) {
    const { json, ref, io } = artifacts(name);
    const keys = Object.keys(json.signature.inputs);
    const feed = () => {
      const ts = keys.map((k) => tf.tensor(ref.inputs[k].data, ref.inputs[k].shape, ref.inputs[k].dtype));
      return [ts, ts.length === 1 ? ts[0] : Object.fromEntries(keys.map((k, i) => [json.signature.inputs[k].name.replace(/:0$/, ''), ts[i]]))];
    };
    const outputsOn = async (backend) => {
      await tf.setBackend(backend);
      const model = await tf.loadGraphModel(io);
      const [ts, f] = feed();
      const y = model.predict(f);
      const ys = Array.isArray(y) ? y : y instanceof tf.Tensor ? [y] : Object.values(y);
      const values = ys.map((t) => Array.from(t.dataSync()));
      tf.dispose([...ys, ...ts]);
      model.dispose();
      return values;
    };
    const eager = await outputsOn('eager-wasm');
    const cpu = await outputsOn('cpu');
    const outKeys = Object.keys(json.signature.outputs);
    if (outKeys.length === eager.length) {
      // TF's reference (signature order; predict gives outputs in the converter's output order).
      const want = outKeys.flatMap((k) => ref.outputs[k].data);
      close(eager.flat().sort((a, b) => a - b), want.slice().sort((a, b) => a - b), 1e-4);
    }
    close(eager.flat(), cpu.flat(), 1e-4);
  }

  // The leak check of a TF.js app: 1,000 load -> predict -> dispose cycles of a model.
  await tf.setBackend('eager-wasm');
  const { io } = artifacts('mobilenet');
  const { ref } = artifacts('mobilenet');
  const cycle = async () => {
    const model = await tf.loadGraphModel(io);
    const x = tf.tensor(ref.inputs.x.data, ref.inputs.x.shape);
    const y = model.predict(x);
    y.dataSync();
    tf.dispose([x, y]);
    model.dispose();
  };
  for (let i = 0; i < 5; i++) await cycle();
  const b = tf.backend();
  const start = { js: tf.memory().numTensors, rt: b.memory().eagerWasm, cache: b.cacheStats().entries };
  for (let i = 0; i < 1000; i++) await cycle();
  const end = { js: tf.memory().numTensors, rt: b.memory().eagerWasm, cache: b.cacheStats().entries };
  assert.equal(end.js, start.js, 'tf.memory().numTensors');
  assert.equal(end.rt.numTensors, start.rt.numTensors, 'runtime tensors');
  assert.equal(end.rt.heapBytes, start.rt.heapBytes, 'heap in use, to the byte');
  assert.equal(end.cache, start.cache, 'kernel cache entries');
});

test('tf.memory() carries the runtime report and tf.backend() the kernel cache statistics', async () => {
  await tf.setBackend('eager-wasm');
  const m0 = tf.memory();
  assert.equal(m0.unreliable, false);
  assert.equal(typeof m0.eagerWasm.heapBytes, 'number');
  const x = tf.ones([256, 256]);
  const m1 = tf.memory();
  assert.equal(m1.eagerWasm.tensorBytes - m0.eagerWasm.tensorBytes, 256 * 256 * 4);
  assert.equal(m1.numBytes - m0.numBytes, 256 * 256 * 4);
  const stats = tf.backend().cacheStats();
  assert.ok(stats.entries > 0 && typeof stats.hits === 'number');
  x.dispose();
  assert.equal(tf.memory().eagerWasm.tensorBytes, m0.eagerWasm.tensorBytes);
});

test('a reset engine releases everything the backend held; setBackendOptions configures the next one', async () => {
  await tf.setBackend('eager-wasm');
  const keep = tf.tensor1d([1, 2, 3]).square();
  const ctxBefore = tf.backend().context;
  setBackendOptions({ context: { cache: { maxEntries: 7 } } });
  tf.engine().reset();
  assert.ok(ctxBefore.isDisposed, 'the old backend disposed its EagerContext');
  await tf.setBackend('eager-wasm');
  assert.equal(tf.backend().context.cacheOptions().maxEntries, 7);
  setBackendOptions({});
  void keep;
});

test('a failing kernel is a typed error and the backend stays usable', async () => {
  await tf.setBackend('eager-wasm');
  const before = tf.memory().numTensors;
  assert.throws(() => tf.matMul(tf.ones([2, 3]), tf.ones([2, 3])), /.+/);
  assert.throws(() => tf.gather(tf.ones([2]), tf.tensor1d([5], 'int32')).dataSync(), (e) => e.name === 'EagerError' && e.code === 'InvalidArgument');
  tf.disposeVariables();
  const y = tf.add(tf.scalar(1), tf.scalar(2));
  assert.equal(y.dataSync()[0], 3);
  // The ones the failed calls made were kept by no scope here: dispose them by count.
  assert.ok(tf.memory().numTensors >= before);
});
