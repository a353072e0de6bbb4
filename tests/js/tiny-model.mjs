// A hand-written TF.js graph model using only always-present ops (AddV2, Mul, Identity), so the
// model API can be tested whatever kernels are registered: y = (x + w) * w, w = [1, 2, 3].
export const tinyModelJson = JSON.stringify({
  format: 'graph-model',
  generatedBy: 'hand',
  convertedBy: 'hand',
  modelTopology: {
    node: [
      { name: 'x', op: 'Placeholder', attr: { dtype: { type: 'DT_FLOAT' }, shape: { shape: { dim: [{ size: '-1' }, { size: '3' }] } } } },
      { name: 'w', op: 'Const', attr: { dtype: { type: 'DT_FLOAT' }, value: { tensor: { dtype: 'DT_FLOAT', tensorShape: { dim: [{ size: '3' }] } } } } },
      { name: 'add', op: 'AddV2', input: ['x', 'w'], attr: { T: { type: 'DT_FLOAT' } } },
      { name: 'mul', op: 'Mul', input: ['add', 'w'], attr: { T: { type: 'DT_FLOAT' } } },
      { name: 'Identity', op: 'Identity', input: ['mul'], attr: { T: { type: 'DT_FLOAT' } } },
      { name: 'Identity_1', op: 'Identity', input: ['add'], attr: { T: { type: 'DT_FLOAT' } } },
    ],
    versions: { producer: 1 },
  },
  signature: {
    inputs: { x: { name: 'x:0', dtype: 'DT_FLOAT', tensorShape: { dim: [{ size: '-1' }, { size: '3' }] } } },
    outputs: {
      y: { name: 'Identity:0', dtype: 'DT_FLOAT', tensorShape: { dim: [{ size: '-1' }, { size: '3' }] } },
      sum: { name: 'Identity_1:0', dtype: 'DT_FLOAT', tensorShape: { dim: [{ size: '-1' }, { size: '3' }] } },
    },
  },
  weightsManifest: [{ paths: ['tiny.bin'], weights: [{ name: 'w', shape: [3], dtype: 'float32' }] }],
});
export const tinyWeights = new Uint8Array(new Float32Array([1, 2, 3]).buffer);
