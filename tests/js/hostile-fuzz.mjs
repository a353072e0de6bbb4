// A seeded fuzz loop over the JS boundary: random attrs, options, shapes, values and targets (plain
// values, Proxies, throwing getters, detached and subclassed typed arrays, fake and disposed
// tensors) thrown at execute, tensor, readInto, tidy, setCacheOptions, new EagerContext, every
// ctx.ops helper and the chainable Tensor methods. Every
// call must return or throw an EagerError that is not 'Internal'; afterwards the context still
// works, and live tensors and heap in use are back where they were. Shared by Node and Chromium.

const OPS = [
  ['AddV2', []],
  ['Relu', ['T']],
  ['MatMul', ['transpose_a', 'transpose_b', 'T']],
  ['MaxPool', ['ksize', 'strides', 'padding', 'data_format', 'T']],
  ['Conv2D', ['strides', 'padding', 'dilations', 'explicit_paddings', 'data_format', 'T']],
  ['Reshape', ['T', 'Tshape']],
  ['Cast', ['SrcT', 'DstT', 'Truncate']],
  ['Sum', ['keep_dims', 'T', 'Tidx']],
  ['Transpose', ['T', 'Tperm']],
  ['ConcatV2', ['N', 'T', 'Tidx']],
  ['StridedSlice', ['begin_mask', 'end_mask', 'ellipsis_mask', 'new_axis_mask', 'shrink_axis_mask']],
  ['LeakyRelu', ['alpha', 'T']],
  ['Identity', ['T']],
];
const DTYPES = ['float32', 'int32', 'int64', 'bool', 'resource', 'string', '__proto__', 'DT_FLOAT', ''];
const KINDS = [Float32Array, Float64Array, Int32Array, Uint8Array, Int8Array, Uint32Array, BigInt64Array];

function prng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function fuzzBoundary(api, { ms = 3000, seed = 1 } = {}) {
  const rnd = prng(seed);
  const int = (n) => Math.floor(rnd() * n);
  const pick = (a) => a[int(a.length)];
  const observer = new api.EagerContext();
  const before = observer.memory();
  const ctx = new api.EagerContext();
  const pool = [
    ctx.tensor(new Float32Array([1, 2, 3, 4]), [2, 2]),
    ctx.tensor(new Float32Array(16).fill(0.5), [1, 4, 4, 1]),
    ctx.tensor(new Int32Array([2, 2])),
    ctx.tensor(new Int32Array([0])),
    ctx.tensor([true, false]),
    ctx.tensor([5n]),
    ctx.tensor(3),
  ];
  const made = [];
  const stale = ctx.tensor(1);
  stale.dispose();
  const thrower = () => {
    throw new Error('fuzz getter');
  };

  const number = () => pick([0, 1, -1, 2, 3, 1.5, -0, NaN, Infinity, -Infinity, 2 ** 31, 2 ** 53 + 2, 1e300, 255, 256]);
  const typed = () => {
    const T = pick(KINDS);
    const a = new T(int(9));
    if (rnd() < 0.1) structuredClone(a.buffer, { transfer: [a.buffer] });
    if (rnd() < 0.1) Object.defineProperty(a, 'length', { get: thrower });
    return rnd() < 0.1 ? new Proxy(a, {}) : a;
  };
  const value = (depth) => {
    const r = int(depth > 3 ? 8 : 17);
    switch (r) {
      case 0:
      case 1:
        return number();
      case 2:
        return pick(['', 'VALID', 'SAME', 'EXPLICIT', 'NHWC', 'NCHW', 'x'.repeat(300), '__proto__']);
      case 3:
        return rnd() < 0.5;
      case 4:
        return pick([0n, -1n, 2n ** 70n, 2n ** 63n - 1n]);
      case 5:
        return pick([null, undefined]);
      case 6:
        return pick(DTYPES);
      case 7:
        return pick([...pool, stale, Object.create(api.Tensor.prototype)]);
      case 8:
      case 9:
      case 10:
        return Array.from({ length: int(6) }, () => value(depth + 1));
      case 11: {
        const o = rnd() < 0.2 ? Object.create(null) : {};
        for (let i = int(4); i > 0; i--) o[pick(['a', 'maxEntries', 'maxBytes', 'exclude', 'cache', '__proto__'])] = value(depth + 1);
        return o;
      }
      case 12:
        return typed();
      case 13: {
        const a = Array.from({ length: 1 + int(4) }, () => value(depth + 1));
        Object.defineProperty(a, int(a.length), { get: thrower });
        return a;
      }
      case 14:
        return new Proxy(rnd() < 0.5 ? [1, 2] : {}, pick([{}, { get: thrower }, { ownKeys: thrower }, { getPrototypeOf: thrower }]));
      case 15:
        return pick([Symbol('s'), () => 1]);
      default:
        return new Array(pick([255, 300, 1000])).fill(1);
    }
  };
  const attrs = (names) => {
    if (rnd() < 0.15) return value(0);
    const o = {};
    for (const n of names) if (rnd() < 0.6) o[n] = value(1);
    if (rnd() < 0.2) Object.defineProperty(o, pick(names.length ? names : ['x']), { enumerable: true, get: thrower });
    return o;
  };
  const shape = () => (rnd() < 0.7 ? Array.from({ length: int(5) }, () => pick([0, 1, 2, 4, -1, 1.5, 2 ** 40])) : value(1));

  const helpers = [
    ...Object.entries(ctx.ops).filter(([, f]) => typeof f === 'function'),
    ...Object.entries(ctx.ops.image ?? {}).map(([k, f]) => [`image.${k}`, f]),
  ];
  const methods = Object.keys(ctx.ops).filter((k) => typeof api.Tensor.prototype[k] === 'function' && k !== 'dispose');
  let last = ''; // the helper or method of the current call, for the failure message
  const arg = () => (rnd() < 0.5 ? pick(pool) : value(2));
  const calls = [
    () => {
      const [name, f] = pick(helpers);
      last = `ctx.ops.${name}`;
      return f(...Array.from({ length: int(6) }, arg));
    },
    () => {
      const m = pick(methods);
      last = `Tensor.${m}`;
      return pick(pool)[m](...Array.from({ length: int(5) }, arg));
    },
    () => {
      const [op, names] = pick(OPS);
      const inputs = rnd() < 0.8 ? Array.from({ length: int(4) }, () => (rnd() < 0.9 ? pick(pool) : value(2))) : value(1);
      return ctx.execute(op, inputs, attrs(names));
    },
    () => ctx.tensor(rnd() < 0.5 ? typed() : value(0), rnd() < 0.5 ? undefined : shape(), rnd() < 0.5 ? undefined : value(2)),
    () => pick(pool).readInto(rnd() < 0.5 ? typed() : value(1)),
    () => ctx.setCacheOptions(value(0)),
    () => ctx.setCacheOptions({ maxEntries: value(2), maxBytes: value(2), exclude: value(1) }),
    () => new api.EagerContext(rnd() < 0.5 ? value(0) : { cache: value(1), resourceNames: value(2) }).dispose(),
    () => {
      ctx.tidy(() => {
        const [t] = ctx.execute('AddV2', [pool[0], pool[0]]);
        made.push(t); // disposed by tidy or below
        return pick([t, [t, value(1)], { t, v: value(1) }, value(1)]);
      });
    },
  ];

  const failures = [];
  const codes = {};
  let n = 0;
  let errors = 0;
  // What calls return: a Tensor (tensor, readInto's target is not one), execute's plain array or
  // a helper's record of tensors ({ values, indices }).
  const collect = (v) => {
    if (v instanceof api.Tensor) {
      if (!pool.includes(v)) made.push(v);
    } else if (Array.isArray(v)) {
      for (const t of v) collect(t);
    } else if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      for (const t of Object.values(v)) collect(t);
    }
  };
  const end = Date.now() + ms;
  while (Date.now() < end) {
    for (let k = 0; k < 50; k++) {
      n++;
      last = '';
      try {
        collect(pick(calls)());
      } catch (e) {
        if (e instanceof api.EagerError && e.code !== 'Internal') {
          errors++;
          codes[e.code] = (codes[e.code] ?? 0) + 1;
        } else if (failures.length < 20) {
          failures.push(`call ${n}${last && ` (${last})`}: ${e?.constructor?.name} ${e?.code ?? ''}: ${e?.message}`);
        }
      }
    }
    for (const t of made.splice(0)) t.dispose();
  }
  try {
    for (const t of pool) if (t.isDisposed) failures.push('a pool tensor was disposed');
    ctx.setCacheOptions({ maxEntries: Infinity, maxBytes: Infinity, exclude: [] });
    const [s] = ctx.execute('AddV2', [pool[0], pool[0]]);
    if (String(Array.from(s.dataSync())) !== '2,4,6,8') failures.push('AddV2 gives a wrong result after the loop');
    s.dispose();
    for (const t of pool) t.dispose();
    ctx.dispose();
    const after = observer.memory();
    if (after.numTensors !== before.numTensors) failures.push(`live tensors ${before.numTensors} -> ${after.numTensors}`);
    if (after.heapBytes !== before.heapBytes) failures.push(`heap in use ${before.heapBytes} -> ${after.heapBytes}`);
  } catch (e) {
    failures.push(`after the loop: ${e?.constructor?.name} ${e?.code ?? ''}: ${e?.message}`);
  }
  observer.dispose();
  return { calls: n, errors, codes, failures, seed };
}
