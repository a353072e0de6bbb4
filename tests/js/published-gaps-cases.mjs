// Graphs that published TF.js models contain and TF.js runs (tools/gen_published_gaps.py, and
// uint8_image of tools/gen_models.py), checked against TF's outputs and across the ways of loading
// a model: by URL, from { modelJson: object, weights } and from { modelJson: text, weights }. Run in
// Node by published-gaps.test.mjs and in headless Chromium by the same file's browser test.
//
// `files(name)` resolves { url, modelJsonText, shards: Uint8Array[], reference } of a fixture.
// Returns [{ name, ok, error? }].

const TOL = { abs: 1e-5, rel: 1e-5 };

function close(got, want, what, { abs, rel } = TOL) {
  if (got.length !== want.length) throw new Error(`${what}: ${got.length} values, expected ${want.length}`);
  for (let i = 0; i < want.length; i++) {
    if (!(Math.abs(got[i] - want[i]) <= abs + rel * Math.abs(want[i]))) {
      throw new Error(`${what}: value ${i} is ${got[i]}, expected ${want[i]}`);
    }
  }
}

function same(got, want, what) {
  if (got.length !== want.length || got.some((v, i) => !Object.is(v, want[i]))) {
    throw new Error(`${what}: [${Array.from(got)}] differs from [${Array.from(want)}]`);
  }
}

/** Every way of loading the fixture, as [label, source]. */
function sources(f) {
  return [
    ['by URL', f.url],
    ['from an object', { modelJson: JSON.parse(f.modelJsonText), weights: f.shards }],
    ['from text', { modelJson: f.modelJsonText, weights: f.shards }],
  ];
}

/** Loads `f` every way, predicts its reference inputs; returns { label: { output: {dtype, values} } }. */
async function predictEveryWay(ctx, f) {
  const results = {};
  for (const [label, source] of sources(f)) {
    let model;
    try {
      model = await ctx.loadGraphModel(source);
    } catch (e) {
      throw new Error(`load ${label}: ${e.code ?? ''} ${e.message}`);
    }
    const feeds = {};
    for (const [k, v] of Object.entries(f.reference.inputs)) feeds[k] = ctx.tensor(v.data, v.shape, v.dtype);
    let out;
    try {
      out = model.predict(feeds);
    } catch (e) {
      throw new Error(`predict ${label}: ${e.code ?? ''} ${e.message}`);
    }
    const names = model.outputs.map((o) => o.name);
    const tensors = names.length === 1 ? { [names[0]]: out } : out;
    results[label] = {};
    for (const n of names) {
      results[label][n] = { dtype: tensors[n].dtype, values: Array.from(tensors[n].dataSync()) };
      tensors[n].dispose();
    }
    for (const t of Object.values(feeds)) t.dispose();
    model.dispose();
  }
  return results;
}

/** Each way's outputs match TF's reference, and are the same in every way. */
function checkAgainstReference(results, reference) {
  const [first, ...rest] = Object.keys(results);
  for (const label of Object.keys(results)) {
    for (const [n, want] of Object.entries(reference.outputs)) {
      const got = results[label][n];
      if (got === undefined) throw new Error(`${label}: no output ${n}`);
      if (got.dtype !== want.dtype) throw new Error(`${label}: output ${n} is ${got.dtype}, expected ${want.dtype}`);
      if (want.dtype === 'float32') close(got.values, want.data, `${label}: output ${n}`);
      else same(got.values, want.data, `${label}: output ${n}`);
    }
  }
  for (const label of rest) {
    for (const n of Object.keys(reference.outputs)) {
      same(results[label][n].values, results[first][n].values, `output ${n} ${label} vs ${first}`);
    }
  }
}

export async function checkPublishedGaps(api, files) {
  const { EagerContext, EagerError } = api;
  const results = [];
  const ctx = new EagerContext();
  const run = async (name, fn) => {
    try {
      await fn();
      results.push({ name, ok: true });
    } catch (e) {
      results.push({ name, ok: false, error: (e && e.stack) || String(e) });
    }
  };

  await run('float64 in the graph runs as float32 (TF.js) and matches TF within float32 error', async () => {
    const f = await files('float64_head');
    const got = await predictEveryWay(ctx, f);
    checkAgainstReference(got, f.reference);
  });

  await run('Where int64 into GatherNd/ScatterNd/SparseToDense, int64 Consts stored as int32 weights: same result loaded every way', async () => {
    const f = await files('sparse_detector');
    const got = await predictEveryWay(ctx, f);
    checkAgainstReference(got, f.reference);
  });

  await run("a uint8 input takes fromPixels' int32 tensor; out-of-range int32 values are refused", async () => {
    const f = await files('uint8_image');
    const model = await ctx.loadGraphModel({ modelJson: JSON.parse(f.modelJsonText), weights: f.shards });
    const x = f.reference.inputs.x;
    const [batch, h, w, c] = x.shape;
    const per = h * w * c;
    const want = f.reference.outputs;
    const perY = want.y.data.length / batch;
    const perSmall = want.small.data.length / batch;
    const axis = ctx.tensor([0], [1], 'int32');
    for (let b = 0; b < batch; b++) {
      // The image as RGBA bytes, through fromPixels' default: an int32 [h, w, 3] tensor.
      const rgba = new Uint8ClampedArray(h * w * 4);
      for (let p = 0; p < h * w; p++) {
        for (let k = 0; k < c; k++) rgba[p * 4 + k] = x.data[b * per + p * c + k];
        rgba[p * 4 + 3] = 255;
      }
      const pixels = ctx.fromPixels({ data: rgba, width: w, height: h });
      if (pixels.dtype !== 'int32') throw new Error(`fromPixels gave ${pixels.dtype}`);
      const [input] = ctx.execute('ExpandDims', [pixels, axis]);
      const out = model.predict(input);
      close(out.y.dataSync(), want.y.data.slice(b * perY, (b + 1) * perY), `image ${b}: y`);
      same(Array.from(out.small.dataSync()), want.small.data.slice(b * perSmall, (b + 1) * perSmall), `image ${b}: small`);
      for (const t of [pixels, input, out.y, out.small]) t.dispose();
    }
    axis.dispose();
    // TF.js holds uint8 inputs as int32 and would run on these; here they are refused.
    for (const bad of [256, -1]) {
      const values = Int32Array.from(x.data);
      values[5] = bad;
      const input = ctx.tensor(values, x.shape);
      try {
        model.predict(input).y.dispose();
        throw new Error(`an int32 feed holding ${bad} was accepted`);
      } catch (e) {
        if (!(e instanceof EagerError) || e.code !== 'InvalidArgument' || !e.message.includes("input 'x'")) throw e;
      } finally {
        input.dispose();
      }
    }
    model.dispose();
  });

  const m = ctx.memory();
  await run('everything released', () => {
    if (m.numTensors !== 0 || m.numResources !== 0) {
      throw new Error(`${m.numTensors} tensors and ${m.numResources} resources left`);
    }
  });
  ctx.dispose();
  return results;
}
