// Hostile values at the JS boundary (issue 14), shared by Node (hostile.test.mjs) and headless
// Chromium (scripts/chromium-check.mjs): no node:assert, no fs. Each case gets a fresh context and
// asserts an EagerError with a code (or the right result); the runner then checks that the context
// and a new one still work and that live tensors and heap in use are back to the baseline. Cases
// that killed or wedged the instance before the fix run `repeat` (2,000) times.

import { tinyModelJson, tinyWeights } from './tiny-model.mjs';

export class CheckError extends Error {}

export function check(cond, msg) {
  if (!cond) throw new CheckError(`check failed: ${msg}`);
}

export function makeChecks(api) {
  /** Runs `fn`, which must throw an EagerError with `code`; returns the error. */
  const throwsCode = (fn, code, what) => {
    let err = null;
    try {
      fn();
    } catch (e) {
      err = e;
    }
    check(err !== null, `${what}: expected EagerError ${code}, nothing was thrown`);
    check(
      err instanceof api.EagerError,
      `${what}: expected EagerError ${code}, got ${err?.constructor?.name}: ${err?.message}`,
    );
    check(err.code === code, `${what}: expected code ${code}, got ${err.code}: ${err.message}`);
    return err;
  };
  const rejectsCode = async (p, code, what) => {
    let err = null;
    try {
      await p;
    } catch (e) {
      err = e;
    }
    check(err instanceof api.EagerError, `${what}: expected EagerError ${code}, got ${err?.constructor?.name}: ${err?.message}`);
    check(err.code === code, `${what}: expected code ${code}, got ${err.code}: ${err.message}`);
    return err;
  };
  const same = (a, b, what) => check(JSON.stringify(a) === JSON.stringify(b), `${what}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  return { throwsCode, rejectsCode, same };
}

/** A model (the tiny one) with its output 'y' renamed. */
function tinyModelWithOutput(name) {
  const m = JSON.parse(tinyModelJson);
  const outputs = Object.create(null);
  outputs[name] = m.signature.outputs.y;
  outputs.sum = m.signature.outputs.sum;
  m.signature.outputs = outputs;
  return JSON.stringify(m);
}

export function hostileCases(api) {
  const { throwsCode, rejectsCode, same } = makeChecks(api);
  const ops = new Set(api.registeredOps());
  const f32 = (ctx, values, shape) => ctx.tensor(new Float32Array(values), shape);
  const revoked = () => {
    const r = Proxy.revocable(new Float32Array(4), {});
    r.revoke();
    return r.proxy;
  };
  const detached = () => {
    const a = new Float32Array(4);
    structuredClone(a.buffer, { transfer: [a.buffer] });
    return a;
  };
  class ShortSubarray extends Float32Array {
    subarray() {
      return new Float32Array(1);
    }
  }
  class ThrowingSubarray extends Uint8Array {
    subarray() {
      throw new Error('subarray says no');
    }
  }
  const throwingGetterArray = () => {
    const a = [1, 1, 1, 1];
    Object.defineProperty(a, 1, {
      get() {
        throw new Error('element getter');
      },
    });
    return a;
  };

  return [
    // 1. readInto targets that are not real typed arrays (RefCell poisoning before the fix).
    {
      name: 'readInto a Proxy, a fake, a revoked proxy: InvalidArgument',
      repeat: 2000,
      run(ctx) {
        const t = f32(ctx, [1, 2, 3, 4], [4]);
        for (const [what, target] of [
          ['Proxy', new Proxy(new Float32Array(4), {})],
          ['Object.create(Float32Array.prototype)', Object.create(Float32Array.prototype)],
          ['revoked proxy', revoked()],
          ['plain array', [0, 0, 0, 0]],
        ]) {
          throwsCode(() => t.readInto(target), 'InvalidArgument', what);
        }
        throwsCode(() => t.readInto(new Int32Array(4)), 'InvalidArgument', 'wrong kind');
        throwsCode(() => t.readInto(new Float32Array(3)), 'InvalidArgument', 'too short');
        throwsCode(() => t.readInto(detached()), 'InvalidArgument', 'detached');
        t.dispose();
      },
    },
    {
      name: 'readInto a subclass with its own subarray/length: the real array is filled',
      repeat: 2000,
      run(ctx) {
        const t = f32(ctx, [1, 2, 3, 4], [4]);
        const a = new ShortSubarray(4);
        same(Array.from(t.readInto(a)), [1, 2, 3, 4], 'subclass');
        const b = new Float32Array(4);
        Object.defineProperty(b, 'length', {
          get() {
            throw new Error('length getter');
          },
        });
        t.readInto(b);
        same(Array.from(new Float32Array(b.buffer)), [1, 2, 3, 4], 'throwing length getter');
        t.dispose();
      },
    },
    // 2. JS exceptions while wasm was on the stack (leaks, then a dead instance).
    {
      name: 'an attr element getter that throws: InvalidArgument, inputs not leaked',
      repeat: 2000,
      skip: !ops.has('MaxPool') && 'MaxPool not registered',
      run(ctx) {
        const x = f32(ctx, new Array(16).fill(1), [1, 4, 4, 1]);
        throwsCode(
          () => ctx.execute('MaxPool', [x], { ksize: throwingGetterArray(), strides: [1, 1, 1, 1], padding: 'VALID' }),
          'InvalidArgument',
          'attr getter',
        );
        x.dispose();
      },
    },
    {
      name: 'an attr getter that throws is an error, not "unset"',
      run(ctx) {
        const a = f32(ctx, [1, -2], [2]);
        const attrs = {};
        Object.defineProperty(attrs, 'T', {
          enumerable: true,
          get() {
            throw new Error('attr getter');
          },
        });
        const e = throwsCode(() => ctx.execute('Relu', [a], attrs), 'InvalidArgument', 'attr getter');
        check(/attr getter/.test(e.message), `message names the cause: ${e.message}`);
        a.dispose();
      },
    },
    {
      name: 'a detached typed array to ctx.tensor: InvalidArgument',
      repeat: 2000,
      run(ctx) {
        throwsCode(() => ctx.tensor(detached(), [4]), 'InvalidArgument', 'detached');
        throwsCode(() => ctx.tensor(detached()), 'InvalidArgument', 'detached, shape inferred');
      },
    },
    {
      name: 'inputs given as a Proxy or with getters: read in JS, errors are EagerErrors',
      repeat: 2000,
      run(ctx) {
        const a = f32(ctx, [1, 2], [2]);
        const inputs = [a, a];
        Object.defineProperty(inputs, 1, {
          get() {
            throw new Error('input getter');
          },
        });
        throwsCode(() => ctx.execute('AddV2', inputs), 'InvalidArgument', 'input getter');
        const trap = new Proxy([a, a], {
          get(t, k) {
            if (k === '1') throw new Error('trap');
            return t[k];
          },
        });
        throwsCode(() => ctx.execute('AddV2', trap), 'InvalidArgument', 'proxy');
        // A getter that runs an op while the inputs are being read.
        const sneaky = [a, a];
        Object.defineProperty(sneaky, 1, {
          get() {
            ctx.execute('AddV2', [a, a])[0].dispose();
            return a;
          },
        });
        throwsCode(() => ctx.execute('AddV2', sneaky), 'InvalidArgument', 're-entrant getter');
        throwsCode(() => ctx.execute('AddV2', { 0: a, 1: a, length: 2 }), 'InvalidArgument', 'array-like');
        // Proxies claiming a huge length fail at once (no loop over a billion elements, no abort).
        const huge = (target) => new Proxy(target, { get: (t, k) => (k === 'length' ? 1e9 : t[k]) });
        throwsCode(() => ctx.execute('AddV2', huge([a, a])), 'InvalidArgument', 'inputs claiming 1e9');
        throwsCode(() => ctx.execute('Relu', [a], { T: huge([1]) }), 'InvalidArgument', 'attr list claiming 1e9');
        throwsCode(() => ctx.tensor(huge([[1]])), 'InvalidArgument', 'values claiming 1e9 rows');
        const fake = Object.create(api.Tensor.prototype);
        throwsCode(() => ctx.execute('AddV2', [a, fake]), 'InvalidArgument', 'fake tensor');
        const [s] = ctx.execute('AddV2', [a, a]);
        same(Array.from(s.dataSync()), [2, 4], 'still computes');
        s.dispose();
        a.dispose();
      },
    },
    // 3. Options read by Rust while it held the context ("busy" forever).
    {
      name: 'setCacheOptions with throwing proxies and getters: InvalidArgument, context usable',
      repeat: 2000,
      run(ctx) {
        const ownKeysThrows = new Proxy(
          {},
          {
            ownKeys() {
              throw new Error('ownKeys');
            },
          },
        );
        throwsCode(() => ctx.setCacheOptions(ownKeysThrows), 'InvalidArgument', 'ownKeys throws');
        const exclude = ['AddV2'];
        Object.defineProperty(exclude, 0, {
          get() {
            throw new Error('exclude getter');
          },
        });
        throwsCode(() => ctx.setCacheOptions({ exclude }), 'InvalidArgument', 'exclude getter');
        // A getter that calls back into the context: it runs before wasm is entered, so it works.
        const reentrant = ['AddV2'];
        Object.defineProperty(reentrant, 0, {
          enumerable: true,
          get() {
            ctx.memory();
            ctx.cacheStats();
            return 'AddV2';
          },
        });
        ctx.setCacheOptions({ exclude: reentrant });
        check(ctx.cacheOptions().exclude.includes('AddV2'), 're-entrant getter applied');
        ctx.setCacheOptions({ exclude: [] });
        ctx.memory();
      },
    },
    {
      name: 'new EagerContext(hostile options): InvalidArgument',
      repeat: 200,
      fresh: true,
      run() {
        const hostile = [
          new Proxy({}, { ownKeys: () => { throw new Error('ownKeys'); } }),
          { cache: new Proxy({ maxEntries: 1 }, { get: () => { throw new Error('get'); } }) },
          { cache: { maxEntries: 10n ** 30n } },
          { resourceNames: Symbol('x') },
          { cache: { exclude: 'AddV2' } },
          { get cache() { throw new Error('getter'); } },
        ];
        for (const o of hostile) throwsCode(() => new api.EagerContext(o), 'InvalidArgument', 'options');
      },
    },
    {
      name: 'weights whose subarray throws, or a bare SharedArrayBuffer: loads and predicts',
      repeat: 20,
      async run(ctx) {
        const w = new ThrowingSubarray(tinyWeights.length);
        w.set(tinyWeights);
        const sources = [w];
        if (typeof SharedArrayBuffer === 'function') {
          const sab = new SharedArrayBuffer(tinyWeights.length);
          new Uint8Array(sab).set(tinyWeights);
          sources.push(sab);
        }
        for (const weights of sources) {
          const m = await ctx.loadGraphModel({ modelJson: tinyModelJson, weights });
          const x = f32(ctx, [1, 1, 1], [1, 3]);
          const out = m.predict(x);
          same(Array.from(out.y.dataSync()), [2, 6, 12], 'y = (x + w) * w');
          out.y.dispose();
          out.sum.dispose();
          x.dispose();
          m.dispose();
        }
        await rejectsCode(
          ctx.loadGraphModel({ modelJson: tinyModelJson, weights: { 'tiny.bin': new Proxy({}, {}) } }),
          'InvalidArgument',
          'weights a Proxy',
        );
      },
    },
    // 4. A typed array whose length changes between reads (an assertion panic before).
    {
      name: 'typed arrays with changing or lying lengths: the real elements are read',
      repeat: 2000,
      run(ctx) {
        const a = new Float32Array([1, 2, 3, 4]);
        let n = 0;
        Object.defineProperty(a, 'length', {
          get() {
            n += 1;
            return n % 2 ? 4 : 2;
          },
        });
        const t = ctx.tensor(a, [4]);
        same(Array.from(t.dataSync()), [1, 2, 3, 4], 'own length getter ignored');
        t.dispose();
        if (typeof ArrayBuffer.prototype.resize === 'function') {
          const buf = new ArrayBuffer(16, { maxByteLength: 32 });
          const tracking = new Float32Array(buf);
          tracking.set([5, 6, 7, 8]);
          const u = ctx.tensor(tracking);
          same(u.shape, [4], 'length-tracking view');
          buf.resize(8);
          same(Array.from(u.dataSync()), [5, 6, 7, 8], 'copied before the resize');
          const v = ctx.tensor(tracking);
          same(v.shape, [2], 'after the resize');
          u.dispose();
          v.dispose();
        }
      },
    },
    // 5. tidy scopes left open (8 bytes leaked per later op).
    {
      name: 'tidy whose result has a throwing getter: InvalidArgument, scope closed',
      repeat: 2000,
      run(ctx) {
        const a = f32(ctx, [1, 2], [2]);
        throwsCode(
          () =>
            ctx.tidy(() => ({
              kept: ctx.execute('AddV2', [a, a])[0],
              get bad() {
                throw new Error('result getter');
              },
            })),
          'InvalidArgument',
          'result getter',
        );
        throwsCode(
          () => ctx.tidy(() => new Proxy({}, { getPrototypeOf: () => { throw new Error('trap'); } })),
          'InvalidArgument',
          'result proxy',
        );
        throwsCode(() => ctx.tidy(() => Promise.resolve(1)), 'InvalidArgument', 'async');
        a.dispose();
      },
    },
    {
      name: 'a stack overflow inside nested tidy: scopes closed, later ops leak nothing',
      repeat: 3,
      run(ctx) {
        const a = f32(ctx, [1, 2], [2]);
        const deep = () => ctx.tidy(() => {
          ctx.execute('AddV2', [a, a]);
          return deep();
        });
        let err = null;
        try {
          deep();
        } catch (e) {
          err = e;
        }
        check(err !== null, 'the recursion overflowed');
        for (let i = 0; i < 1000; i++) ctx.execute('AddV2', [a, a])[0].dispose(); // warm
        const heap = ctx.memory().heapBytes;
        for (let i = 0; i < 1000; i++) ctx.execute('AddV2', [a, a])[0].dispose();
        check(ctx.memory().heapBytes === heap, `no per-op leak after the overflow (${ctx.memory().heapBytes - heap} bytes)`);
        a.dispose();
      },
    },
    // 6. tidy keeping: any depth, null-prototype objects, Maps, Sets; not class instances.
    {
      name: 'tidy keeps returned tensors at any depth and in null-prototype objects, Maps, Sets',
      repeat: 50,
      run(ctx) {
        const a = f32(ctx, [1, 2], [2]);
        const base = ctx.memory().numTensors;
        const made = [];
        const result = ctx.tidy(() => {
          const mk = () => {
            const [t] = ctx.execute('AddV2', [a, a]);
            made.push(t);
            return t;
          };
          let deepArr = mk();
          for (let i = 0; i < 50; i++) deepArr = [deepArr];
          let deepObj = mk();
          for (let i = 0; i < 50; i++) deepObj = { v: deepObj };
          const bare = Object.create(null);
          bare.t = mk();
          const cyclic = { t: mk() };
          cyclic.self = cyclic;
          ctx.execute('AddV2', [a, a]); // not returned: disposed
          return { deepArr, deepObj, bare, map: new Map([['k', mk()]]), set: new Set([mk()]), cyclic };
        });
        check(made.every((t) => !t.isDisposed), 'every returned tensor is kept');
        check(ctx.memory().numTensors === base + made.length, 'the one not returned is disposed');
        for (const t of made) t.dispose();
        check(result.bare.t === made[2], 'result returned as is');
        class Box {
          constructor(t) {
            this.t = t;
          }
        }
        const boxed = ctx.tidy(() => new Box(ctx.execute('AddV2', [a, a])[0]));
        check(boxed.t.isDisposed, 'class instances are not searched (documented)');
        a.dispose();
      },
    },
    // 7. A model output named __proto__.
    {
      name: "an output named '__proto__' is an ordinary key of predict()'s result",
      repeat: 20,
      async run(ctx) {
        for (const name of ['__proto__', 'constructor', 'toString']) {
          const m = await ctx.loadGraphModel({ modelJson: tinyModelWithOutput(name), weights: tinyWeights });
          const x = f32(ctx, [1, 1, 1], [1, 3]);
          const out = m.predict(x);
          check(Object.keys(out).includes(name) && Object.keys(out).includes('sum'), `keys ${Object.keys(out)}`);
          check(Object.getPrototypeOf(out) === null, 'null prototype');
          same(Array.from(out[name].dataSync()), [2, 6, 12], name);
          for (const k of Object.keys(out)) out[k].dispose();
          x.dispose();
          m.dispose();
        }
      },
    },
    // 8. Stale handles.
    {
      name: 'a disposed tensor never names a later one',
      run(ctx) {
        const a = f32(ctx, [7], [1]);
        a.dispose();
        const later = [];
        for (let i = 0; i < 5000; i++) later.push(f32(ctx, [i], [1]));
        check(a.isDisposed, 'still disposed');
        throwsCode(() => a.dataSync(), 'FailedPrecondition', 'dataSync on a disposed tensor');
        a.dispose();
        check(later.every((t) => !t.isDisposed), 'disposing a stale tensor frees nothing else');
        for (const t of later) t.dispose();
      },
    },
    // 10. Rank limit and the scratch buffer.
    {
      name: 'rank over 254: InvalidArgument, scratch buffer not grown',
      repeat: 50,
      run(ctx) {
        throwsCode(() => ctx.tensor(new Float32Array(1), new Array(10_000_000).fill(1)), 'InvalidArgument', 'rank 1e7');
        throwsCode(() => ctx.tensor(new Float32Array(1), new Array(255).fill(1)), 'InvalidArgument', 'rank 255');
        const t = ctx.tensor(new Float32Array(1), new Array(254).fill(1));
        check(t.rank === 254, 'rank 254 works');
        if (ops.has('Reshape')) {
          const s = ctx.tensor(new Int32Array(255).fill(1));
          throwsCode(() => ctx.execute('Reshape', [t, s]), 'InvalidArgument', 'Reshape to rank 255');
          s.dispose();
        }
        t.dispose();
      },
    },
    {
      name: 'an execute with many inputs: the scratch buffer is given back',
      skip: !ops.has('AddN') && 'AddN not registered',
      run(ctx) {
        const a = f32(ctx, [1], [1]);
        const inputs = new Array(100_000).fill(a);
        ctx.execute('AddN', inputs)[0].dispose(); // the kernel is cached on the first call
        const heap0 = ctx.memory().heapBytes;
        const [s] = ctx.execute('AddN', inputs);
        same(Array.from(s.dataSync()), [100_000], 'sum');
        s.dispose();
        check(ctx.memory().heapBytes === heap0, `heap back (${ctx.memory().heapBytes - heap0} bytes more)`);
        a.dispose();
      },
    },
    // 12. The per-tensor limit, as documented.
    {
      name: 'a tensor over the per-tensor limit: ResourceExhausted naming the limit',
      skip: !ops.has('Fill') && 'Fill not registered',
      run(ctx) {
        const dims = ctx.tensor(new Int32Array([268435456]));
        const v = f32(ctx, [0], []);
        const e = throwsCode(() => ctx.execute('Fill', [dims, v]), 'ResourceExhausted', 'Fill [2^28]');
        check(/at most 268435455/.test(e.message), e.message);
        dims.dispose();
        v.dispose();
      },
    },
    // Minor ones.
    {
      name: 'shapes and values JS cannot represent: InvalidArgument, not TypeError/RangeError',
      repeat: 200,
      run(ctx) {
        throwsCode(() => ctx.tensor(new Float32Array(2), [1n, 2]), 'InvalidArgument', 'BigInt in a shape');
        throwsCode(() => ctx.tensor(new Float32Array(2), ['2']), 'InvalidArgument', 'string in a shape');
        let deep = [1];
        for (let i = 0; i < 20_000; i++) deep = [deep];
        throwsCode(() => ctx.tensor(deep), 'InvalidArgument', '20,000-deep nesting');
        throwsCode(() => ctx.tensor(2n ** 70n), 'InvalidArgument', 'int64 2n**70n');
        throwsCode(() => ctx.tensor([2n ** 63n]), 'InvalidArgument', 'int64 2^63');
        throwsCode(() => ctx.tensor([1.5], [1], 'int64'), 'InvalidArgument', 'int64 1.5');
        const ok = ctx.tensor([-(2n ** 63n), 2n ** 63n - 1n]);
        same(ok.dataSync().join(','), `${-(2n ** 63n)},${2n ** 63n - 1n}`, 'int64 range ends');
        ok.dispose();
        throwsCode(() => ctx.tensor([1], [1], '__proto__'), 'InvalidArgument', "dtype '__proto__'");
        throwsCode(() => ctx.tensor([1], [1], { toString: () => 'float32' }), 'InvalidArgument', 'dtype object');
        throwsCode(() => ctx.tensor(new Proxy([1, 2], { get: () => { throw new Error('x'); } })), 'InvalidArgument', 'values proxy');
        throwsCode(() => ctx.tensor(revoked()), 'InvalidArgument', 'values a revoked proxy');
        const revokedArray = Proxy.revocable([1], {});
        revokedArray.revoke();
        throwsCode(() => ctx.tensor([1], revokedArray.proxy), 'InvalidArgument', 'shape a revoked proxy');
        throwsCode(() => ctx.tensor(revokedArray.proxy), 'InvalidArgument', 'values a revoked array proxy');
        const x = f32(ctx, [1, 2, 3, 4], [1, 2, 2, 1]);
        if (ops.has('MaxPool')) {
          throwsCode(() => ctx.ops.maxPool(x, { get strides() { throw new Error('opt'); } }), 'InvalidArgument', 'helper options getter');
        }
        throwsCode(() => ctx.ops.reshape(x, [1n, 4]), 'InvalidArgument', 'helper shape with a bigint');
        x.dispose();
      },
    },
    {
      name: 'ctx.tensor converts as TF.js does, exactly or not at all (issue 17)',
      repeat: 20,
      run(ctx) {
        const made = (values, shape, dtype) => {
          const t = ctx.tensor(values, shape, dtype);
          const r = { dtype: t.dtype, shape: t.shape, data: Array.from(t.dataSync(), (x) => (typeof x === 'bigint' ? String(x) : x)) };
          t.dispose();
          return r;
        };
        // Integer typed arrays (pixel bytes included) make int32 unless a dtype is given.
        same(made(new Uint8Array([0, 128, 255])), { dtype: 'int32', shape: [3], data: [0, 128, 255] }, 'Uint8Array');
        same(made(new Uint8ClampedArray([0, 255])).dtype, 'int32', 'Uint8ClampedArray');
        for (const T of [Int8Array, Int16Array, Uint16Array, Uint32Array]) same(made(new T([1, 2])), { dtype: 'int32', shape: [2], data: [1, 2] }, T.name);
        same(made(new Uint8Array([0, 2]), undefined, 'bool'), { dtype: 'bool', shape: [2], data: [0, 1] }, 'Uint8Array as bool');
        same(made(new Uint8Array([0, 200]), undefined, 'float32').data, [0, 200], 'Uint8Array as float32');
        same(made(new BigUint64Array([5n])), { dtype: 'int64', shape: [1], data: ['5'] }, 'BigUint64Array');
        throwsCode(() => ctx.tensor(new Uint32Array([4294967295])), 'InvalidArgument', 'Uint32 over int32');
        throwsCode(() => ctx.tensor(new BigUint64Array([2n ** 64n - 1n])), 'InvalidArgument', 'BigUint64 over int64');
        throwsCode(() => ctx.tensor(new Float32Array([1.5]), undefined, 'int32'), 'InvalidArgument', '1.5 as int32');
        // Typed-array rows.
        same(made([new Float32Array([1, 2]), new Float32Array([3, 4])]), { dtype: 'float32', shape: [2, 2], data: [1, 2, 3, 4] }, 'typed rows');
        throwsCode(() => ctx.tensor([new Float32Array([1, 2]), new Float32Array([3])]), 'InvalidArgument', 'ragged typed rows');
        throwsCode(() => ctx.tensor([[1, 2], new Float32Array([3])]), 'InvalidArgument', 'ragged mixed rows');
        // Values that cannot be represented.
        const strs = ctx.tensor(['a', 'b']);
        same({ dtype: strs.dtype, shape: strs.shape, data: strs.dataSync() }, { dtype: 'string', shape: [2], data: ['a', 'b'] }, 'strings make a string tensor');
        strs.dispose();
        throwsCode(() => ctx.tensor([1, 'a']), 'InvalidArgument', 'a string among numbers');
        throwsCode(() => ctx.tensor(['a', 1]), 'InvalidArgument', 'a number among strings');
        throwsCode(() => ctx.tensor([1, true]), 'InvalidArgument', 'mixed number and boolean');
        throwsCode(() => ctx.tensor([1, null]), 'InvalidArgument', 'null');
        throwsCode(() => ctx.tensor([1, {}]), 'InvalidArgument', 'an object');
        throwsCode(() => ctx.tensor([2 ** 31], undefined, 'int32'), 'InvalidArgument', 'int32 out of range');
        throwsCode(() => ctx.tensor([2n ** 60n], undefined, 'float32'), 'InvalidArgument', 'bigint not exact as float32');
        same(made([true, 0, 2], undefined, 'bool').data, [1, 0, 1], 'numbers as bool');
        same(made([-(2 ** 31), 2 ** 31 - 1], undefined, 'int32').data, [-(2 ** 31), 2 ** 31 - 1], 'int32 range ends');
      },
    },
    {
      name: 'Reshape [0, 4] to [-1, 0] gives [4, 0], as TF 2.18 does',
      skip: !ops.has('Reshape') && 'Reshape not registered',
      run(ctx) {
        // tf.reshape(tf.zeros([0, 4]), [-1, 0]).shape == (4, 0) in TF 2.18 (checked with the venv).
        const x = ctx.tensor(new Float32Array(0), [0, 4]);
        const s = ctx.tensor(new Int32Array([-1, 0]));
        const [y] = ctx.execute('Reshape', [x, s]);
        same(y.shape, [4, 0], 'shape');
        for (const t of [x, s, y]) t.dispose();
      },
    },
    {
      name: 'a custom fetch returning null or a non-Response: Unavailable',
      repeat: 20,
      async run(ctx) {
        const badUrl = new Proxy(new URL('http://127.0.0.1:9/m.json'), { get: () => { throw new Error('href'); } });
        await rejectsCode(ctx.loadGraphModel(badUrl), 'InvalidArgument', 'a URL proxy whose href throws');
        await rejectsCode(ctx.loadGraphModel({ get modelJson() { throw new Error('getter'); } }), 'InvalidArgument', 'a source getter');
        await rejectsCode(ctx.loadGraphModel({ modelJson: tinyModelJson }, { get onProgress() { throw new Error('opt'); } }), 'InvalidArgument', 'an options getter');
        for (const value of [null, 42, {}, new Proxy({}, { get: () => { throw new Error('get'); } })]) {
          await rejectsCode(ctx.loadGraphModel('http://127.0.0.1:9/model.json', { fetch: async () => value }), 'Unavailable', `fetch -> ${typeof value}`);
        }
      },
    },
    {
      name: 'fetch errors name the URL, the status and the content type, and say when HTML came back',
      repeat: 5,
      async run(ctx) {
        const html = '<!doctype html><html><body>app</body></html>';
        const respond = (body, status, type) => async () =>
          new Response(body, { status, headers: type === null ? {} : { 'content-type': type } });
        const url = 'http://127.0.0.1:9/app/model.json';
        let e = await rejectsCode(ctx.loadGraphModel(url, { fetch: respond(html, 200, 'text/html; charset=utf-8') }), 'NotFound', 'HTML');
        check(/looks like HTML/.test(e.message) && e.message.includes(url) && /HTTP 200/.test(e.message) && /text\/html/.test(e.message), e.message);
        e = await rejectsCode(ctx.loadGraphModel(url, { fetch: respond(new TextEncoder().encode(`  ${html}`), 200, null) }), 'NotFound', 'HTML, no type');
        check(/looks like HTML/.test(e.message) && /content-type none/.test(e.message), e.message);
        e = await rejectsCode(ctx.loadGraphModel(url, { fetch: respond('gone', 404, 'text/plain') }), 'NotFound', '404');
        check(e.message.includes(url) && /HTTP 404/.test(e.message) && /text\/plain/.test(e.message), e.message);
        // The model.json is right, a shard comes back as HTML.
        const fetchFn = async (u) =>
          u.endsWith('model.json')
            ? new Response(tinyModelJson, { headers: { 'content-type': 'application/json' } })
            : new Response(html, { headers: { 'content-type': 'text/html' } });
        e = await rejectsCode(ctx.loadGraphModel(url, { fetch: fetchFn }), 'NotFound', 'shard HTML');
        check(/shard http:\/\/127\.0\.0\.1:9\/app\/tiny\.bin looks like HTML/.test(e.message), e.message);
      },
    },
    {
      name: 'ctx.dispose() during a load aborts the download and rejects with Cancelled',
      repeat: 20,
      fresh: true,
      async run() {
        const ctx = new api.EagerContext();
        let signal = null;
        const fetchFn = (url, init) => {
          signal = init.signal;
          return new Promise((resolve, reject) => {
            init.signal.addEventListener('abort', () => reject(new Error('aborted')));
          });
        };
        const p = ctx.loadGraphModel('http://127.0.0.1:9/model.json', { fetch: fetchFn });
        await Promise.resolve();
        ctx.dispose();
        await rejectsCode(p, 'Cancelled', 'load during dispose');
        check(signal !== null && signal.aborted, 'the fetch was aborted');
        check(ctx.isDisposed, 'context disposed');
      },
    },
    {
      name: 'ctx.dispose() inside onProgress while weights are restored: Cancelled, context disposed',
      repeat: 20,
      fresh: true,
      async run() {
        const ctx = new api.EagerContext();
        // The first report at 0.9 or above comes before the restore; the second from inside it.
        let late = 0;
        let called = false;
        const onProgress = (f) => {
          if (f >= 0.9 && ++late === 2) {
            called = true;
            ctx.dispose();
          }
        };
        await rejectsCode(ctx.loadGraphModel({ modelJson: tinyModelJson, weights: tinyWeights }, { onProgress }), 'Cancelled', 'dispose in onProgress');
        check(called, 'onProgress ran during the restore');
        check(ctx.isDisposed, 'context disposed');
      },
    },
  ];
}

/**
 * Runs every case: a throwaway run first (so that one-time allocations are made), then `repeat`
 * runs in a fresh context, with live tensors and heap in use compared before and after (read from
 * an observer context that runs nothing). Returns `[{ name, ok, error?, ms }]`.
 */
export async function runHostileCases(api, { log = () => {}, only = null } = {}) {
  /** Checks that `k` computes, then disposes it. */
  const works = (k) => {
    const a = k.tensor(new Float32Array([1, 2]), [2]);
    const [s] = k.execute('AddV2', [a, a]);
    check(String(Array.from(s.dataSync())) === '2,4', 'a context works after the case');
    a.dispose();
    s.dispose();
    k.dispose();
  };
  const results = [];
  const observer = new api.EagerContext();
  const cases = hostileCases(api).filter((c) => only === null || only.test(c.name));
  for (const c of cases) {
    if (c.skip) {
      results.push({ name: c.name, ok: true, skipped: c.skip });
      continue;
    }
    const t0 = Date.now();
    try {
      const warm = new api.EagerContext();
      await c.run(warm);
      works(warm); // what the checks below allocate once (e.g. the reused input vector)
      const before = observer.memory();
      const ctx = new api.EagerContext();
      for (let i = 0; i < (c.repeat ?? 1); i++) await c.run(ctx);
      // The context still works, and so does a new one.
      for (const k of c.fresh ? [new api.EagerContext()] : [ctx, new api.EagerContext()]) works(k);
      if (!ctx.isDisposed) ctx.dispose();
      const after = observer.memory();
      check(after.numTensors === before.numTensors, `live tensors ${before.numTensors} -> ${after.numTensors}`);
      check(after.heapBytes === before.heapBytes, `heap in use ${before.heapBytes} -> ${after.heapBytes}`);
      results.push({ name: c.name, ok: true, ms: Date.now() - t0 });
      log(`ok ${c.name} (${c.repeat ?? 1}x, ${Date.now() - t0} ms)`);
    } catch (e) {
      results.push({ name: c.name, ok: false, error: (e && e.stack) || String(e), ms: Date.now() - t0 });
      log(`FAIL ${c.name}: ${e && e.message}`);
    }
  }
  observer.dispose();
  return results;
}
