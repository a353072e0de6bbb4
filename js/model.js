// GraphModel: a loaded TF.js graph model (inputs/outputs from its signature, predict, dispose).

import { EagerError, STACK_DEEP, callWasm } from './errors.js';
import { ioFor, readOutputs } from './io.js';
import { describe, invalid, messageOf } from './snapshot.js';
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
    const names = stageFeeds(this, x, 'predict');
    const len = callWasm(() => this._w.predict(names), STACK_DEEP);
    const out = readOutputs(this.context, len);
    if (out.length === 1) return out[0];
    // No prototype: an output named like an Object.prototype member ('__proto__', 'constructor')
    // is an ordinary key.
    const named = Object.create(null);
    for (let i = 0; i < out.length; i++) named[this._outputNames[i] ?? `output_${i}`] = out[i];
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

  /**
   * `predict` with every node timed: per node (in execution order) its name, op, time in ms,
   * outputs (dtype, shape, bytes), inputs (where from, dtype, shape, bytes), attrs (as
   * `ctx.execute` takes them) and kernel-cache use; plus totals by op type, longest first.
   * The outputs are disposed. A node inside a loop is one entry for all its iterations (`count`
   * runs, `ms` their total).
   */
  profile(x) {
    const names = stageFeeds(this, x, 'profile');
    const [json, ms, wallMs, attrs] = callWasm(() => this._w.profile(names), STACK_DEEP);
    const nodes = JSON.parse(json);
    const ops = new Map();
    let totalMs = 0;
    nodes.forEach((n, i) => {
      n.ms = ms[i];
      n.attrs = attrs[i];
      totalMs += n.ms;
      const o = ops.get(n.op) ?? { op: n.op, count: 0, ms: 0, share: 0 };
      o.count += n.count;
      o.ms += n.ms;
      ops.set(n.op, o);
    });
    const byOp = [...ops.values()].sort((a, b) => b.ms - a.ms);
    for (const o of byOp) o.share = totalMs > 0 ? o.ms / totalMs : 0;
    return { nodes, byOp, totalMs, wallMs };
  }

  /**
   * Runs the model once on zeros (unknown dims taken as 1) and disposes everything it made, so
   * that its kernels are instantiated and cached before the first real input: the first predict
   * then costs what every later one does.
   */
  warmup() {
    if (this._disposed) {
      throw new EagerError('FailedPrecondition', 'this model has been disposed; load it again');
    }
    const feeds = Object.create(null);
    try {
      for (const info of this.inputs) {
        if (!Array.isArray(info.shape)) {
          throw invalid(`warmup(): input '${info.name}' has an unknown rank; predict on a real input instead`);
        }
        const dims = info.shape.map((d) => (d < 0 ? 1 : d));
        const n = dims.reduce((a, b) => a * b, 1);
        const values =
          info.dtype === 'string'
            ? new Array(n).fill('')
            : new (ZEROS[info.dtype] ?? Float32Array)(info.dtype === 'complex64' ? 2 * n : n);
        feeds[info.name] = this.context.tensor(values, dims, info.dtype);
      }
      const out = this.predict(feeds);
      for (const t of handleOf(out) !== undefined ? [out] : Object.values(out)) t.dispose();
    } finally {
      for (const t of Object.values(feeds)) t.dispose();
    }
  }

  /** Releases every variable and tensor of the model. Idempotent. */
  dispose() {
    if (this._disposed) return;
    callWasm(() => this._w.dispose());
    this._disposed = true;
    this._w.free();
  }
}

/** The typed array that holds zeros of each input dtype for warmup(). */
const ZEROS = { float32: Float32Array, int32: Int32Array, int64: BigInt64Array, bool: Uint8Array, uint8: Uint8Array };

/** The output names an execute() call asks for: a string, an array of strings, or none. */
function wantedOutputs(model, outputs, what) {
  if (outputs === undefined || outputs === null) return model._outputNames.slice();
  if (typeof outputs === 'string') return [outputs];
  let wanted;
  try {
    if (!Array.isArray(outputs)) throw invalid(`${what}() outputs must be a string or an array of strings, got ${describe(outputs)}`);
    wanted = Array.from(outputs);
  } catch (e) {
    throw e instanceof EagerError ? e : invalid(`the ${what}() output names could not be read: ${messageOf(e)}`, e);
  }
  const bad = wanted.findIndex((o) => typeof o !== 'string');
  if (bad >= 0) throw invalid(`${what}() outputs[${bad}] must be a string, got ${describe(wanted[bad])}`);
  return wanted;
}

function executeModel(model, inputs, outputs, what) {
  const single = typeof outputs === 'string';
  const wanted = wantedOutputs(model, outputs, what);
  if (model instanceof LayersModel) {
    // A layers model names its outputs by output layer; its inner layers are not graph nodes.
    const index = wanted.map((o) => {
      const i = model._outputNames.findIndex((n) => n === o || `${n}:0` === o);
      if (i < 0) {
        throw new EagerError(
          'NotFound',
          `${what}(): '${o}' is not an output of this layers model (its outputs: ${model._outputNames.join(', ')}); ` +
            'inner layers cannot be fetched',
        );
      }
      return i;
    });
    const names = stageFeeds(model, inputs, what);
    const all = readOutputs(model.context, callWasm(() => model._w.predict(names), STACK_DEEP));
    const picked = index.map((i) => all[i]);
    // Outputs not asked for are disposed; one asked for twice is returned twice (as the same tensor).
    for (const t of all) if (!picked.includes(t)) t.dispose();
    return single || (outputs == null && picked.length === 1) ? picked[0] : picked;
  }
  const names = stageFeeds(model, inputs, what);
  const len = callWasm(() => model._w.execute(names, wanted), STACK_DEEP);
  const out = readOutputs(model.context, len);
  return single || (outputs == null && out.length === 1) ? out[0] : out;
}

/**
 * Reads predict/execute inputs completely (a throwing getter or Proxy fails the call with an
 * EagerError) and puts their handles in io; returns the feed names. From then on no caller code
 * runs until wasm returns.
 */
function stageFeeds(model, x, what) {
  if (model._disposed) {
    throw new EagerError('FailedPrecondition', 'this model has been disposed; load it again');
  }
  const inputNames = model._inputNames;
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
      throw invalid(`${what}() takes a Tensor, an array of Tensors or { [name]: Tensor }`);
    }
  } catch (e) {
    throw e instanceof EagerError ? e : invalid(`the ${what}() inputs could not be read: ${messageOf(e)}`, e);
  }
  const v = ioFor(tensors.length);
  for (let i = 0; i < tensors.length; i++) {
    const h = handleOf(tensors[i]);
    if (h === undefined) throw invalid(`${what} input '${names[i]}' is not a Tensor`);
    v[i] = h;
  }
  return names;
}

/** A TF.js layers (Keras) model: the API of `GraphModel`; inputs are the model's input layers,
 * outputs its output layers (by name). */
export class LayersModel extends GraphModel {}
