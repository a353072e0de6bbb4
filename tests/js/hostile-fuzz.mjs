// A seeded fuzz loop over the JS boundary: random attrs, options, shapes, values and targets (plain
// values, Proxies, throwing getters, detached and subclassed typed arrays, fake and disposed
// tensors) thrown at execute, tensor, readInto, tidy, setCacheOptions, new EagerContext, every
// ctx.ops helper and the chainable Tensor methods. Every
// call must return or throw an EagerError that is not 'Internal'; afterwards the context still
// works, and live tensors and heap in use are back where they were. Shared by Node and Chromium.
// Also: fuzzModels (generated model.json files, from memory and over HTTP) and fuzzMemoryPressure
// (wasm memory filled, every API called, freed), run by hostile.test.mjs.

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

// ---------------------------------------------------------------------------------------------
// Model files: seeded, generated model.json cases loaded from memory and over HTTP.

/** TF status code names an EagerError may carry ('Internal' is left out: it means a bug). */
export const STATUS_CODES = new Set([
  'Cancelled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists', 'PermissionDenied',
  'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented', 'Unavailable', 'DataLoss',
  'Unauthenticated',
]);

const b64 = (bytes) => btoa(String.fromCharCode(...bytes));
const utf8 = (s) => new TextEncoder().encode(s);
/** A name of about `len` characters starting with `stem` ('~': one no converter writes). */
const longName = (stem, len, unicode) => {
  const fill = unicode ? 'é名/' : 'n';
  return `${stem}~${fill.repeat(Math.max(0, Math.ceil((len - stem.length) / fill.length)))}`;
};

/** `input` ('name', 'name:k' or '^name') with node `old` renamed `neu`, or null. */
function renameInput(input, old, neu) {
  if (typeof input !== 'string') return null;
  const ctl = input.startsWith('^') ? '^' : '';
  const rest = input.slice(ctl.length);
  const colon = rest.indexOf(':');
  const node = colon < 0 ? rest : rest.slice(0, colon);
  return node === old ? `${ctl}${neu}${colon < 0 ? '' : rest.slice(colon)}` : null;
}

const nodesOf = (m) => (Array.isArray(m.modelTopology?.node) ? m.modelTopology.node : []);
const functionsOf = (m) => (Array.isArray(m.modelTopology?.library?.function) ? m.modelTopology.library.function : []);
/** The library's functions that have a name (an edit may have broken others). */
const namedFunctions = (m) => functionsOf(m).filter((f) => typeof f?.signature?.name === 'string');

/** Renames top-level node `old` everywhere; false when a function body has a node of that name. */
function renameNode(m, old, neu) {
  for (const n of nodesOf(m)) {
    if (n.name === old) n.name = neu;
    if (Array.isArray(n.input)) n.input = n.input.map((i) => renameInput(i, old, neu) ?? i);
  }
  for (const side of ['inputs', 'outputs']) {
    for (const info of Object.values(m.signature?.[side] ?? {})) {
      const r = renameInput(info?.name, old, neu);
      if (r !== null) info.name = r;
    }
  }
  for (const g of m.weightsManifest ?? []) for (const w of g.weights ?? []) if (w.name === old) w.name = neu;
  return !functionsOf(m).some((f) => Array.isArray(f?.nodeDef) && f.nodeDef.some((n) => n?.name === old));
}

/** Every `{ func: { name: old } }` (or a list of them) under `v` now names `neu`. */
function renameFuncRefs(v, old, neu) {
  if (Array.isArray(v)) {
    for (const x of v) renameFuncRefs(x, old, neu);
  } else if (v !== null && typeof v === 'object') {
    const f = v.func;
    for (const r of Array.isArray(f) ? f : f ? [f] : []) if (r && r.name === old) r.name = neu;
    for (const x of Object.values(v)) renameFuncRefs(x, old, neu);
  }
}

/** Adds a function with `f`'s signature that calls `f` (twice: the second call's results unused). */
function wrapFunction(m, f, wrapper, twice) {
  const sig = f.signature;
  const args = (sig.inputArg ?? []).map((a) => a.name);
  const ret = {};
  (sig.outputArg ?? []).forEach((o, k) => (ret[o.name] = `call:output:${k}`));
  const call = (name) => ({ name, op: 'PartitionedCall', input: args, attr: { f: { func: { name: sig.name } } } });
  renameFuncRefs(m.modelTopology, sig.name, wrapper);
  functionsOf(m).push({ signature: { ...sig, name: wrapper }, nodeDef: twice ? [call('call'), call('again')] : [call('call')], ret });
}

const frameNames = (m) => [...new Set(nodesOf(m).filter((n) => n.op === 'Enter').map((n) => n.attr?.frame_name?.s).filter((s) => typeof s === 'string'))];

/** The graph's computation copied under `prefix/` (Placeholders and Consts shared), frames renamed unless `sameFrames`. */
function duplicateGraph(m, prefix, sameFrames) {
  const nodes = nodesOf(m);
  const frames = frameNames(m);
  const copied = new Set(nodes.filter((n) => n.op !== 'Placeholder' && n.op !== 'Const').map((n) => n.name));
  for (const n of nodes.slice()) {
    if (!copied.has(n.name)) continue;
    const c = structuredClone(n);
    c.name = `${prefix}/${n.name}`;
    if (Array.isArray(c.input)) {
      c.input = c.input.map((i) => {
        const node = typeof i === 'string' ? i.replace(/^\^/, '').split(':')[0] : null;
        return copied.has(node) ? renameInput(i, node, `${prefix}/${node}`) : i;
      });
    }
    const k = frames.indexOf(c.attr?.frame_name?.s);
    if (!sameFrames && c.op === 'Enter' && k >= 0) c.attr.frame_name = { s: b64(utf8(`${prefix}#${k}`)) };
    nodes.push(c);
  }
}

const HUGE_DIMS = ['2147483648', '4294967297', '9223372036854775807', '-9223372036854775808', '-5', '65536', '1e3', 'abc', 1e300];
const ODD_TF_DTYPES = ['DT_STRING', 'DT_COMPLEX64', 'DT_RESOURCE', 'DT_VARIANT', 'DT_HALF', 'DT_BFLOAT16', 'DT_DOUBLE', 'DT_FOO', '', 7];
const ODD_WEIGHT_DTYPES = ['string', 'complex64', 'float64', 'uint16', 'int8', 'resource', '', '__proto__', null];

/**
 * Shard paths a model may name, each with what it must give when the model is fetched over HTTP
 * (`kind`): 'absolute' must be refused (InvalidArgument), 'same-origin' resolves on the model's
 * server (served there under its last segment, so the load goes through).
 */
function shardPaths(name, canary) {
  return [
    ['absolute', `file://${canary.dir}/${name}`],
    ['absolute', `FILE:${canary.dir}/${name}`],
    ['absolute', `${canary.http}/${name}`],
    ['absolute', `${canary.http.toUpperCase()}/${name}`],
    ['absolute', `data:application/octet-stream;base64,${b64(utf8('canary'))}`],
    ['absolute', `blob:${canary.http}/${name}`],
    ['same-origin', `../../../../../../../${name}`],
    ['same-origin', `%2e%2e/%2E%2E/${name}`],
    ['same-origin', `..\\..\\${name}`],
    ['same-origin', `/${name}`],
    ['same-origin', `//${canary.http.replace(/^http:\/\//, '')}/${name}`],
    ['same-origin', `./sub/../${name}?v=1&x=%00`],
    ['same-origin', `${name}#fragment`],
    ['same-origin', `${name}?a=b?c=d`],
    ['same-origin', name],
  ];
}

/** What `t` holds, bit for bit (NaNs as one), with its dtype and shape. */
function valueOf(t) {
  const d = t.dataSync();
  const v = d instanceof Float32Array ? Array.from(new Uint32Array(d.buffer, d.byteOffset, d.length), (b, i) => (Number.isNaN(d[i]) ? 'nan' : b)) : Array.from(d, String);
  return `${t.dtype}[${t.shape}]:${v.join(',')}`;
}

function feedsFor(ctx, model) {
  const feeds = {};
  for (const i of model.inputs) {
    const dims = Array.isArray(i.shape) ? i.shape.map((d) => (Number.isSafeInteger(d) && d >= 0 ? d : 1)) : [1];
    const n = dims.reduce((a, b) => a * b, 1);
    const scalar = dims.length === 0;
    if (!(n <= 1 << 16)) {
      feeds[i.name] = ctx.tensor(0.5);
      continue;
    }
    // Ints index or count: 0 in tensors, 2 as a scalar (a loop's trip count).
    const k = scalar ? 2 : 0;
    const make = {
      int32: () => new Int32Array(n).fill(k),
      int64: () => new BigInt64Array(n).fill(BigInt(k)),
      bool: () => new Array(n).fill(true),
      uint8: () => new Uint8Array(n).fill(k),
    }[i.dtype] ?? (() => new Float32Array(n).fill(0.5));
    feeds[i.name] = ctx.tensor(make(), dims, i.dtype === 'uint8' || i.dtype === 'int64' ? i.dtype : undefined);
  }
  return feeds;
}

/** Loads with `load`, runs with feeds from the signature, disposes: outputs' values, or throws. */
async function loadAndRun(api, ctx, load) {
  const model = await load();
  const feeds = feedsFor(ctx, model);
  try {
    const out = model.execute(feeds);
    const ts = Array.isArray(out) ? out : [out];
    const v = ts.map(valueOf);
    for (const t of ts) t.dispose();
    return v.join(' | ');
  } finally {
    for (const t of Object.values(feeds)) t.dispose();
    model.dispose();
  }
}

/**
 * `cases` generated model.json files (from `models`: `[{ name, modelJson, weights }]`) loaded from
 * memory (weights as one buffer, a list of chunks or a { path: buffer } map) and, when `http` is
 * given, from a local server (`http.serve(files)` publishes `{ path: bytes }` and returns the
 * model.json URL; `http.canary`: `{ dir, http }`, a directory and an origin no shard may be read
 * from). Every failure must be an EagerError with a TF status code; edits that keep the model's
 * meaning must predict what the original does; a shard path that is an absolute URL is
 * InvalidArgument over HTTP; after every case a new context runs an op, and live tensors and heap
 * in use are back where they were. Returns `{ cases, loaded, codes, failures }`.
 */
export async function fuzzModels(api, { models, cases = 200, seed = 1, http = null, log = () => {} } = {}) {
  const rnd = prng(seed);
  const int = (n) => Math.floor(rnd() * n);
  const pick = (a) => a[int(a.length)];
  const ops = api.registeredOps();
  const failures = [];
  const codes = {};
  let loaded = 0;
  const fail = (msg) => {
    if (failures.length < 20) failures.push(msg);
  };
  const newContext = () => new api.EagerContext({ maxLoopIterations: 1000 });
  // What each original predicts (also the warm-up: one-time allocations happen here).
  const baseline = [];
  for (const m of models) {
    const ctx = newContext();
    baseline.push(await loadAndRun(api, ctx, () => ctx.loadGraphModel({ modelJson: m.modelJson, weights: m.weights })));
    ctx.dispose();
  }
  const works = () => {
    const k = new api.EagerContext();
    const a = k.tensor(new Float32Array([1, 2]), [2]);
    const [s] = k.execute('AddV2', [a, a]);
    const ok = String(Array.from(s.dataSync())) === '2,4';
    k.dispose();
    return ok;
  };
  works();
  const observer = new api.EagerContext();
  const before = observer.memory();

  for (let c = 0; c < cases; c++) {
    const which = int(models.length);
    const base = models[which];
    const m = JSON.parse(base.modelJson);
    let neutral = true;
    let wraps = 0;
    const edits = [];
    const names = nodesOf(m).map((n) => n.name);
    for (let e = 1 + int(4); e > 0; e--) {
      const kind = rnd() < 0.5 ? int(6) : 6 + int(10);
      edits.push(kind);
      const node = pick(nodesOf(m)) ?? {};
      switch (kind) {
        case 0: // A node renamed everywhere: long or Unicode.
          if (typeof node.name === 'string') neutral &&= renameNode(m, node.name, longName(node.name, pick([1, 300, 20000]), rnd() < 0.5));
          break;
        case 1: { // A function renamed everywhere.
          const f = pick(namedFunctions(m));
          if (f) {
            const old = f.signature.name;
            f.signature.name = longName(old, pick([1, 300, 20000]), rnd() < 0.5);
            renameFuncRefs(m.modelTopology, old, f.signature.name);
          }
          break;
        }
        case 2: { // A function called through a wrapper (maybe twice).
          const f = pick(namedFunctions(m));
          if (f) {
            wrapFunction(m, f, longName(`wrap${c}_${e}`, pick([1, 300, 5000]), rnd() < 0.5), rnd() < 0.3);
            neutral &&= ++wraps <= 32;
          }
          break;
        }
        case 3: { // A loop frame renamed on all its Enters (long, or bytes that are not UTF-8).
          const frames = frameNames(m);
          const old = pick(frames);
          if (old !== undefined) {
            const neu = rnd() < 0.5 ? b64(utf8(longName(`frame${e}`, pick([1, 300, 20000]), true))) : b64([0x80 + int(64), 33, int(256)]);
            if (frames.includes(neu)) neutral = false;
            for (const n of nodesOf(m)) if (n.op === 'Enter' && n.attr?.frame_name?.s === old) n.attr.frame_name = { s: neu };
          }
          break;
        }
        case 4: { // The computation duplicated, each loop with its own frame or sharing it.
          const same = rnd() < 0.25;
          if (same && frameNames(m).length > 0) neutral = false;
          duplicateGraph(m, longName(`dup${e}`, pick([1, 300]), false), same);
          break;
        }
        case 5: { // The first manifest group split in two (order kept), or an empty group added.
          const g = m.weightsManifest?.[0];
          if (rnd() < 0.3 || !g?.weights?.length) m.weightsManifest?.splice(int(m.weightsManifest.length + 1), 0, { paths: [], weights: [] });
          else m.weightsManifest.splice(1, 0, { paths: ['tail.bin'], weights: g.weights.splice(int(g.weights.length)) });
          break;
        }
        // From here on the model's meaning changes.
        case 6:
          neutral = false;
          node.op = rnd() < 0.3 ? pick(['Enter', 'Exit', 'Switch', 'Merge', 'NextIteration', 'LoopCond', 'StatelessWhile', 'StatelessIf', 'PartitionedCall']) : pick(ops);
          break;
        case 7:
          neutral = false;
          if (Array.isArray(node.input) && node.input.length) node.input[int(node.input.length)] = `${pick(names)}${pick(['', ':1', ':2', ':-1', ':99999999999'])}`;
          else node.input = [`^${pick(names)}`];
          break;
        case 8: { // Frames broken: merged, missing, empty, not base64, not a string, another node's name.
          neutral = false;
          const enter = pick(nodesOf(m).filter((n) => n.op === 'Enter'));
          if (enter) {
            enter.attr ??= {};
            const v = [{ s: pick(frameNames(m)) ?? '' }, undefined, { s: '' }, { s: '%%%' }, { i: '3' }, { s: b64(utf8(pick(names))) }, { list: {} }][int(7)];
            if (v === undefined) delete enter.attr.frame_name;
            else enter.attr.frame_name = v;
            if (rnd() < 0.3) enter.attr.is_constant = { b: rnd() < 0.5 };
          }
          break;
        }
        case 9: { // A function that calls itself, an ancestor, or one that does not exist.
          neutral = false;
          const fs = namedFunctions(m);
          const f = pick(fs);
          if (f) {
            f.nodeDef ??= [];
            const args = (f.signature.inputArg ?? []).map((a) => a.name);
            const target = rnd() < 0.3 ? 'no such function' : pick(fs).signature.name;
            f.nodeDef.push({ name: `self${e}`, op: pick(['PartitionedCall', 'StatefulPartitionedCall', 'StatelessWhile', 'If']), input: args, attr: { f: { func: { name: target } }, body: { func: { name: target } }, cond: { func: { name: target } } } });
          } else {
            node.op = 'PartitionedCall';
            node.attr = { ...(node.attr ?? {}), f: { func: { name: 'no such function' } } };
          }
          break;
        }
        case 10: { // Huge or malformed declared shapes, unusual dtypes.
          neutral = false;
          const dims = { dim: Array.from({ length: 1 + int(3) }, () => ({ size: pick(HUGE_DIMS) })) };
          const w = pick(m.weightsManifest?.[0]?.weights ?? []);
          const sig = pick(Object.values(m.signature?.inputs ?? {}));
          switch (int(6)) {
            case 0:
              node.attr = { ...(node.attr ?? {}), shape: { shape: dims } };
              break;
            case 1:
              if (sig) {
                sig.tensorShape = dims;
                if (rnd() < 0.5) sig.dtype = pick(ODD_TF_DTYPES);
              }
              break;
            case 2:
              if (w) w.shape = pick([[65536, 65536, 65536], [2147483648], [2 ** 62, 4], [3, -2], [0, 2 ** 40], [1.5], '3', null]);
              break;
            case 3:
              node.attr = { ...(node.attr ?? {}), [pick(['dtype', 'T', 'DstT', 'out_type'])]: { type: pick(ODD_TF_DTYPES) } };
              break;
            case 4:
              if (w) w.dtype = pick(ODD_WEIGHT_DTYPES);
              break;
            default:
              node.attr = { ...(node.attr ?? {}), value: { tensor: { dtype: pick(ODD_TF_DTYPES), tensorShape: dims } } };
          }
          break;
        }
        case 11: { // Manifest paths and groups that are not what the format says.
          neutral = false;
          const g = m.weightsManifest?.[0];
          if (g) g.paths = pick([7, null, [['a']], {}, 'a.bin', [null], ['a.bin', 'a.bin'], ['__proto__'], ['constructor'], ['toString']]);
          break;
        }
        case 12: // A weight the graph does not have, or a weight listed twice.
          neutral = false;
          m.weightsManifest?.[0]?.weights?.push(rnd() < 0.5 ? { name: 'no such node', shape: [2], dtype: 'float32' } : { ...pick(m.weightsManifest[0].weights) });
          break;
        case 13: // Attrs of the wrong kind.
          neutral = false;
          if (node.attr && typeof node.attr === 'object') {
            const k = pick(Object.keys(node.attr)) ?? 'T';
            node.attr[k] = pick([{ i: '-1' }, { i: '9999999999999' }, { list: { i: ['1', '-1', '0'] } }, { s: '!!' }, { type: 'DT_INT64' }, { f: 1e30 }, { b: 'yes' }, { func: { name: k } }, {}, null]);
          }
          break;
        case 14: // Signature entries that name nothing, or the same tensor twice.
          neutral = false;
          if (m.signature?.outputs) m.signature.outputs[pick(['__proto__', 'constructor', 'y2', 'x'])] = { name: pick([`${pick(names)}:0`, 'nothing:0', 'x:99', '']), dtype: 'DT_FLOAT' };
          break;
        default: // Library entries that are not functions.
          neutral = false;
          m.modelTopology.library = pick([{ function: [{}] }, { function: [{ signature: { name: 'f' } }, { signature: { name: 'f' } }] }, { function: null }, []]);
      }
    }

    // How the model reaches the loader.
    const mode = http && rnd() < 0.4 ? 'http' : pick(['buffer', 'chunks', 'map', 'object']);
    let expect = null; // a code the load must fail with
    const weights = base.weights;
    const shardName = `s${c}.bin`;
    const empties = []; // paths of the other shards (empty)
    let pathKind = 'same-origin';
    if (mode === 'http' || mode === 'map') {
      // One shard holding every byte, named by a hostile path; other groups' paths name empty shards.
      const groups = Array.isArray(m.weightsManifest) ? m.weightsManifest : [];
      const [kind, path] = http ? pick(shardPaths(shardName, http.canary)) : ['same-origin', pick(['../x.bin', '__proto__', 'constructor', 'a?b', '', 'é.bin'])];
      pathKind = kind;
      let first = true;
      for (const g of groups) {
        if (g && typeof g === 'object' && Array.isArray(g.paths) && g.paths.every((p) => typeof p === 'string')) {
          g.paths = g.paths.map(() => {
            if (!first) return `e${c}_${empties.length}.bin`;
            first = false;
            return path;
          });
          empties.push(...g.paths.filter((p) => p !== path));
        }
      }
      if (mode === 'http' && kind === 'absolute' && !edits.includes(11)) {
        const hasShard = groups.some((g) => Array.isArray(g?.paths) && g.paths.includes(path));
        if (hasShard) expect = 'InvalidArgument';
      }
      if (mode === 'map' && (path === '__proto__' || path === 'constructor')) neutral = false;
    }
    let text = JSON.stringify(m);
    if (rnd() < 0.05) {
      neutral = false;
      text = pick([
        () => text.slice(0, int(text.length)),
        () => `\uFEFF${text}`,
        () => text.replace(/"/, '"\uD800'),
        () => `${'['.repeat(100000)}${']'.repeat(100000)}`,
        () => text.replace(/\d+/, '1'.repeat(400)),
      ])();
    }
    const ctx = newContext();
    let outcome;
    try {
      const load = {
        buffer: () => ctx.loadGraphModel({ modelJson: text, weights }),
        object: () => ctx.loadGraphModel({ modelJson: neutral ? m : text, weights: [weights] }),
        chunks: () => {
          const cut = int(weights.length + 1);
          return ctx.loadGraphModel({ modelJson: text, weights: [weights.subarray(0, cut), weights.subarray(cut)] });
        },
        map: () => {
          const map = Object.create(null);
          for (const g of m.weightsManifest ?? []) for (const p of Array.isArray(g?.paths) ? g.paths : []) if (typeof p === 'string') map[p] = new Uint8Array(0);
          const firstPath = (m.weightsManifest ?? []).flatMap((g) => (Array.isArray(g?.paths) ? g.paths : []))[0];
          if (typeof firstPath === 'string') map[firstPath] = weights;
          return ctx.loadGraphModel({ modelJson: text, weights: map });
        },
        http: () => {
          const files = { [shardName]: weights };
          for (const e of empties) files[e] = new Uint8Array(0);
          return ctx.loadGraphModel(http.serve(text, files));
        },
      }[mode];
      outcome = { value: await loadAndRun(api, ctx, load) };
      loaded++;
    } catch (e) {
      outcome = { error: e };
    }
    const what = `case ${c} (seed ${seed}, model ${base.name}, edits ${edits.join(',')}, ${mode}${mode === 'http' || mode === 'map' ? ` ${pathKind}` : ''})`;
    if (outcome.error !== undefined) {
      const e = outcome.error;
      if (!(e instanceof api.EagerError) || !STATUS_CODES.has(e.code)) {
        fail(`${what}: ${e?.constructor?.name} ${e?.code ?? ''}: ${String(e?.message).slice(0, 300)}`);
      } else {
        codes[e.code] = (codes[e.code] ?? 0) + 1;
        if (expect !== null && e.code !== expect) fail(`${what}: expected ${expect}, got ${e.code}: ${e.message.slice(0, 300)}`);
        else if (expect === null && neutral && e.code !== 'ResourceExhausted') fail(`${what}: a model whose meaning was kept fails: ${e.code}: ${e.message.slice(0, 300)}`);
      }
    } else if (expect !== null) {
      fail(`${what}: loaded, though a shard path is an absolute URL (expected ${expect})`);
    } else if (neutral && outcome.value !== baseline[which]) {
      fail(`${what}: predicts other values than the original model`);
    }
    try {
      ctx.dispose();
    } catch (e) {
      fail(`${what}: dispose threw ${e?.constructor?.name}: ${e?.message}`);
    }
    if (!works()) fail(`${what}: a new context computes wrong values afterwards`);
    const after = observer.memory();
    if (after.numTensors !== before.numTensors || after.heapBytes !== before.heapBytes) {
      fail(`${what}: live tensors ${before.numTensors} -> ${after.numTensors}, heap in use ${before.heapBytes} -> ${after.heapBytes}`);
      Object.assign(before, after); // report each leak once
    }
    if (c % 1000 === 999) log(`${c + 1} model cases, ${loaded} loaded, codes ${JSON.stringify(codes)}, ${failures.length} failures`);
  }
  observer.dispose();
  return { cases, loaded, codes, failures };
}

// ---------------------------------------------------------------------------------------------
// Memory pressure: fill wasm memory, call everything while it is full, free, check.

/**
 * `rounds` seeded rounds, each: tensors of random sizes made by random ways (ctx.tensor, Fill,
 * AddV2, ConcatV2, Cast, a model's predict) until an allocation of one element is
 * ResourceExhausted; then every API called while memory is full (each returns, or throws
 * ResourceExhausted, or the InvalidArgument its inputs deserve); then all is freed and every API
 * must work again (right values, the model's predictions unchanged), with live tensors and heap
 * in use back where they were after the first round. Meant for an instance whose memory is capped
 * (Node's --wasm-max-mem-pages), in a process of its own. `model`: `{ modelJson, weights }`.
 */
export async function fuzzMemoryPressure(api, { rounds = 3, seed = 1, model, log = () => {} } = {}) {
  const rnd = prng(seed);
  const int = (n) => Math.floor(rnd() * n);
  const pick = (a) => a[int(a.length)];
  const failures = [];
  const codes = {};
  const fail = (msg) => {
    if (failures.length < 20) failures.push(msg);
  };
  let where = '';
  /** A failure of `what`: counted if an EagerError with one of `allowed` codes, else reported. */
  const failed = (what, e, allowed) => {
    if (e instanceof api.EagerError && allowed.includes(e.code)) {
      codes[`${what}:${e.code}`] = (codes[`${what}:${e.code}`] ?? 0) + 1;
    } else {
      fail(`round ${round} (seed ${seed}), ${what}: ${e?.constructor?.name} ${e?.code ?? ''}: ${String(e?.message).slice(0, 300)}`);
    }
    return null;
  };
  /** Runs `f`: its result, or null after an EagerError with one of `allowed` codes. */
  const attempt = (what, f, allowed = ['ResourceExhausted']) => {
    where = what;
    try {
      return f();
    } catch (e) {
      return failed(what, e, allowed);
    }
  };
  const attemptAsync = async (what, f, allowed = ['ResourceExhausted']) => {
    try {
      return await f();
    } catch (e) {
      return failed(what, e, allowed);
    }
  };
  const predictValue = (ctx, m) => {
    const feeds = feedsFor(ctx, m);
    try {
      const out = m.execute(feeds);
      const ts = Array.isArray(out) ? out : [out];
      const v = ts.map(valueOf).join(' | ');
      for (const t of ts) t.dispose();
      return v;
    } finally {
      for (const t of Object.values(feeds)) t.dispose();
    }
  };
  let baselineValue = null;
  {
    const ctx = new api.EagerContext();
    const m = await ctx.loadGraphModel(model);
    baselineValue = predictValue(ctx, m);
    ctx.dispose();
  }
  const observer = new api.EagerContext();
  let start = null;
  let round = 0;
  let filled = 0;
  for (; round < rounds; round++) {
    const ctx = new api.EagerContext();
    const kept = [];
    const m = await attemptAsync('load before filling', () => ctx.loadGraphModel(model));
    const keep = (t) => {
      if (t) kept.push(...(Array.isArray(t) ? t : [t]));
    };
    // Fill: random sizes and ways; once one fails, smaller ones, down to one element.
    let size = 2 ** (16 + int(10));
    let misses = 0;
    for (let tries = 0; size >= 1; tries++) {
      // Some ways may allocate nothing (a Cast to the same dtype): plain tensors from then on.
      if (tries > 20000) size = Math.min(size, 1);
      const n = size;
      const way = tries > 20000 ? 0 : int(6);
      const src = kept.length ? pick(kept) : null;
      const t = attempt(`fill #${way}`, () => {
        switch (way) {
          case 0:
            return ctx.tensor(new Float32Array(n).fill(1), [n]);
          case 1: {
            const dims = ctx.tensor(new Int32Array([n]));
            const v = ctx.tensor(rnd());
            try {
              return ctx.execute('Fill', [dims, v])[0];
            } finally {
              dims.dispose();
              v.dispose();
            }
          }
          case 2:
            return src && src.dtype !== 'bool' ? ctx.execute('AddV2', [src, src])[0] : ctx.tensor(new Float32Array(n));
          case 3: {
            if (!src || src.shape.length !== 1) return ctx.tensor(new Int32Array(n));
            const axis = ctx.tensor(new Int32Array([0]), []);
            try {
              return ctx.execute('ConcatV2', [src, src, axis])[0];
            } finally {
              axis.dispose();
            }
          }
          case 4:
            return src ? ctx.execute('Cast', [src], { DstT: pick(['int32', 'bool', 'float32']) })[0] : null;
          default: {
            if (!m) return null;
            const feeds = feedsFor(ctx, m);
            try {
              return m.execute(feeds);
            } finally {
              for (const f of Object.values(feeds)) f.dispose();
            }
          }
        }
      });
      if (t === null) {
        if (++misses > 3) size = Math.floor(size / 2);
      } else {
        misses = 0;
        keep(t);
      }
    }
    filled = Math.max(filled, kept.length);
    // Memory is full: every API returns or fails cleanly.
    const a = kept.find((t) => t.shape.length === 1 && t.dtype === 'float32');
    attempt('new EagerContext', () => new api.EagerContext().dispose());
    if (a) attempt('execute', () => keep(ctx.execute('Relu', [a])));
    attempt('error path', () => ctx.execute('MatMul', [kept[0], kept[0]]), ['InvalidArgument', 'ResourceExhausted']);
    attempt('memory', () => ctx.memory());
    attempt('dataSync', () => kept[kept.length - 1].dataSync());
    attempt('readInto', () => {
      const t = kept[kept.length - 1];
      if (t.dtype === 'float32') t.readInto(new Float32Array(t.shape.reduce((x, y) => x * y, 1)));
    });
    if (a) attempt('tidy', () => keep(ctx.tidy(() => ctx.execute('AddV2', [a, a])[0])));
    if (a) attempt('ctx.ops', () => keep(ctx.ops.add(a, a)));
    attempt('setCacheOptions', () => ctx.setCacheOptions({ maxEntries: 1 + int(100) }));
    if (m) attempt('predict', () => keep(ctx.tidy(() => m.execute(feedsFor(ctx, m)))));
    const m2 = await attemptAsync('load while full', () => ctx.loadGraphModel(model));
    // Freed: everything works again.
    for (const t of kept) attempt('dispose', () => t.dispose(), []);
    attempt('model dispose', () => m?.dispose(), []);
    attempt('model dispose', () => m2?.dispose(), []);
    attempt('after: same context', () => {
      const x = ctx.tensor(new Float32Array([-1, 2]), [2]);
      const [y] = ctx.execute('Relu', [x]);
      if (String(Array.from(y.dataSync())) !== '0,2') fail(`round ${round}: Relu gives ${y.dataSync()} after the pressure`);
      x.dispose();
      y.dispose();
    }, []);
    attempt('after: error path', () => {
      const x = ctx.tensor(new Float32Array([1, 2]), [2]);
      try {
        ctx.execute('MatMul', [x, x]);
        fail(`round ${round}: MatMul of vectors did not fail after the pressure`);
      } catch (e) {
        if (!(e instanceof api.EagerError) || e.code !== 'InvalidArgument') throw e;
      } finally {
        x.dispose();
      }
    }, []);
    attempt('after: setCacheOptions', () => ctx.setCacheOptions({ maxEntries: Infinity }), []);
    const m3 = await attemptAsync('after: load', () => ctx.loadGraphModel(model), []);
    if (m3) {
      if (predictValue(ctx, m3) !== baselineValue) fail(`round ${round}: the model predicts other values after the pressure`);
      m3.dispose();
    }
    attempt('after: context dispose', () => ctx.dispose(), []);
    attempt('after: new context', () => {
      const k = new api.EagerContext();
      const x = k.tensor(new Float32Array([1, 2]), [2]);
      const [s] = k.execute('AddV2', [x, x]);
      if (String(Array.from(s.dataSync())) !== '2,4') fail(`round ${round}: AddV2 in a new context gives ${s.dataSync()}`);
      k.dispose();
    }, []);
    const now = observer.memory();
    // The first round makes what lives on (the table's growth, caches): compare from then on.
    if (start === null) start = now;
    else if (now.numTensors !== start.numTensors || now.heapBytes !== start.heapBytes) {
      fail(`round ${round} (seed ${seed}): live tensors ${start.numTensors} -> ${now.numTensors}, heap in use ${start.heapBytes} -> ${now.heapBytes}`);
      start = now;
    }
    log(`round ${round}: ${kept.length} tensors made, heap ${now.heapBytes}, wasm memory ${now.wasmMemoryBytes}`);
  }
  observer.dispose();
  if (!Object.keys(codes).some((k) => k.endsWith(':ResourceExhausted'))) fail('memory never filled (no ResourceExhausted)');
  return { rounds, filled, codes, failures, where };
}
