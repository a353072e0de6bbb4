// Live charts: one uPlot chart per metric, one series per lane, x = number of loads. Colors and
// lane visibility are shared by all charts (the page draws one legend for all of them); the
// cursor is synced across charts. Each chart resizes with its container.

import uPlot from '../node_modules/uplot/dist/uPlot.esm.js';

export const METRICS = [
  { field: 'cacheEntries', title: 'Kernel-cache entries', unit: 'count', note: 'cached kernels' },
  { field: 'heapBytes', title: 'Heap in use', unit: 'bytes', note: 'live bytes of the Rust allocator' },
  { field: 'cacheBytes', title: 'Kernel-cache bytes', unit: 'bytes', note: 'bytes held by cached kernels' },
  { field: 'wasmMemoryBytes', title: 'Wasm memory reserved', unit: 'bytes', note: 'memory.buffer.byteLength: only grows' },
  { field: 'numTensors', title: 'Live tensors', unit: 'count', note: 'tensor buffers alive' },
  { field: 'numResources', title: 'Resources', unit: 'count', note: 'variables alive' },
];

const KIB = 1024;
export function formatBytes(n) {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  const a = Math.abs(n);
  if (a < KIB) return `${n} B`;
  if (a < KIB ** 2) return `${(n / KIB).toFixed(a < 10 * KIB ? 1 : 0)} KiB`;
  if (a < KIB ** 3) return `${(n / KIB ** 2).toFixed(a < 10 * KIB ** 2 ? 2 : 1)} MiB`;
  return `${(n / KIB ** 3).toFixed(2)} GiB`;
}
export const formatCount = (n) =>
  n === null || n === undefined || !Number.isFinite(n) ? '–' : Math.round(n).toLocaleString('en-US');

function compactCount(n) {
  const a = Math.abs(n);
  if (a >= 1e6) return `${+(n / 1e6).toFixed(1)}M`;
  if (a >= 1e4) return `${+(n / 1e3).toFixed(0)}k`;
  if (a >= 1e3) return `${+(n / 1e3).toFixed(1)}k`;
  return `${+n.toFixed(2)}`;
}
function compactBytes(n) {
  const a = Math.abs(n);
  if (a >= KIB ** 3) return `${+(n / KIB ** 3).toFixed(1)}G`;
  if (a >= KIB ** 2) return `${+(n / KIB ** 2).toFixed(a >= 100 * KIB ** 2 ? 0 : 2)}M`;
  if (a >= KIB) return `${+(n / KIB).toFixed(a >= 100 * KIB ? 0 : 1)}K`;
  return `${n}`;
}

/** Tick steps for byte axes: 1, 2, 5 x powers of ten x KiB / MiB / GiB (ticks land on 16M, 32M...). */
const BYTE_INCRS = [1, KIB, KIB ** 2, KIB ** 3].flatMap((u) =>
  [1, 2, 4, 8, 16, 32, 64, 128, 256, 512].map((m) => m * u),
);

/** Few, round ticks on the log (asinh) scale: 0, then start * step^k up to the top. */
const logSplits = (start, step) => (u, axisIdx, min, max) => {
  const out = [0];
  for (let v = start; v <= max; v *= step) out.push(v);
  return out;
};

/** Readable css variables (charts follow the page's light/dark theme). */
function css(name, fallback) {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v === '' ? fallback : v;
}

/**
 * Creates the charts inside `container`. Returns { setData(xs, perLane), setVisible(id, on),
 * destroy() } where perLane is { [laneId]: { [field]: number[] } } on the shared x grid `xs`.
 */
export function createCharts(container, lanes, { log = false } = {}) {
  container.textContent = '';
  const charts = [];
  const visible = Object.fromEntries(lanes.map((l) => [l.id, true]));
  const axisColor = css('--muted', '#667');
  const gridColor = css('--grid', 'rgba(128,128,128,0.15)');
  const font = `11px ${css('--font', 'system-ui, sans-serif')}`;

  for (const m of METRICS) {
    const card = document.createElement('figure');
    card.className = 'chart';
    card.dataset.chart = m.field;
    const cap = document.createElement('figcaption');
    cap.innerHTML = `<span class="chart-title">${m.title}</span> <span class="chart-note">${m.note}</span>`;
    const readout = document.createElement('div');
    readout.className = 'chart-readout';
    readout.setAttribute('aria-hidden', 'true');
    const plotBox = document.createElement('div');
    plotBox.className = 'plot';
    card.append(cap, plotBox, readout);
    container.append(card);

    const fmtAxis = m.unit === 'bytes' ? compactBytes : compactCount;
    const fmtValue = m.unit === 'bytes' ? formatBytes : formatCount;
    const opts = {
      width: Math.max(200, plotBox.clientWidth),
      height: Math.max(140, plotBox.clientHeight || 180),
      legend: { show: false },
      cursor: {
        sync: { key: 'eager-wasm-lanes' },
        drag: { x: false, y: false, setScale: false },
        points: { size: 6 },
      },
      scales: {
        x: { time: false },
        // 'log': an asinh scale (log-like, but 0 stays 0), so flat lanes near zero separate.
        y: log
          ? { distr: 4, asinh: 1, range: (u, min, max) => [0, max > 0 ? max * 1.5 : 1] }
          : { range: (u, min, max) => [0, max > 0 ? max * 1.08 : 1] },
      },
      axes: [
        {
          stroke: axisColor,
          grid: { stroke: gridColor, width: 1 },
          ticks: { stroke: gridColor, width: 1 },
          font,
          values: (u, ticks) => ticks.map((v) => (v == null ? '' : compactCount(v))),
          label: 'loads',
          labelSize: 14,
          labelFont: font,
          size: 30,
        },
        {
          stroke: axisColor,
          grid: { stroke: gridColor, width: 1 },
          ticks: { stroke: gridColor, width: 1 },
          font,
          values: (u, ticks) => ticks.map((v) => (v == null ? '' : fmtAxis(v))),
          ...(log
            ? { splits: m.unit === 'bytes' ? logSplits(KIB, 32) : logSplits(1, 10) }
            : m.unit === 'bytes'
              ? { incrs: BYTE_INCRS }
              : {}),
          size: 52,
        },
      ],
      series: [
        { label: 'loads' },
        ...lanes.map((l) => ({
          label: l.name,
          stroke: l.color,
          width: 2,
          // Lanes often sit on the same value (4 and 5 always do): dashes let the one below show.
          ...(l.dash ? { dash: l.dash } : {}),
          spanGaps: true,
          points: { show: false },
          value: (u, v) => fmtValue(v),
        })),
      ],
      hooks: {
        setCursor: [(u) => showReadout(u, u.cursor.idx)],
        setData: [(u) => u.cursor.idx == null && showReadout(u, null)],
      },
    };
    const data = [[0], ...lanes.map(() => [null])];
    const u = new uPlot(opts, data, plotBox);

    // Values at the cursor, or each lane's latest value when the cursor is away.
    function showReadout(u, idx) {
      const xs = u.data[0];
      if (xs.length === 0) {
        readout.textContent = '';
        return;
      }
      const parts = [];
      if (idx != null) parts.push(`<span class="at">at ${formatCount(xs[idx])} loads</span>`);
      lanes.forEach((l, s) => {
        if (!visible[l.id]) return;
        const ys = u.data[s + 1];
        let i = idx;
        if (i == null) for (i = ys.length - 1; i > 0 && ys[i] == null; i--);
        const v = ys[i];
        if (v === null || v === undefined) return;
        parts.push(`<span class="ro"><span class="num" style="--lane:${l.color}">${l.n}</span>${fmtValue(v)}</span>`);
      });
      readout.innerHTML = parts.join(' ');
    }

    const ro = new ResizeObserver(() => {
      const w = Math.floor(plotBox.clientWidth);
      const h = Math.floor(plotBox.clientHeight);
      if (w > 0 && h > 0 && (w !== u.width || h !== u.height)) u.setSize({ width: w, height: h });
    });
    ro.observe(plotBox);
    charts.push({ m, u, ro });
  }

  return {
    setData(xs, perLane) {
      for (const { m, u } of charts) {
        const cols = [xs];
        for (const l of lanes) {
          const ys = perLane[l.id]?.[m.field] ?? [];
          if (ys.length >= xs.length) cols.push(ys.length === xs.length ? ys : ys.slice(0, xs.length));
          else {
            const padded = ys.slice();
            padded.length = xs.length;
            padded.fill(null, ys.length);
            cols.push(padded);
          }
        }
        u.setData(cols);
      }
    },
    setVisible(id, on) {
      visible[id] = on;
      const s = lanes.findIndex((l) => l.id === id) + 1;
      for (const { u } of charts) u.setSeries(s, { show: on });
    },
    destroy() {
      for (const { u, ro } of charts) {
        ro.disconnect();
        u.destroy();
      }
      container.textContent = '';
    },
  };
}
