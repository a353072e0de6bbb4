// Ops large enough that the threaded build cuts them into tasks, on deterministic inputs, for the
// threaded-vs-single comparisons (tests/js/threads.test.mjs in Node, scripts/chromium-check.mjs).

/** Deterministic values in [-1, 1). */
function values(n, seed) {
  const out = new Float32Array(n);
  let s = (seed * 2654435761 + 12345) >>> 0;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    out[i] = (s >>> 8) / (1 << 23) - 1;
  }
  return out;
}

const conv = (x, f, stride, padding, op = 'Conv2D') => ({ op, x, f, attrs: { strides: [1, stride, stride, 1], padding } });
const OPS = {
  conv3x3: conv([1, 64, 64, 32], [3, 3, 32, 32], 1, 'SAME'),
  conv3x3_deep_valid: conv([1, 30, 30, 96], [3, 3, 96, 40], 1, 'VALID'),
  conv1x1: conv([1, 56, 56, 64], [1, 1, 64, 72], 1, 'VALID'),
  conv5x5_s2: conv([2, 45, 45, 12], [5, 5, 12, 20], 2, 'SAME'),
  depthwise3x3: conv([1, 112, 112, 32], [3, 3, 32, 1], 1, 'SAME', 'DepthwiseConv2dNative'),
  depthwise5x5_s2: conv([1, 64, 64, 48], [5, 5, 48, 1], 2, 'SAME', 'DepthwiseConv2dNative'),
  depthwise_wide: conv([1, 28, 28, 256], [3, 3, 256, 1], 1, 'VALID', 'DepthwiseConv2dNative'),
  matmul: { op: 'MatMul', x: [250, 500], f: [500, 260], attrs: {} },
  matmul_tb: { op: 'MatMul', x: [130, 700], f: [190, 700], attrs: { transpose_b: true } },
};

/** An output's bytes, base64. */
export const bytes = (t) => {
  const d = t.dtype === 'string' ? t.bytesSync().flatMap((b) => [...b]) : t.dataSync();
  const u8 = ArrayBuffer.isView(d) ? new Uint8Array(d.buffer, d.byteOffset, d.byteLength) : Uint8Array.from(d);
  let s = '';
  for (const b of u8) s += String.fromCharCode(b);
  return btoa(s);
};

/** `{ 'op NAME': [base64 of each output] }` for ops large enough to be cut into tasks. */
export function opCases(ctx) {
  const out = {};
  for (const [name, c] of Object.entries(OPS)) {
    const x = ctx.tensor(values(c.x.reduce((a, b) => a * b), 1), c.x);
    const f = ctx.tensor(values(c.f.reduce((a, b) => a * b), 2), c.f);
    const ys = ctx.execute(c.op, [x, f], c.attrs);
    out[`op ${name}`] = ys.map(bytes);
    for (const t of [x, f, ...ys]) t.dispose();
  }
  return out;
}
