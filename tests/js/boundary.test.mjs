// Caller code that runs while eager-wasm reads its arguments (a getter, a Proxy) and grows wasm
// memory meanwhile must not make a call read or write through a stale view of that memory: the
// inputs are read first, then written to the scratch buffer through a fresh view.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api } from './helpers.mjs';

const { EagerContext } = api;

test('execute() inputs through a Proxy whose get trap grows wasm memory: the right result', () => {
  const ctx = new EagerContext();
  const a = ctx.tensor([1, 2]);
  const b = ctx.tensor([3, 4]);
  const floats = ctx.tensor(new Float32Array(1 << 24), [1 << 24]);
  const bools = ctx.ops.cast(floats, 'bool');
  const before = ctx.memory().wasmMemoryBytes;
  let reads = 0;
  // dataSync() of a bool tensor makes a byte copy in wasm memory: reading input 1 grows memory.
  const grow = () => {
    for (let i = 0; i < 3; i++) bools.dataSync();
    reads++;
  };
  const inputs = new Proxy([a, b], {
    get(target, key, receiver) {
      if (key === '1') grow();
      return Reflect.get(target, key, receiver);
    },
  });
  const [c] = ctx.execute('AddV2', inputs);
  assert.equal(reads, 1);
  assert.ok(ctx.memory().wasmMemoryBytes > before, 'the trap grew wasm memory (else this test proves nothing)');
  assert.deepEqual(Array.from(c.dataSync()), [4, 6]);
  // And through a getter on a plain array.
  const withGetter = [a];
  Object.defineProperty(withGetter, 1, { get: () => (grow(), b), enumerable: true });
  const [d] = ctx.execute('AddV2', withGetter);
  assert.deepEqual(Array.from(d.dataSync()), [4, 6]);
  ctx.dispose();
});
