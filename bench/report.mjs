// Tables, targets and files of the benchmark results (used by bench/run.mjs).

import { RUNTIMES, RUNTIME_LABELS } from './suite.mjs';

const PEERS = ['tfjs', 'ort'];

// The speed and size targets ("single thread, same machine, same run as the peers").
// `need(x)`: x is eager-wasm's time divided by tfjs-wasm's time (so < 1 means eager-wasm faster).
export const TARGETS = [
  { id: 'dispatch_add', text: "dispatch: add [1] incl. dispose (ctx.execute) <= 0.2x tfjs time", max: 0.2 },
  { id: 'dispatch_add_ops', text: 'dispatch: add [1] incl. dispose (ctx.ops.add) <= 0.2x tfjs time', max: 0.2 },
  { id: 'matmul256', text: 'matmul 256^3 >= 1.0x tfjs GFLOP/s', max: 1.0 },
  { id: 'matmul1024', text: 'matmul 1024^3 >= 1.0x tfjs GFLOP/s', max: 1.0 },
  { id: 'conv2d', text: 'conv2d [1,56,56,64]*[3,3,64,64] >= 1.0x tfjs GFLOP/s', max: 1.0 },
  { id: 'depthwise', text: 'depthwise 3x3 [1,56,56,128] >= 1.0x tfjs GFLOP/s', max: 1.0 },
  { id: 'mlp_predict', text: 'MLP predict <= 1.0x tfjs latency', max: 1.0 },
  { id: 'mobilenet_predict', text: 'MobileNet predict <= 1.0x tfjs latency', max: 1.0 },
  { id: 'mlp_load_predict_dispose', text: 'MLP load -> predict -> dispose <= 0.5x tfjs', max: 0.5 },
  { id: 'mobilenet_load_predict_dispose', text: 'MobileNet load -> predict -> dispose <= 0.5x tfjs', max: 0.5 },
  // The kernels real detectors and MobileNets spend their time in, at least 1.2x tfjs.
  ...[
    ['depthwise', 'depthwise 3x3 stride 1'],
    ['depthwise3x3s2', 'depthwise 3x3 stride 2'],
    ['depthwise5x5s1', 'depthwise 5x5 stride 1'],
    ['depthwise5x5s2', 'depthwise 5x5 stride 2'],
    ['conv1x1_112', 'conv 1x1 [1,112,112,32] -> 64'],
    ['conv1x1_56', 'conv 1x1 [1,56,56,144] -> 24'],
  ].map(([id, what]) => ({ id, text: `${what} >= 1.2x tfjs`, max: 1 / 1.2 })),
];

/** The zoo targets: every zoo model's predict at least 1.0x tfjs, their geomean 1.5x. */
function zooTargets(envResult) {
  const zoo = envResult.cases.filter((c) => /^zoo_.*_predict$/.test(c.id));
  return {
    each: zoo.map((c) => ({ id: c.id, text: `${c.id.slice(4, -8)} predict >= 1.0x tfjs`, max: 1.0 })),
    ratios: zoo.map((c) => ratio(c, 'tfjs')).filter((x) => x != null && x > 0),
    // Without the control-flow models, where TF.js's executeAsync pays per loop step and so
    // lifts the mean far more than any kernel does.
    straight: zoo
      .filter((c) => !/^zoo_gru/.test(c.id))
      .map((c) => ratio(c, 'tfjs'))
      .filter((x) => x != null && x > 0),
  };
}

function fmtTime(ms) {
  if (ms < 1) return `${(ms * 1000).toPrecision(3)} us`;
  if (ms < 1000) return `${ms.toPrecision(3)} ms`;
  return `${(ms / 1000).toPrecision(3)} s`;
}
const fmtG = (g) => (g >= 100 ? g.toFixed(0) : g.toPrecision(3));

export function cell(c, r, { spread = true } = {}) {
  if (!r) return '-';
  if (r.status !== 'ok') return `n/a (${r.reason})`;
  let s;
  if (c.unit === 'gflops') {
    s = `${fmtG(r.gflops.median)} GFLOP/s`;
    if (spread) s += ` (${fmtG(r.gflops.p10)}-${fmtG(r.gflops.p90)})`;
    s += `, ${fmtTime(r.median)}`;
  } else {
    s = fmtTime(r.median);
    if (spread) s += ` (${fmtTime(r.p10)}-${fmtTime(r.p90)})`;
  }
  if (r.match === false) s += ' MISMATCH';
  return s;
}

/** peer time / eager time (> 1: eager-wasm faster); null when either side has no number. */
export function ratio(c, peer) {
  const e = c.results.eager;
  const p = c.results[peer];
  if (e?.status !== 'ok' || p?.status !== 'ok') return null;
  return p.median / e.median;
}
const fmtRatio = (x) => (x == null ? 'n/a' : `${x.toFixed(x >= 10 ? 1 : 2)}x`);

export function sizeRow(sizes, label = 'wasm size, gzip -9 (smaller is better)') {
  const kb = (b) => `${(b / 1024).toFixed(0)} KB`;
  const cellOf = (s) => (s ? `${kb(s.gzip)} gz (${kb(s.raw)} raw)` : 'n/a (missing)');
  const r = (p) => (sizes.eager && sizes[p] ? `${(sizes[p].gzip / sizes.eager.gzip).toFixed(2)}x` : 'n/a');
  return {
    label,
    cells: [cellOf(sizes.eager), cellOf(sizes.tfjs), cellOf(sizes.ort)],
    ratios: [r('tfjs'), r('ort')],
  };
}

export function evaluateTargets(envResult, sizes) {
  const out = [];
  const zoo = zooTargets(envResult);
  for (const t of [...TARGETS, ...zoo.each]) {
    const c = envResult.cases.find((x) => x.id === t.id);
    if (!c) {
      out.push({ ...t, holds: null, detail: 'not run' });
      continue;
    }
    const x = ratio(c, 'tfjs');
    if (x == null) {
      const e = c.results.eager;
      out.push({ ...t, holds: null, detail: e?.status !== 'ok' ? `eager-wasm ${cell(c, e)}` : `tfjs ${cell(c, c.results.tfjs)}` });
      continue;
    }
    const frac = 1 / x; // eager time / tfjs time
    // a wrong result of eager-wasm or of tfjs voids the comparison (ORT's doesn't enter it)
    const bad = (c.mismatches ?? []).filter((rt) => rt === 'eager' || rt === 'tfjs');
    const mismatch = bad.length ? ` (RESULT MISMATCH: ${bad.map((rt) => RUNTIME_LABELS[rt]).join(', ')})` : '';
    const measure = c.unit === 'gflops' ? `eager-wasm at ${x.toFixed(2)}x tfjs GFLOP/s` : `eager-wasm at ${frac.toFixed(3)}x tfjs time`;
    const holds = frac <= t.max && !mismatch;
    // does the p10-p90 spread of both sides straddle the threshold? then the verdict is noise-bound
    const e = c.results.eager;
    const p = c.results.tfjs;
    const fracLo = e.p10 / p.p90;
    const fracHi = e.p90 / p.p10;
    const noisy = fracLo <= t.max && t.max <= fracHi ? ' (within noise: p10-p90 ranges straddle the target)' : '';
    const by = holds ? '' : c.unit === 'gflops' ? `; needs ${(frac / t.max).toFixed(2)}x more GFLOP/s` : `; needs ${(frac / t.max).toFixed(2)}x less time`;
    out.push({ ...t, holds, value: frac, noisy: !!noisy, detail: `${measure}${by}${mismatch}${noisy}` });
  }
  if (zoo.ratios.length) {
    const geomean = (v) => Math.exp(v.reduce((a, x) => a + Math.log(x), 0) / v.length);
    const g = geomean(zoo.ratios);
    const gs = zoo.straight.length && zoo.straight.length < zoo.ratios.length ? geomean(zoo.straight) : null;
    out.push({
      id: 'zoo_geomean',
      text: 'zoo predict, geometric mean >= 1.5x tfjs',
      holds: g >= 1.5,
      value: 1 / g,
      detail: `${g.toFixed(2)}x over ${zoo.ratios.length} models${gs ? `; ${gs.toFixed(2)}x over the ${zoo.straight.length} without control flow (the GRUs)` : ''}`,
    });
  }
  const dl = sizes.download;
  if (dl?.eager && dl?.tfjs) {
    // The split build's on-demand part counts unless this environment's run never loaded it.
    const coldLoaded = envResult.runtimes?.eager?.coldCodeLoadedAfterRun !== false;
    const cold = dl.eagerCold && coldLoaded ? dl.eagerCold.gzip : 0;
    const eager = dl.eager.gzip + cold;
    const holds = eager <= dl.tfjs.gzip;
    const kb = (b) => (b / 1024).toFixed(0);
    const part = !dl.eagerCold
      ? ''
      : coldLoaded
        ? `, its on-demand part (${kb(dl.eagerCold.gzip)} KB) included: a case loaded it`
        : ` (init's part; the on-demand ${kb(dl.eagerCold.gzip)} KB was loaded by no case here)`;
    out.push({
      id: 'download_size',
      text: `JS + .wasm a page downloads to run a model, gzipped, <= TF.js's (${kb(dl.tfjs.gzip)} KB)`,
      holds,
      value: eager / dl.tfjs.gzip,
      detail: `eager-wasm ${kb(eager)} KB gz = ${(eager / dl.tfjs.gzip).toFixed(2)}x${part}${holds ? '' : `; ${kb(eager - dl.tfjs.gzip)} KB too big`}`,
    });
  }
  if (sizes.eager && sizes.tfjs) {
    const holds = sizes.eager.gzip <= sizes.tfjs.gzip;
    out.push({
      id: 'wasm_size',
      text: `.wasm gzipped <= tfjs-wasm SIMD build (${(sizes.tfjs.gzip / 1024).toFixed(0)} KB)`,
      holds,
      value: sizes.eager.gzip / sizes.tfjs.gzip,
      detail: `eager-wasm ${(sizes.eager.gzip / 1024).toFixed(0)} KB gz = ${(sizes.eager.gzip / sizes.tfjs.gzip).toFixed(2)}x${holds ? '' : `; ${((sizes.eager.gzip - sizes.tfjs.gzip) / 1024).toFixed(0)} KB too big`}`,
    });
  }
  return out;
}

const mark = (h) => (h === true ? 'HOLDS' : h === false ? 'MISSES' : 'n/a');

function rows(envResult, sizes) {
  const out = envResult.cases.map((c) => ({
    label: c.label,
    cells: RUNTIMES.map((rt) => cell(c, c.results[rt])),
    // With --runs N: the ratio of the merged medians, then each run's own ratio.
    ratios: PEERS.map((p) => fmtRatio(ratio(c, p)) + (c.runRatios?.[p]?.every((x) => x != null) ? ` (${c.runRatios[p].map((x) => x.toFixed(2)).join(', ')})` : '')),
  }));
  if (sizes) out.push(sizeRow(sizes));
  if (sizes?.download) out.push(sizeRow(sizes.download, 'JS + wasm a page loads to run a model, gz'));
  return out;
}

const HEAD = ['case', 'eager-wasm', 'tfjs-wasm', 'ORT-web', 'tfjs/eager', 'ort/eager'];

export function textTable(envResult, sizes) {
  const body = rows(envResult, sizes).map((r) => [r.label, ...r.cells, ...r.ratios]);
  const all = [HEAD, ...body];
  const w = HEAD.map((_, i) => Math.min(i === 0 ? 60 : 48, Math.max(...all.map((r) => String(r[i]).length))));
  const line = (r) => r.map((v, i) => String(v).slice(0, w[i]).padEnd(w[i])).join(' | ');
  return [line(HEAD), w.map((n) => '-'.repeat(n)).join('-+-'), ...body.map(line)].join('\n');
}

export function markdownTable(envResult, sizes) {
  const body = rows(envResult, sizes).map((r) => [r.label, ...r.cells, ...r.ratios]);
  const esc = (s) => String(s).replace(/\|/g, '\\|');
  return [
    `| ${HEAD.join(' | ')} |`,
    `|${HEAD.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    ...body.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
}

export function targetsText(targets) {
  return targets.map((t) => `  [${mark(t.holds).padEnd(6)}] ${t.text}: ${t.detail}`).join('\n');
}

export function targetsMarkdown(targets) {
  return [
    '| target | status | measured |',
    '|---|---|---|',
    ...targets.map((t) => `| ${t.text} | ${mark(t.holds)} | ${t.detail.replace(/\|/g, '\\|')} |`),
  ].join('\n');
}

export function notes(envResult) {
  const seen = new Map();
  for (const c of envResult.cases) {
    for (const rt of RUNTIMES) {
      const n = c.results[rt]?.note;
      if (n) seen.set(`${RUNTIME_LABELS[rt]}, ${c.id}: ${n}`, true);
    }
    if (c.leaks) seen.set(`${c.id}: live tensors changed during the case: ${JSON.stringify(c.leaks)}`, true);
  }
  return [...seen.keys()];
}

export function markdownReport({ meta, envs, sizes, targets }) {
  const L = [];
  L.push('# eager-wasm benchmark results');
  L.push('');
  L.push(`Generated by \`npm run bench${meta.quick ? ' -- --quick' : ''}\` at ${meta.date}, commit ${meta.commit}.`);
  L.push('');
  L.push(`Machine: ${meta.cpuModel}, ${meta.cpus} logical cores; load average ${meta.loadBefore.map((x) => x.toFixed(2)).join(' / ')} before, ${meta.loadAfter.map((x) => x.toFixed(2)).join(' / ')} after (1/5/15 min).`);
  if (meta.loadWarning) L.push('', `> **${meta.loadWarning}**`);
  if (meta.quick) L.push('', '> **--quick run: few samples, short warm-up. Smoke test only; not for quoting.**');
  L.push('');
  L.push('Each cell: median per iteration (p10-p90 in brackets). GFLOP/s = 2*M*N*K (or the conv equivalent) / median time. ');
  L.push('Ratios: peer time / eager-wasm time, so > 1 means eager-wasm is faster (for sizes: peer bytes / eager-wasm bytes). ');
  L.push('Method and what each case measures: bench/README.md.');
  for (const e of envs) {
    L.push('');
    L.push(`## ${e.env.name === 'chromium' ? `Chromium (${e.env.browserVersion ?? e.env.userAgent})` : `Node ${e.env.version}`}`);
    L.push('');
    L.push(markdownTable(e, sizes));
    L.push('');
    L.push(checkSummary(e) + (e.env.load ? ` Load average during this environment's run: ${e.env.load.before.toFixed(2)} before, ${e.env.load.after.toFixed(2)} after.` : ''));
    L.push('');
    L.push('Targets:');
    L.push('');
    L.push(targetsMarkdown(targets[e.env.name]));
    const n = notes(e);
    const mm = e.cases.filter((c) => c.mismatches?.length);
    if (mm.length) {
      L.push('');
      for (const c of mm) L.push(`**CHECKSUM MISMATCH** in ${c.id}: ${c.mismatches.map((r) => RUNTIME_LABELS[r]).join(', ')} vs ${c.reference}.`);
    }
    if (n.length) {
      L.push('');
      L.push('Notes:');
      L.push('');
      for (const x of n) L.push(`- ${x}`);
    }
    const rt = Object.entries(e.runtimes).map(([k, v]) => `${RUNTIME_LABELS[k]}: ${v.ok ? JSON.stringify(Object.fromEntries(Object.entries(v).filter(([kk]) => kk !== 'ok' && kk !== 'initMs'))) : 'unavailable: ' + v.error}`);
    L.push('');
    L.push('Runtimes: ' + rt.join('; ') + (e.env.wasmRequests ? `; .wasm files fetched: ${e.env.wasmRequests.join(', ')}` : ''));
  }
  L.push('');
  return L.join('\n');
}

/** "N/M outputs match their reference" over all cases and runtimes of one environment. */
export function checkSummary(envResult) {
  let n = 0;
  let ok = 0;
  for (const c of envResult.cases) {
    for (const r of Object.values(c.results)) {
      if (r.match === undefined) continue;
      n++;
      if (r.match) ok++;
    }
  }
  return `Result check: ${ok}/${n} outputs match their reference${ok === n ? '' : ' -- MISMATCHES, see above'}.`;
}

const median = (xs) => {
  const a = [...xs].sort((x, y) => x - y);
  const m = a.length >> 1;
  return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2;
};

/**
 * Several runs of one environment as one result (`npm run bench -- --runs N`): each runtime's
 * figures are the medians of the runs' figures, so one disturbed run does not move them; the runs'
 * own medians and peer/eager ratios are kept (`runMedians`, `runRatios`) for the spread. A case
 * whose runtime failed or mismatched in any run keeps that verdict.
 */
export function mergeRuns(runs) {
  if (runs.length === 1) return runs[0];
  const merged = structuredClone(runs[0]);
  merged.env.runs = runs.length;
  merged.env.load = { before: runs[0].env.load?.before, after: runs.at(-1).env.load?.after };
  // The split build's on-demand part counts in the download figure if any run loaded it.
  if (merged.runtimes?.eager) {
    merged.runtimes.eager.coldCodeLoadedAfterRun = runs.some((r) => r.runtimes?.eager?.coldCodeLoadedAfterRun !== false);
  }
  for (const c of merged.cases) {
    const same = runs.map((r) => r.cases.find((x) => x.id === c.id)).filter(Boolean);
    c.mismatches = [...new Set(same.flatMap((x) => x.mismatches ?? []))];
    c.runRatios = {};
    for (const peer of PEERS) c.runRatios[peer] = same.map((x) => ratio(x, peer));
    for (const rt of RUNTIMES) {
      const rs = same.map((x) => x.results[rt]);
      const bad = rs.find((r) => r?.status !== 'ok');
      if (bad !== undefined || !rs.length) {
        c.results[rt] = bad;
        continue;
      }
      const r = c.results[rt];
      for (const k of ['median', 'p10', 'p90', 'min', 'max']) r[k] = median(rs.map((x) => x[k]));
      if (r.gflops) for (const k of Object.keys(r.gflops)) r.gflops[k] = median(rs.map((x) => x.gflops[k]));
      r.match = rs.every((x) => x.match !== false) ? r.match : false;
      r.runMedians = rs.map((x) => x.median);
      delete r.perIterMs;
    }
  }
  return merged;
}
