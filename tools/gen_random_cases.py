#!/usr/bin/env python3
"""Generate TF's stateful random op references: tests/fixtures/ops/random/cases.json.

Run with the TensorFlow venv described in tools/README.md:

    /tmp/tfenv/bin/python tools/gen_random_cases.py

Each case is one kernel (op + attrs) called several times in a row eagerly with the same inputs:
  {"name", "op", "attrs": {attr: AttrValue JSON as in a TF.js model.json},
   "inputs": [tensor...], "calls": [[output tensor], ...]}      -- the same inputs each call; or
  {..., "call_inputs": [[tensor...] per call], "calls"}           -- other inputs per call; or,
  for failures,
  {"name", "op", "attrs", "inputs", "error": "InvalidArgument"}
tensor as in tools/fixture_io.py.  TF's eager kernel cache keeps one kernel per (op, attrs, input
dtypes), and its GuardedPhiloxRandom advances on every call, so the 1st, 2nd and 3rd call give
different values; the kernel cache is cleared before each case so every case starts from a fresh
kernel.  Seeds are never both 0 here (that draws random seeds); the native test checks the
unseeded ops statistically.  TF runs with one intra-op thread here: its CPU Multinomial splits a
large batch (rows x 50 * (samples * log2(classes) + classes) over ~210k cycles in Eigen's cost
model) into blocks over its thread pool, each block skipping ahead in the stream on its own, so
such batches depend on TF's thread count; with one thread the batch is one block, which is what
eager-wasm computes.  The other ops' values do not depend on the thread count.  The files live
in a subdirectory so tests/op_cases.rs (one call per case) does not read them.
"""

import os
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.dont_write_bytecode = True  # no __pycache__ in tools/

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf.config.threading.set_intra_op_parallelism_threads(1)
from google.protobuf import json_format  # noqa: E402
from tensorflow.python.eager import context  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_io  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "fixtures", "ops", "random")
CALLS = 3

fixture_io.NONFINITE_AS_STRINGS = True  # -inf logits in Multinomial cases


def _attrs(op, kw, attrs):
    """The NodeDef attrs TF builds for the op (defaults and inferred type attrs included)."""
    g = tf.Graph()
    with g.as_default():
        gkw = {k: tf.compat.v1.placeholder(tf.as_dtype(v.dtype), None) for k, v in kw.items()}
        out = getattr(tf.raw_ops, op)(**gkw, **attrs)
        node = out.op.node_def
    return {k: json_format.MessageToDict(v) for k, v in sorted(node.attr.items())
            if not k.startswith("_")}


def case(cases, name, op, inputs, later=(), **attrs):
    """inputs: ordered dict of NodeDef input name -> numpy array, for every call; or, with
    `later` (a list of such dicts), for the first call only, then one call per entry of `later`
    (same dtypes: the same kernel)."""
    context.context().clear_kernel_cache()
    c = {"name": name, "op": op, "attrs": _attrs(op, inputs, attrs),
         "inputs": [fixture_io.tensor(v) for v in inputs.values()]}
    if later:
        c["call_inputs"] = [[fixture_io.tensor(v) for v in i.values()] for i in [inputs, *later]]
    fn = getattr(tf.raw_ops, op)
    try:
        calls = []
        for i in [inputs, *later] if later else [inputs] * CALLS:
            calls.append([fixture_io.tensor(fn(**{k: tf.constant(v) for k, v in i.items()},
                                                **attrs).numpy())])
        c["calls"] = calls
    except tf.errors.OpError as e:
        c["error"] = type(e).__name__[: -len("Error")]
    cases.append(c)


def shape(*dims, dt=np.int32):
    return np.array(dims, dtype=dt)


def main():
    cases = []
    f32 = tf.float32
    # Uniform: odd sizes (a partial group of 4), sizes above 256, every seed form.
    for dims, (s, s2) in [((5,), (7, 3)), ((2, 3), (1, 0)), ((7, 41), (0, 5)),
                          ((1, 1, 1), (123456789012, -9)), ((300,), (-1, 2**62)),
                          ((0, 4), (7, 3))]:
        case(cases, "uniform_%s_seed_%d_%d" % ("x".join(map(str, dims)), s, s2),
             "RandomUniform", {"shape": shape(*dims)}, dtype=f32, seed=s, seed2=s2)
    case(cases, "uniform_int64_shape", "RandomUniform", {"shape": shape(3, 3, dt=np.int64)},
         dtype=f32, seed=11, seed2=12)
    for dims, (s, s2) in [((5,), (7, 3)), ((3, 7), (2, 1)), ((301,), (0, 9)), ((1,), (5, 5))]:
        case(cases, "normal_%s_seed_%d_%d" % ("x".join(map(str, dims)), s, s2),
             "RandomStandardNormal", {"shape": shape(*dims)}, dtype=f32, seed=s, seed2=s2)
    for dims, (s, s2) in [((5,), (7, 3)), ((3, 7), (2, 1)), ((301,), (0, 9)),
                          ((1000,), (42, 0)), ((2,), (3, 4))]:
        case(cases, "truncated_%s_seed_%d_%d" % ("x".join(map(str, dims)), s, s2),
             "TruncatedNormal", {"shape": shape(*dims)}, dtype=f32, seed=s, seed2=s2)
    i32, i64 = np.int32, np.int64
    for dims, lo, hi, dt, (s, s2) in [
            ((5,), -5, 9, i32, (7, 3)),
            ((3, 7), 0, 2**31 - 1, i32, (1, 2)),
            ((259,), -2**31, 2**31 - 1, i32, (0, 4)),
            ((2, 3), 100, 101, i32, (8, 8)),
            ((7,), -10, 1000, i64, (7, 3)),
            ((5, 3), -2**62, 2**62, i64, (9, 1)),
            ((261,), -2**63, 2**63 - 1, i64, (3, 0)),
            ((1,), 0, 3, i64, (4, 4))]:
        case(cases, "uniform_int_%s_%s_%d_%d" % (np.dtype(dt).name, "x".join(map(str, dims)), lo, hi),
             "RandomUniformInt", {"shape": shape(*dims), "minval": np.array(lo, dt),
                                  "maxval": np.array(hi, dt)}, seed=s, seed2=s2)
    case(cases, "uniform_int_empty_range", "RandomUniformInt",
         {"shape": shape(3), "minval": np.array(4, i32), "maxval": np.array(4, i32)},
         seed=1, seed2=1)
    case(cases, "uniform_int_nonscalar_bound", "RandomUniformInt",
         {"shape": shape(3), "minval": np.array([0], i32), "maxval": np.array(4, i32)},
         seed=1, seed2=1)
    case(cases, "uniform_negative_dim", "RandomUniform", {"shape": shape(2, -3)},
         dtype=f32, seed=1, seed2=1)
    case(cases, "uniform_shape_not_vector", "RandomUniform", {"shape": np.array([[2, 3]], i32)},
         dtype=f32, seed=1, seed2=1)
    rng = np.random.default_rng(5)
    ninf = -np.inf
    for name, logits, n, out, (s, s2) in [
            ("2x5_n7", rng.normal(size=(2, 5)).astype(np.float32), 7, tf.int64, (7, 3)),
            ("3x4_n10_int32", rng.normal(size=(3, 4)).astype(np.float32), 10, tf.int32, (1, 9)),
            ("1x3_n1", np.array([[0.0, 1.0, 2.0]], np.float32), 1, tf.int64, (0, 2)),
            ("2x4_neginf", np.array([[ninf, 0.0, ninf, 1.0], [3.0, ninf, ninf, ninf]], np.float32),
             9, tf.int64, (5, 6)),
            ("2x3_large", np.array([[1000.0, 999.0, 990.0], [-50.0, -49.0, -80.0]], np.float32),
             6, tf.int64, (2, 2)),
            ("4x6_n33", rng.normal(size=(4, 6)).astype(np.float32) * 2, 33, tf.int64, (3, 1)),
            ("2x3_n0", rng.normal(size=(2, 3)).astype(np.float32), 0, tf.int64, (6, 6)),
            # Split into blocks of 2 rows by a multi-threaded TF; one block here.
            ("16x200_n64", rng.normal(size=(16, 200)).astype(np.float32), 64, tf.int64, (8, 9))]:
        case(cases, "multinomial_" + name, "Multinomial",
             {"logits": logits, "num_samples": np.array(n, np.int32)},
             seed=s, seed2=s2, output_dtype=out)
    case(cases, "multinomial_rank1_logits", "Multinomial",
         {"logits": np.zeros(3, np.float32), "num_samples": np.array(2, np.int32)}, seed=1, seed2=1)
    case(cases, "multinomial_no_classes", "Multinomial",
         {"logits": np.zeros((2, 0), np.float32), "num_samples": np.array(2, np.int32)},
         seed=1, seed2=1)
    case(cases, "multinomial_negative_samples", "Multinomial",
         {"logits": np.zeros((2, 3), np.float32), "num_samples": np.array(-1, np.int32)},
         seed=1, seed2=1)
    # TF's eager kernel cache keys on attrs and input dtypes, not shapes or values: a call with
    # other inputs continues the same kernel's stream.
    case(cases, "uniform_shape_changes", "RandomUniform", {"shape": shape(5)},
         later=[{"shape": shape(3)}, {"shape": shape(2, 150)}, {"shape": shape(1)}],
         dtype=f32, seed=21, seed2=22)
    case(cases, "truncated_shape_changes", "TruncatedNormal", {"shape": shape(7)},
         later=[{"shape": shape(260)}, {"shape": shape(3)}], dtype=f32, seed=23, seed2=24)

    def bounds(n, lo, hi):
        return {"shape": shape(n), "minval": np.array(lo, i64), "maxval": np.array(hi, i64)}
    case(cases, "uniform_int_bounds_change", "RandomUniformInt", bounds(5, 0, 10),
         later=[bounds(3, -100, 100), bounds(9, 7, 8)], seed=25, seed2=26)

    def mn(rows, classes, n):
        return {"logits": rng.normal(size=(rows, classes)).astype(np.float32),
                "num_samples": np.array(n, np.int32)}
    case(cases, "multinomial_inputs_change", "Multinomial", mn(2, 3, 5),
         later=[mn(3, 4, 1), mn(1, 7, 12), mn(2, 2, 0), mn(1, 3, 2)], seed=27, seed2=28)
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "cases.json")
    with open(path, "w") as fh:
        fh.write("[\n" + ",\n".join(fixture_io.dumps(c) for c in cases) + "\n]\n")
    print("%d cases -> %s" % (len(cases), os.path.relpath(path, REPO)))


if __name__ == "__main__":
    main()
