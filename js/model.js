// GraphModel: a loaded TF.js graph model (inputs/outputs from its signature, predict, dispose).

import { EagerError, callWasm } from './errors.js';
import { ioFor, readOutputs } from './io.js';
import { invalid, messageOf } from './snapshot.js';
import { handleOf } from './tensor.js';

export class GraphModel {
  /** @internal use ctx.loadGraphModel() */
  constructor(ctx, w) {
    this.context = ctx;
    this._w = w;
    this._disposed = false;
    const info = JSON.parse(w.infoJson());
    /** `[{ name, tensorName, dtype, shape }]` */
    this.inputs = info.inputs;
    this.outputs = info.outputs;
    // Private copies: predict() does not depend on what a caller does to the public arrays.
    this._inputNames = info.inputs.map((i) => i.name);
    this._outputNames = info.outputs.map((o, i) => o.name ?? `output_${i}`);
    if (new Set(this._outputNames).size !== this._outputNames.length) {
      throw invalid(`the model's outputs have duplicate names (${this._outputNames.join(', ')})`);
    }
  }

  get isDisposed() {
    return this._disposed || this._w.isDisposed;
  }

  /**
   * x: a Tensor (single-input models), an array in `inputs` order, or `{ [name or 'x:0']: Tensor }`.
   * Returns a Tensor for one output, else `{ [output name]: Tensor }`.
   */
  predict(x) {
    if (this._disposed) {
      throw new EagerError('FailedPrecondition', 'this model has been disposed; load it again');
    }
    const inputNames = this._inputNames;
    let names;
    let tensors;
    try {
      if (handleOf(x) !== undefined) {
        names = [inputNames.length > 0 ? inputNames[0] : 'input'];
        tensors = [x];
      } else if (Array.isArray(x)) {
        if (x.length !== inputNames.length) {
          throw invalid(`the model has ${inputNames.length} input(s) (${inputNames.join(', ')}), got ${x.length}`);
        }
        names = inputNames.slice();
        tensors = Array.from({ length: x.length }, (_, i) => x[i]);
      } else if (x !== null && typeof x === 'object') {
        names = Object.keys(x);
        tensors = names.map((k) => x[k]);
      } else {
        throw invalid('predict() takes a Tensor, an array of Tensors or { [name]: Tensor }');
      }
    } catch (e) {
      throw e instanceof EagerError ? e : invalid(`the predict() inputs could not be read: ${messageOf(e)}`, e);
    }
    // Every caller value is read: from here on no caller code runs until wasm returns.
    const v = ioFor(tensors.length);
    for (let i = 0; i < tensors.length; i++) {
      const h = handleOf(tensors[i]);
      if (h === undefined) throw invalid(`predict input '${names[i]}' is not a Tensor`);
      v[i] = h;
    }
    const len = callWasm(() => this._w.predict(names));
    const out = readOutputs(this.context, len);
    if (out.length === 1) return out[0];
    // No prototype: an output named like an Object.prototype member ('__proto__', 'constructor')
    // is an ordinary key.
    const named = Object.create(null);
    for (let i = 0; i < out.length; i++) named[this._outputNames[i] ?? `output_${i}`] = out[i];
    return named;
  }

  /** Releases every variable and tensor of the model. Idempotent. */
  dispose() {
    if (this._disposed) return;
    callWasm(() => this._w.dispose());
    this._disposed = true;
    this._w.free();
  }
}

