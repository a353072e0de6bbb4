// The ctx.ops / Tensor method cases of issue 17, shared by tests/js/ops.test.mjs (Node) and
// scripts/chromium-check.mjs (Chromium): each helper against the raw execute call it stands for
// (same values, and a cache hit on that op's kernel: the cache sees the same ops) and against
// values worked out by hand, with no tensor left behind.

const i32 = (ctx, v, shape) => ctx.tensor(Int32Array.from(v), shape ?? [v.length], 'int32');
export const plain = (t) => ({ dtype: t.dtype, shape: t.shape, data: Array.from(t.dataSync(), (x) => (t.dtype === 'float32' ? Math.round(x * 1e4) / 1e4 : x)) });

/**
 * [label, op, helper(ctx, x), the same op by execute(ctx, x), expected { dtype, shape, data }].
 * x is [[1, 2, 3], [4, 5, 6]] (float32); img a 3x3x1 image 1..9 (batched [1, 3, 3, 1] for execute).
 */
export const CASES = [
  ['add with a tensor', 'AddV2', (c, x) => c.ops.add(x, x), (c, x) => c.execute('AddV2', [x, x])[0], ['float32', [2, 3], [2, 4, 6, 8, 10, 12]]],
  ['add broadcasting a number', 'AddV2', (c, x) => x.add(1), (c, x) => c.execute('AddV2', [x, c.tensor(1)])[0], ['float32', [2, 3], [2, 3, 4, 5, 6, 7]]],
  ['sub broadcasting a row', 'Sub', (c, x) => x.sub([1, 1, 1]), (c, x) => c.execute('Sub', [x, c.tensor([1, 1, 1])])[0], ['float32', [2, 3], [0, 1, 2, 3, 4, 5]]],
  ['div', 'RealDiv', (c, x) => x.div(2), (c, x) => c.execute('RealDiv', [x, c.tensor(2)])[0], ['float32', [2, 3], [0.5, 1, 1.5, 2, 2.5, 3]]],
  ['mod (FloorMod)', 'FloorMod', (c, x) => x.mod(4), (c, x) => c.execute('FloorMod', [x, c.tensor(4)])[0], ['float32', [2, 3], [1, 2, 3, 0, 1, 2]]],
  ['greater gives bool', 'Greater', (c, x) => x.greater(3), (c, x) => c.execute('Greater', [x, c.tensor(3)])[0], ['bool', [2, 3], [0, 0, 0, 1, 1, 1]]],
  ['neg', 'Neg', (c, x) => x.neg(), (c, x) => c.execute('Neg', [x])[0], ['float32', [2, 3], [-1, -2, -3, -4, -5, -6]]],
  ['square', 'Square', (c, x) => c.ops.square(x), (c, x) => c.execute('Square', [x])[0], ['float32', [2, 3], [1, 4, 9, 16, 25, 36]]],
  ['relu6 of x - 3, times 2', 'Relu6', (c, x) => c.ops.relu6(x.mul(2).sub(6)), (c, x) => c.execute('Relu6', [c.tensor([[-4, -2, 0], [2, 4, 6]])])[0], ['float32', [2, 3], [0, 0, 0, 2, 4, 6]]],
  ['sum of all', 'Sum', (c, x) => x.sum(), (c, x) => c.execute('Sum', [x, i32(c, [0, 1])], { keep_dims: false })[0], ['float32', [], [21]]],
  ['sum axis 1 keepDims', 'Sum', (c, x) => x.sum(1, true), (c, x) => c.execute('Sum', [x, i32(c, [1])], { keep_dims: true })[0], ['float32', [2, 1], [6, 15]]],
  ['mean axis 0', 'Mean', (c, x) => x.mean(0), (c, x) => c.execute('Mean', [x, i32(c, [0])], { keep_dims: false })[0], ['float32', [3], [2.5, 3.5, 4.5]]],
  ['max axis -1', 'Max', (c, x) => x.max(-1), (c, x) => c.execute('Max', [x, i32(c, [-1])], { keep_dims: false })[0], ['float32', [2], [3, 6]]],
  ['min', 'Min', (c, x) => x.min(), (c, x) => c.execute('Min', [x, i32(c, [0, 1])], { keep_dims: false })[0], ['float32', [], [1]]],
  ['prod axis 1', 'Prod', (c, x) => x.prod(1), (c, x) => c.execute('Prod', [x, i32(c, [1])], { keep_dims: false })[0], ['float32', [2], [6, 120]]],
  ['argMax is int32, axis 0 by default', 'ArgMax', (c, x) => x.argMax(), (c, x) => c.execute('ArgMax', [x, i32(c, [0], [])], { output_type: 'int32' })[0], ['int32', [3], [1, 1, 1]]],
  ['argMin axis 1', 'ArgMin', (c, x) => x.argMin(1), (c, x) => c.execute('ArgMin', [x, i32(c, [1], [])], { output_type: 'int32' })[0], ['int32', [2], [0, 0]]],
  ['reshape', 'Reshape', (c, x) => x.reshape([3, 2]), (c, x) => c.execute('Reshape', [x, i32(c, [3, 2])])[0], ['float32', [3, 2], [1, 2, 3, 4, 5, 6]]],
  ['expandDims', 'ExpandDims', (c, x) => x.expandDims(1), (c, x) => c.execute('ExpandDims', [x, i32(c, [1], [])])[0], ['float32', [2, 1, 3], [1, 2, 3, 4, 5, 6]]],
  ['squeeze', 'Squeeze', (c, x) => c.ops.squeeze(x.reshape([1, 2, 1, 3]), [2]), (c, x) => c.execute('Squeeze', [c.tensor([[[[1, 2, 3]], [[4, 5, 6]]]])], { squeeze_dims: [2] })[0], ['float32', [1, 2, 3], [1, 2, 3, 4, 5, 6]]],
  ['slice with begin only', 'Slice', (c, x) => x.slice([0, 1]), (c, x) => c.execute('Slice', [x, i32(c, [0, 1]), i32(c, [-1, -1])])[0], ['float32', [2, 2], [2, 3, 5, 6]]],
  ['slice with a number begin and size', 'Slice', (c, x) => x.slice(1, [1]), (c, x) => c.execute('Slice', [x, i32(c, [1, 0]), i32(c, [1, -1])])[0], ['float32', [1, 3], [4, 5, 6]]],
  ['stridedSlice', 'StridedSlice', (c, x) => x.stridedSlice([0, 0], [2, 3], [1, 2]), (c, x) => c.execute('StridedSlice', [x, i32(c, [0, 0]), i32(c, [2, 3]), i32(c, [1, 2])], { begin_mask: 0, end_mask: 0, ellipsis_mask: 0, new_axis_mask: 0, shrink_axis_mask: 0 })[0], ['float32', [2, 2], [1, 3, 4, 6]]],
  ['transpose (reversed dims by default)', 'Transpose', (c, x) => x.transpose(), (c, x) => c.execute('Transpose', [x, i32(c, [1, 0])])[0], ['float32', [3, 2], [1, 4, 2, 5, 3, 6]]],
  ['concat axis 1', 'ConcatV2', (c, x) => c.ops.concat([x, x], 1), (c, x) => c.execute('ConcatV2', [x, x, i32(c, [1], [])])[0], ['float32', [2, 6], [1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6]]],
  ['t.concat(u)', 'ConcatV2', (c, x) => x.concat(x), (c, x) => c.execute('ConcatV2', [x, x, i32(c, [0], [])])[0], ['float32', [4, 3], [1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6]]],
  ['stack', 'Pack', (c, x) => c.ops.stack([x, x], 1), (c, x) => c.execute('Pack', [x, x], { axis: 1 })[0], ['float32', [2, 2, 3], [1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6]]],
  ['unstack (second part)', 'Unpack', (c, x) => { const [a, b] = x.unstack(); a.dispose(); return b; }, (c, x) => { const [a, b] = c.execute('Unpack', [x], { num: 2, axis: 0 }); a.dispose(); return b; }, ['float32', [3], [4, 5, 6]]],
  ['split by sizes (second part)', 'SplitV', (c, x) => { const [a, b] = x.split([1, 2], 1); a.dispose(); return b; }, (c, x) => { const [a, b] = c.execute('SplitV', [x, i32(c, [1, 2]), i32(c, [1], [])], { num_split: 2 }); a.dispose(); return b; }, ['float32', [2, 2], [2, 3, 5, 6]]],
  ['cast', 'Cast', (c, x) => x.cast('int32'), (c, x) => c.execute('Cast', [x], { DstT: 'int32' })[0], ['int32', [2, 3], [1, 2, 3, 4, 5, 6]]],
  ['pad with a constant', 'PadV2', (c, x) => x.pad([[1, 0], [0, 1]], 9), (c, x) => c.execute('PadV2', [x, i32(c, [1, 0, 0, 1], [2, 2]), c.tensor(9)])[0], ['float32', [3, 4], [9, 9, 9, 9, 1, 2, 3, 9, 4, 5, 6, 9]]],
  ['tile', 'Tile', (c, x) => x.tile([1, 2]), (c, x) => c.execute('Tile', [x, i32(c, [1, 2])])[0], ['float32', [2, 6], [1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6]]],
  ['gather axis 1', 'GatherV2', (c, x) => x.gather([2, 0], 1), (c, x) => c.execute('GatherV2', [x, i32(c, [2, 0]), i32(c, [1], [])], { batch_dims: 0 })[0], ['float32', [2, 2], [3, 1, 6, 4]]],
  ['reverse', 'ReverseV2', (c, x) => x.reverse(1), (c, x) => c.execute('ReverseV2', [x, i32(c, [1])])[0], ['float32', [2, 3], [3, 2, 1, 6, 5, 4]]],
  ['where', 'SelectV2', (c, x) => c.ops.where(x.greater(3), x, 0), (c, x) => c.execute('SelectV2', [c.tensor([[false, false, false], [true, true, true]]), x, c.tensor(0)])[0], ['float32', [2, 3], [0, 0, 0, 4, 5, 6]]],
  ['oneHot is int32', 'OneHot', (c) => c.ops.oneHot([0, 2], 3), (c) => c.execute('OneHot', [i32(c, [0, 2]), i32(c, [3], []), i32(c, [1], []), i32(c, [0], [])], { axis: -1 })[0], ['int32', [2, 3], [1, 0, 0, 0, 0, 1]]],
  ['topk indices', 'TopKV2', (c, x) => { const { values, indices } = x.topk(2); values.dispose(); return indices; }, (c, x) => { const [v, i] = c.execute('TopKV2', [x, i32(c, [2], [])], { sorted: true }); v.dispose(); return i; }, ['int32', [2, 2], [2, 1, 2, 1]]],
  ['matMul transposeB (TF.js positional)', 'MatMul', (c, x) => x.matMul(x, false, true), (c, x) => c.execute('MatMul', [x, x], { transpose_a: false, transpose_b: true })[0], ['float32', [2, 2], [14, 32, 32, 77]]],
  ['matMul transposeA (options)', 'MatMul', (c, x) => c.ops.matMul(x, x, { transposeA: true }), (c, x) => c.execute('MatMul', [x, x], { transpose_a: true, transpose_b: false })[0], ['float32', [3, 3], [17, 22, 27, 22, 29, 36, 27, 36, 45]]],
  ['batched matMul', 'BatchMatMulV2', (c, x) => x.expandDims().matMul(x, false, true), (c, x) => c.execute('BatchMatMulV2', [c.tensor([[[1, 2, 3], [4, 5, 6]]]), x], { adj_x: false, adj_y: true })[0], ['float32', [1, 2, 2], [14, 32, 32, 77]]],
  ['softmax', 'Softmax', (c, x) => x.softmax(), (c, x) => c.execute('Softmax', [x])[0], ['float32', [2, 3], [0.09, 0.2447, 0.6652, 0.09, 0.2447, 0.6652]]],
  ['leakyRelu', 'LeakyRelu', (c, x) => x.neg().leakyRelu(0.5), (c, x) => c.execute('LeakyRelu', [c.tensor([[-1, -2, -3], [-4, -5, -6]])], { alpha: 0.5 })[0], ['float32', [2, 3], [-0.5, -1, -1.5, -2, -2.5, -3]]],
  ['clipByValue', 'ClipByValue', (c, x) => x.clipByValue(2, 4), (c, x) => c.execute('ClipByValue', [x, c.tensor(2), c.tensor(4)])[0], ['float32', [2, 3], [2, 2, 3, 4, 4, 4]]],
  ['cumsum', 'Cumsum', (c, x) => x.cumsum(1), (c, x) => c.execute('Cumsum', [x, i32(c, [1], [])], { exclusive: false, reverse: false })[0], ['float32', [2, 3], [1, 3, 6, 4, 9, 15]]],
  ['conv2d, one image, TF.js "valid"', 'Conv2D', (c, x, img, f) => c.ops.conv2d(img, f, 1, 'valid'), (c, x, img, f) => c.execute('Conv2D', [img.reshape([1, 3, 3, 1]), f], { strides: [1, 1, 1, 1], padding: 'VALID' })[0].reshape([2, 2, 1]), ['float32', [2, 2, 1], [12, 16, 24, 28]]],
  ['conv2d "same", strides pair', 'Conv2D', (c, x, img, f) => c.ops.conv2d(img.expandDims(), f, [1, 1], 'same'), (c, x, img, f) => c.execute('Conv2D', [img.reshape([1, 3, 3, 1]), f], { strides: [1, 1, 1, 1], padding: 'SAME' })[0], ['float32', [1, 3, 3, 1], [12, 16, 9, 24, 28, 15, 15, 17, 9]]],
  ['conv2d numeric pad (explicit)', 'Conv2D', (c, x, img, f) => c.ops.conv2d(img, f, 1, 1), (c, x, img, f) => c.execute('Conv2D', [img.reshape([1, 3, 3, 1]), f], { strides: [1, 1, 1, 1], padding: 'EXPLICIT', explicit_paddings: [0, 0, 1, 1, 1, 1, 0, 0] })[0].reshape([4, 4, 1]), ['float32', [4, 4, 1], [1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9]]],
  ['depthwiseConv2d', 'DepthwiseConv2dNative', (c, x, img, f) => c.ops.depthwiseConv2d(img.expandDims(), f, 1, 'valid'), (c, x, img, f) => c.execute('DepthwiseConv2dNative', [img.reshape([1, 3, 3, 1]), f], { strides: [1, 1, 1, 1], padding: 'VALID' })[0], ['float32', [1, 2, 2, 1], [12, 16, 24, 28]]],
  ['maxPool (TF.js positional)', 'MaxPool', (c, x, img) => c.ops.maxPool(img.expandDims(), 2, 1, 'valid'), (c, x, img) => c.execute('MaxPool', [img.reshape([1, 3, 3, 1])], { ksize: [1, 2, 2, 1], strides: [1, 1, 1, 1], padding: 'VALID' })[0], ['float32', [1, 2, 2, 1], [5, 6, 8, 9]]],
  ['avgPool "same"', 'AvgPool', (c, x, img) => c.ops.avgPool(img.expandDims(), [2, 2], 1, 'same'), (c, x, img) => c.execute('AvgPool', [img.reshape([1, 3, 3, 1])], { ksize: [1, 2, 2, 1], strides: [1, 1, 1, 1], padding: 'SAME' })[0], ['float32', [1, 3, 3, 1], [3, 4, 4.5, 6, 7, 7.5, 7.5, 8.5, 9]]],
  ['resizeBilinear of one image', 'ResizeBilinear', (c, x, img) => img.resizeBilinear([2, 2]), (c, x, img) => c.execute('ResizeBilinear', [img.reshape([1, 3, 3, 1]), i32(c, [2, 2])], { align_corners: false, half_pixel_centers: false })[0].reshape([2, 2, 1]), ['float32', [2, 2, 1], [1, 2.5, 5.5, 7]]],
  ['resizeNearestNeighbor alignCorners', 'ResizeNearestNeighbor', (c, x, img) => c.ops.image.resizeNearestNeighbor(img.expandDims(), [2, 2], true), (c, x, img) => c.execute('ResizeNearestNeighbor', [img.reshape([1, 3, 3, 1]), i32(c, [2, 2])], { align_corners: true, half_pixel_centers: false })[0], ['float32', [1, 2, 2, 1], [1, 3, 7, 9]]],
  // Boxes 0 and 1 overlap (IoU 0.9): 1 is suppressed.
  ['image.nonMaxSuppression', 'NonMaxSuppressionV3', (c) => c.ops.image.nonMaxSuppression([[0, 0, 1, 1], [0, 0, 0.9, 1], [0, 2, 1, 3]], [0.9, 0.8, 0.7], 3), (c) => c.execute('NonMaxSuppressionV3', [c.tensor([[0, 0, 1, 1], [0, 0, 0.9, 1], [0, 2, 1, 3]]), c.tensor([0.9, 0.8, 0.7]), i32(c, [3], []), c.tensor(0.5), c.tensor(-Infinity)])[0], ['int32', [2], [0, 2]]],
  ['fill/zeros/ones', 'Fill', (c) => c.ops.ones([2, 2], 'int32'), (c) => c.execute('Fill', [i32(c, [2, 2]), i32(c, [1], [])])[0], ['int32', [2, 2], [1, 1, 1, 1]]],
  ['range', 'Range', (c) => c.ops.range(0, 5, 2), (c) => c.execute('Range', [c.tensor(0), c.tensor(5), c.tensor(2)])[0], ['float32', [3], [0, 2, 4]]],
];

/** Runs every case in `ctx`; returns the failures (empty when all pass). */
export function checkOpsCases(ctx) {
  const failures = [];
  const x = ctx.tensor([[1, 2, 3], [4, 5, 6]]);
  const img = ctx.tensor(new Float32Array([1, 2, 3, 4, 5, 6, 7, 8, 9]), [3, 3, 1]);
  const f = ctx.tensor(new Float32Array([1, 1, 1, 1]), [2, 2, 1, 1]);
  const base = ctx.memory().numTensors;
  for (const [label, op, helper, raw, [dtype, shape, data]] of CASES) {
    try {
      const want = ctx.tidy(() => plain(raw(ctx, x, img, f)));
      const expected = JSON.stringify({ dtype, shape, data });
      if (JSON.stringify(want) !== expected) throw new Error(`execute gives ${JSON.stringify(want)}, worked out by hand ${expected}`);
      const hits = ctx.cacheStats().byOp[op]?.hits ?? 0;
      const got = ctx.tidy(() => plain(helper(ctx, x, img, f)));
      if (JSON.stringify(got) !== expected) throw new Error(`the helper gives ${JSON.stringify(got)}, execute ${expected}`);
      if (!(ctx.cacheStats().byOp[op].hits > hits)) throw new Error(`the helper did not hit the ${op} kernel execute made`);
      const left = ctx.memory().numTensors - base;
      if (left !== 0) throw new Error(`${left} tensors left behind`);
    } catch (e) {
      failures.push(`${label}: ${(e && e.message) || e}`);
    }
  }
  for (const t of [x, img, f]) t.dispose();
  return failures;
}
