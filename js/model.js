// GraphModel: a loaded TF.js graph model (inputs/outputs from its signature, predict, dispose).

import { EagerError, callWasm } from './errors.js';
import { ioFor, readOutputs } from './io.js';
import { Tensor } from './tensor.js';

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
    let names;
    let tensors;
    if (x instanceof Tensor) {
      names = [this.inputs.length > 0 ? this.inputs[0].name : 'input'];
      tensors = [x];
    } else if (Array.isArray(x)) {
      if (x.length !== this.inputs.length) {
        throw new EagerError(
          'InvalidArgument',
          `the model has ${this.inputs.length} input(s) (${this.inputs.map((i) => i.name).join(', ')}), got ${x.length}`,
        );
      }
      names = this.inputs.map((i) => i.name);
      tensors = x;
    } else if (x !== null && typeof x === 'object') {
      names = Object.keys(x);
      tensors = names.map((k) => x[k]);
    } else {
      throw new EagerError('InvalidArgument', 'predict() takes a Tensor, an array of Tensors or { [name]: Tensor }');
    }
    const v = ioFor(tensors.length);
    for (let i = 0; i < tensors.length; i++) {
      if (!(tensors[i] instanceof Tensor)) {
        throw new EagerError('InvalidArgument', `predict input '${names[i]}' is not a Tensor`);
      }
      v[i] = tensors[i].handle;
    }
    const len = callWasm(() => this._w.predict(names));
    const out = readOutputs(this.context, len);
    if (out.length === 1) return out[0];
    const named = {};
    out.forEach((t, i) => {
      named[this.outputs[i]?.name ?? `output_${i}`] = t;
    });
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

