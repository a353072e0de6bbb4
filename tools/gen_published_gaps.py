#!/usr/bin/env python3
"""Generate fixtures for graphs that published TF.js models contain and TF.js runs, under
tests/fixtures/models/:

  float64_head     float64 inside the graph: Cast to DT_DOUBLE, float64 constants (the converter
                   writes them as float32 weights, the Const nodes keep dtype DT_DOUBLE), MatMul,
                   Mul, AddV2, Tanh in float64, a float64 signature output and a Cast back to
                   float32. TF.js reads every float64 as float32.
  sparse_detector  a detector tail: Where (int64 indices) into GatherNd and ScatterNd, and
                   SparseToDense whose output shape is an int64 Const (stored as int32 weights by
                   the converter) with Tindices int64.

Run with the TensorFlow venv described in tools/README.md:

    /tmp/tfenv/bin/python tools/gen_published_gaps.py [name ...]

Same pipeline as gen_models.py (SavedModel, reference outputs, tensorflowjs_converter, re-run of
the converted graph in TF). Reference outputs of dtype float64 are written cast to float32.
"""

import json
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in tools/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gen_models as gm  # noqa: E402  (sets the TF environment before importing it)
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tfjs_graph  # noqa: E402


class Float64Head(tf.Module):
    """A float32 input computed on in float64, as models exported with float64 constants are."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(901)
        self.w = rng.normal(0, 0.5, (5, 3))
        self.b = rng.normal(0, 0.1, (3,))

    @tf.function(input_signature=[tf.TensorSpec([None, 5], tf.float32, name="x")])
    def serve(self, x):
        d = tf.cast(x, tf.float64)
        h = tf.matmul(d, tf.constant(self.w, tf.float64)) * tf.constant(0.75, tf.float64)
        h = tf.tanh(h + tf.constant(self.b, tf.float64))
        return {"y": tf.cast(h, tf.float32) * 2.0, "y64": h - tf.constant(0.125, tf.float64)}


def build_float64_head():
    rng = np.random.default_rng(902)
    return Float64Head(), {"x": rng.normal(size=(3, 5)).astype(np.float32)}


class SparseDetector(tf.Module):
    """Scores above a threshold: their positions (Where, int64), gathered, scattered back and
    densified with an int64 dense shape, as detection post-processing does."""

    @tf.function(input_signature=[tf.TensorSpec([6, 5], tf.float32, name="scores")])
    def serve(self, scores):
        idx = tf.where(scores > 0.3)                                     # [k, 2] int64
        vals = tf.gather_nd(scores, idx)                                 # Tindices int64
        shape = tf.constant([6, 5], tf.int64)
        dense = tf.sparse.to_dense(tf.SparseTensor(idx, vals, shape))     # SparseToDense
        scattered = tf.scatter_nd(idx, vals * 2.0, shape)                 # ScatterNd, int64
        rows = tf.where(tf.reduce_max(scores, 1) > 0.8)                   # [r, 1] int64
        row_mask = tf.sparse.to_dense(tf.SparseTensor(
            rows, tf.ones_like(rows[:, 0], tf.int32), tf.constant([6], tf.int64)))
        return {"dense": dense, "scattered": scattered, "row_mask": row_mask,
                "count": tf.shape(idx, out_type=tf.int32)[0]}


def build_sparse_detector():
    rng = np.random.default_rng(903)
    return SparseDetector(), {"scores": rng.random((6, 5), dtype=np.float32)}


MODELS = {
    "float64_head": build_float64_head,
    "sparse_detector": build_sparse_detector,
}


def as_fixture(v):
    return v.astype(np.float32) if v.dtype == np.float64 else v


def converted_weights(dest, mj):
    """The weights as TF.js decodes them, widened back to the Const's dtype for the re-run in TF
    (the converter stores float64 as float32 and int64 as int32)."""
    weights = tfjs_graph.load_weights(dest, mj)
    wide = {"DT_DOUBLE": np.float64, "DT_INT64": np.int64}
    for n in mj["modelTopology"]["node"]:
        want = n.get("attr", {}).get("dtype", {}).get("type")
        if n["op"] == "Const" and n["name"] in weights and want in wide:
            weights[n["name"]] = weights[n["name"]].astype(wide[want])
    return weights


def main(argv):
    wanted = argv or list(MODELS)
    tmp = tempfile.mkdtemp(prefix="gen_published_gaps_")
    try:
        for name in wanted:
            obj, inputs = MODELS[name]()
            sdir = os.path.join(tmp, name + "_saved")
            gm.save(obj, sdir)
            outs, fn = gm.reference(sdir, inputs)
            cdir = os.path.join(tmp, name + "_tfjs")
            gm.convert(sdir, cdir)
            dest = os.path.join(gm.OUT, name)
            gm.install(cdir, dest)
            mj = json.load(open(os.path.join(dest, "model.json")))
            ref_in, ref_out = gm.map_keys(mj, fn, inputs, outs)
            ref_out = {k: as_fixture(v) for k, v in ref_out.items()}
            gm.write_reference(os.path.join(dest, "reference.json"), ref_in, ref_out)
            print("%s: %d nodes, ops: %s" % (name, len(mj["modelTopology"]["node"]),
                                             " ".join(gm.model_ops(mj))))
            got = tfjs_graph.run_model(dest, ref_in, converted_weights(dest, mj))
            gm.check_close(name, {k: as_fixture(v) for k, v in got.items()}, ref_out,
                           rtol=1e-4, atol=1e-5)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    gm.write_coverage()


if __name__ == "__main__":
    main(sys.argv[1:])
