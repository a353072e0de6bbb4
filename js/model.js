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
    const names = stageFeeds(this, x, 'predict');
    const len = callWasm(() => this._w.predict(names));
    const out = readOutputs(this.context, len);
    if (out.length === 1) return out[0];
    const named = {};
    out.forEach((t, i) => {
      named[this.outputs[i]?.name ?? `output_${i}`] = t;
    });
    return named;
  }

  /**
   * TF.js's `execute`: inputs as for predict; `outputs` names what to return (a signature output
   * key, `'node:1'` or a node name, intermediate nodes included), default the signature outputs.
   * One name (a string): a Tensor; else Tensors in order (a single Tensor for a one-output model).
   */
  execute(inputs, outputs) {
    return executeModel(this, inputs, outputs, 'execute');
  }

  /** `execute` as a Promise, the call TF.js users make for control-flow models. */
  async executeAsync(inputs, outputs) {
    return executeModel(this, inputs, outputs, 'executeAsync');
  }

  /** Releases every variable and tensor of the model. Idempotent. */
  dispose() {
    if (this._disposed) return;
    callWasm(() => this._w.dispose());
    this._disposed = true;
    this._w.free();
  }
}

function executeModel(model, inputs, outputs, what) {
  const single = typeof outputs === 'string';
  const wanted = outputs == null ? model.outputs.map((o) => o.name) : single ? [outputs] : outputs;
  if (!Array.isArray(wanted) || wanted.some((o) => typeof o !== 'string')) {
    throw new EagerError('InvalidArgument', `${what}() outputs must be a string or an array of strings`);
  }
  const names = stageFeeds(model, inputs, what);
  const len = callWasm(() => model._w.execute(names, wanted));
  const out = readOutputs(model.context, len);
  return single || (outputs == null && out.length === 1) ? out[0] : out;
}

/** Checks predict/execute inputs and puts their handles in io; returns the feed names. */
function stageFeeds(model, x, what) {
  if (model._disposed) {
    throw new EagerError('FailedPrecondition', 'this model has been disposed; load it again');
  }
  let names;
  let tensors;
  if (x instanceof Tensor) {
    names = [model.inputs.length > 0 ? model.inputs[0].name : 'input'];
    tensors = [x];
  } else if (Array.isArray(x)) {
    if (x.length !== model.inputs.length) {
      throw new EagerError(
        'InvalidArgument',
        `the model has ${model.inputs.length} input(s) (${model.inputs.map((i) => i.name).join(', ')}), got ${x.length}`,
      );
    }
    names = model.inputs.map((i) => i.name);
    tensors = x;
  } else if (x !== null && typeof x === 'object') {
    names = Object.keys(x);
    tensors = names.map((k) => x[k]);
  } else {
    throw new EagerError('InvalidArgument', `${what}() takes a Tensor, an array of Tensors or { [name]: Tensor }`);
  }
  const v = ioFor(tensors.length);
  for (let i = 0; i < tensors.length; i++) {
    if (!(tensors[i] instanceof Tensor)) {
      throw new EagerError('InvalidArgument', `${what} input '${names[i]}' is not a Tensor`);
    }
    v[i] = tensors[i].handle;
  }
  return names;
}

/** A TF.js layers (Keras) model: the API of `GraphModel`; inputs are the model's input layers,
 * outputs its output layers (by name). */
export class LayersModel extends GraphModel {}
