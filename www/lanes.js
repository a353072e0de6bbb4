// The lanes: five with one EagerContext each, with the settings of one moment in TensorFlow's
// history of issue #40171 (see ../shared/DESIGN.md), and one running TF.js's own API on eager-wasm.
// Colors are from the Okabe-Ito palette (legible for the common kinds of color blindness).

export const DEFAULT_LRU_CAPACITY = 200;
export const DEFAULT_BACKSTOP_BYTES = 8 * 2 ** 20;

export const LANES = [
  {
    id: 'tf22',
    n: 1,
    name: 'TF 2.2',
    tag: 'the leak',
    color: '#D55E00',
    settings: () => ({ resourceNames: 'unique', cache: {} }),
    settingsText: () => "resourceNames: 'unique', cache unbounded",
    explain:
      'Every restored variable gets a unique shared_name, and attrs are part of the kernel-cache ' +
      'key. So each load adds one VarHandleOp kernel per variable that is never looked up again, ' +
      'and the cache has no bound: it grows with every load, forever.',
  },
  {
    id: 'lru',
    n: 2,
    name: 'LRU cap',
    tag: 'PR #42337, not merged',
    color: '#E69F00',
    settings: (o) => ({ resourceNames: 'unique', cache: { maxEntries: o.lruCapacity } }),
    settingsText: (o) => `resourceNames: 'unique', cache { maxEntries: ${o.lruCapacity} }`,
    explain:
      'Same unique names, but the cache evicts its least recently used kernel once it is full. ' +
      'Memory stays bounded, yet the leak is only hidden: the cache is full of dead keys and ' +
      'evicts on every load. Set the capacity below what one load needs and it thrashes: useful ' +
      'kernels are evicted too, and the hit rate falls.',
  },
  {
    id: 'exclude',
    n: 3,
    name: 'Exclude VarHandleOp',
    tag: 'PR #42377, not merged',
    color: '#CC79A7',
    dash: [3, 3],
    settings: () => ({ resourceNames: 'unique', cache: { exclude: ['VarHandleOp'] } }),
    settingsText: () => "resourceNames: 'unique', cache { exclude: ['VarHandleOp'] }",
    explain:
      'Same unique names, but VarHandleOp is never cached: its kernel is made for one call and ' +
      'dropped. The cache stays flat, but only because this one op is special-cased; the ' +
      'next op that carries a unique attr would leak again.',
  },
  {
    id: 'anonymous',
    n: 4,
    name: 'Anonymous names',
    tag: 'the fix that shipped',
    color: '#0072B2',
    settings: () => ({ resourceNames: 'anonymous', cache: {} }),
    settingsText: () => "resourceNames: 'anonymous', cache unbounded",
    explain:
      'Restored variables all use the same anonymous shared_name, so every VarHandleOp has the ' +
      'same attrs and one cached kernel serves every load; the kernel mints a fresh variable each ' +
      'time it runs. The key was fixed, not the cache: nothing grows, and the cache hits.',
  },
  {
    id: 'default',
    n: 5,
    name: 'eager-wasm default',
    tag: 'fix + backstop',
    color: '#009E73',
    dash: [8, 5],
    settings: () => ({ resourceNames: 'anonymous', cache: { maxBytes: DEFAULT_BACKSTOP_BYTES } }),
    settingsText: () => "resourceNames: 'anonymous', cache { maxBytes: 8 MiB }",
    explain:
      'Anonymous names as in lane 4, plus a byte bound as a backstop that should never be ' +
      'reached in normal use, and churn warnings that name any op whose keys never repeat, so ' +
      'a leak like lane 1\u2019s is seen at once instead of found with a profiler.',
  },
  {
    id: 'tfjs',
    n: 6,
    name: 'TF.js API',
    tag: "tf.loadGraphModel on 'eager-wasm'",
    color: '#56B4E9',
    dash: [2, 3],
    // Runs TF.js itself (www/tfjs-lane.js): its worker, and TF.js's download, start only when the
    // lane is on; graph models only (tf.loadGraphModel).
    tfjs: true,
    settings: () => undefined,
    settingsText: () => "backend defaults: resourceNames: 'anonymous', cache unbounded",
    explain:
      'A TF.js app\u2019s own code: tf.setBackend(\'eager-wasm\'), tf.loadGraphModel, model.predict, ' +
      'model.dispose. TF.js holds a model\u2019s weights as tensors, so no VarHandleOp runs and ' +
      'resource names never reach the cache; its keys are the kernels predict runs, the same on ' +
      'every load. Live tensors here is tf.memory().numTensors (the fixed input).',
  },
];

export const LANE_BY_ID = Object.fromEntries(LANES.map((l) => [l.id, l]));

/** Fields of one sample posted by a lane worker, in order (also the data-metric names). */
export const SAMPLE_FIELDS = [
  'loads',
  'cacheEntries',
  'cacheBytes',
  'heapBytes',
  'wasmMemoryBytes',
  'numTensors',
  'numResources',
];
