#!/usr/bin/env python3
"""Generate the control-flow TF.js graph model fixtures under tests/fixtures/models/.

Run with the TensorFlow venv described in tools/README.md:

    /tmp/tfenv/bin/python tools/gen_control_flow_models.py [name ...]

Same pipeline as gen_models.py (whose helpers this imports): build with fixed
seeds, save a SavedModel, run its serving signature for reference.json,
convert with tensorflowjs_converter. Each model is converted twice: with the
converter's default (control flow v1: While/If lowered to
Switch/Merge/Enter/Exit/NextIteration/LoopCond) into <name>/, and with
--control_flow_v2=True (functional While/If with a function library) into
<name>_v2/. The v1 conversions are re-run from model.json in TF (with
tools/tfjs_graph.py) and must agree with the reference; v2 conversions hold
function bodies that script does not import, so they are checked against
the reference by the Rust tests only.
"""

import json
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_models as G  # noqa: E402  (sets TF env vars before importing TF)

np, tf, keras, L = G.np, G.tf, G.keras, G.L


def build_gru():
    G.seed(21)
    x = keras.Input((5, 6), name="x")
    h = L.GRU(8, unroll=False)(x)
    y = L.Dense(3, name="y")(h)
    m = G.randomize_biases(keras.Model(x, y), 998)
    rng = np.random.default_rng(121)
    return m, {"x": rng.normal(size=(2, 5, 6)).astype(np.float32)}


def build_lstm_loop():
    G.seed(22)
    x = keras.Input((4, 5), name="x")
    h = L.LSTM(6, unroll=False, return_sequences=True)(x)
    y = L.Dense(3, name="y")(h)
    m = G.randomize_biases(keras.Model(x, y), 997)
    rng = np.random.default_rng(122)
    return m, {"x": rng.normal(size=(2, 4, 5)).astype(np.float32)}


class Cond(tf.Module):
    """tf.cond on a data-dependent predicate, both branches with their own ops."""

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x")])
    def serve(self, x):
        s = tf.reduce_sum(x)
        y = tf.cond(s > 0.0, lambda: tf.nn.relu(x) * 2.0 + 1.0, lambda: tf.tanh(x) - x)
        return {"y": y}


def build_cond():
    rng = np.random.default_rng(123)
    return Cond(), {"x": (rng.normal(size=(2, 4)) + 0.5).astype(np.float32)}


def build_cond_false():
    rng = np.random.default_rng(124)
    return Cond(), {"x": (rng.normal(size=(2, 4)) - 1.0).astype(np.float32)}


class NestedLoop(tf.Module):
    """A loop in a loop, with a cond in the inner body."""

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32, name="x")])
    def serve(self, x):
        def outer_body(i, acc):
            def inner_body(j, a):
                a = tf.cond(tf.equal(j % 2, 0), lambda: a * 0.5 + x, lambda: a - x * 0.25)
                return j + 1, a
            _, acc = tf.while_loop(lambda j, a: j < i + 1, inner_body, (tf.constant(0), acc))
            return i + 1, acc + tf.cast(i, tf.float32)
        _, y = tf.while_loop(lambda i, a: i < 4, outer_body, (tf.constant(0), x))
        return {"y": y}


def build_nested_loop():
    rng = np.random.default_rng(125)
    return NestedLoop(), {"x": rng.normal(size=(3,)).astype(np.float32)}


class WhileTensorArray(tf.Module):
    """tf.while_loop that writes each step into a TensorArray, stacked at the end."""

    @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32, name="x")])
    def serve(self, x):
        ta = tf.TensorArray(tf.float32, size=5)

        def body(i, h, ta):
            h = tf.tanh(h * 1.5 + tf.cast(i, tf.float32) * 0.1)
            return i + 1, h, ta.write(i, h)
        _, h, ta = tf.while_loop(lambda i, h, ta: i < 5, body, (tf.constant(0), x, ta))
        return {"seq": ta.stack(), "last": h}


def build_while_tensorarray():
    rng = np.random.default_rng(126)
    return WhileTensorArray(), {"x": rng.normal(size=(2, 3)).astype(np.float32)}


class DynamicLoop(tf.Module):
    """A decode-style loop whose trip count comes from the data: it runs until the state's sum
    passes a threshold or `n` steps, appending each step to a dynamically sized TensorArray."""

    @tf.function(input_signature=[tf.TensorSpec([4], tf.float32, name="x"),
                                  tf.TensorSpec([], tf.int32, name="n")])
    def serve(self, x, n):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)

        def cond(i, h, ta):
            return tf.logical_and(i < n, tf.reduce_sum(h) < 10.0)

        def body(i, h, ta):
            h = h * 1.3 + 0.2
            return i + 1, h, ta.write(i, h)
        i, h, ta = tf.while_loop(cond, body, (tf.constant(0), x, ta))
        return {"steps": i, "out": ta.concat()}


def build_dynamic_loop():
    rng = np.random.default_rng(127)
    return DynamicLoop(), {"x": rng.uniform(0.0, 1.0, size=(4,)).astype(np.float32),
                           "n": np.array(20, dtype=np.int32)}


class MapFn(tf.Module):
    """tf.map_fn over the batch: a per-item matmul + softmax."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(428)
        self.w = tf.Variable(rng.normal(size=(4, 3)).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([None, 2, 4], tf.float32, name="x")])
    def serve(self, x):
        y = tf.map_fn(lambda v: tf.nn.softmax(tf.matmul(v, self.w)), x)
        return {"y": y}


def build_map_fn():
    rng = np.random.default_rng(128)
    return MapFn(), {"x": rng.normal(size=(3, 2, 4)).astype(np.float32)}


class MapFnNms(tf.Module):
    """tf.map_fn over a batch of box sets: per item, non-max suppression (a data-dependent number
    of boxes kept), their scores gathered and padded back to a fixed length, as SSD-style
    detectors post-process."""

    @tf.function(input_signature=[
        tf.TensorSpec([None, 6, 4], tf.float32, name="boxes"),
        tf.TensorSpec([None, 6], tf.float32, name="scores"),
    ])
    def serve(self, boxes, scores):
        def per_item(args):
            b, s = args
            keep = tf.image.non_max_suppression(b, s, max_output_size=4, iou_threshold=0.5,
                                                score_threshold=0.2)
            kept = tf.gather(s, keep)
            return tf.pad(kept, [[0, 4 - tf.shape(kept)[0]]])

        y = tf.map_fn(per_item, (boxes, scores), fn_output_signature=tf.TensorSpec([4], tf.float32))
        return {"y": y}


def build_map_fn_nms():
    rng = np.random.default_rng(129)
    corners = rng.uniform(0, 1, size=(3, 6, 2)).astype(np.float32)
    sizes = rng.uniform(0.2, 0.5, size=(3, 6, 2)).astype(np.float32)
    boxes = np.concatenate([corners, corners + sizes], axis=-1)
    boxes[:, 1] = boxes[:, 0] + 0.02  # near-duplicates, so suppression has work to do
    scores = rng.uniform(0, 1, size=(3, 6)).astype(np.float32)
    return MapFnNms(), {"boxes": boxes, "scores": scores}


class Tf1TensorArray:
    """A TF 1.x graph (control flow v1, TensorArray v3): a while_loop writing a TensorArray, then
    stack, gather, read, size, and a second array filled by split and read back by concat."""

    def __init__(self):
        self.inputs = {"x": np.random.default_rng(129).normal(size=(2, 3)).astype(np.float32)}

    def save(self, path):
        tf.compat.v1.disable_control_flow_v2()
        try:
            g = tf.Graph()
            with g.as_default():
                x = tf.compat.v1.placeholder(tf.float32, [2, 3], name="x")
                ta = tf.TensorArray(tf.float32, size=4, clear_after_read=False)

                def body(i, h, ta):
                    h = tf.tanh(h * 1.2 + tf.cast(i, tf.float32) * 0.1)
                    return i + 1, h, ta.write(i, h)
                _, h, ta = tf.compat.v1.while_loop(lambda i, h, ta: i < 4, body,
                                                   (tf.constant(0), x, ta))
                seq = ta.stack()
                picked = ta.gather([3, 0]) + ta.read(1) * tf.cast(ta.size(), tf.float32)
                parts = tf.TensorArray(tf.float32, size=2, infer_shape=False)
                parts = parts.split(tf.reshape(seq, [8, 3]), [3, 5])
                joined = parts.concat()
                with tf.compat.v1.Session(graph=g) as sess:
                    b = tf.compat.v1.saved_model.Builder(path)
                    sig = tf.compat.v1.saved_model.predict_signature_def(
                        {"x": x}, {"seq": seq, "picked": picked, "joined": joined * 2.0})
                    b.add_meta_graph_and_variables(sess, ["serve"],
                                                   signature_def_map={"serving_default": sig})
                    b.save()
        finally:
            tf.compat.v1.enable_control_flow_v2()


def build_tf1_tensorarray():
    m = Tf1TensorArray()
    return m, m.inputs


class RaggedCond(tf.Module):
    """Ragged ops inside tf.cond branches: the v2 conversion keeps them in function bodies, which
    read RaggedRange's and RaggedGather's values by output arg name (node:output_dense_values:0)."""

    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32, name="n"),
                                  tf.TensorSpec([None], tf.int32, name="idx")])
    def serve(self, n, idx):
        def ragged():
            r = tf.gather(tf.ragged.range(n), idx)
            return r.to_tensor(default_value=-1, shape=[None, 4]) + tf.size(r.flat_values)

        y = tf.cond(tf.reduce_sum(n) > 0, ragged, lambda: tf.zeros([tf.size(idx), 4], tf.int32))
        return {"y": y}


def build_ragged_cond():
    return RaggedCond(), {"n": np.array([3, 0, 5, 2], np.int32), "idx": np.array([2, 0, 3, 2], np.int32)}


MODELS = {
    "gru": build_gru,
    "lstm_loop": build_lstm_loop,
    "cond": build_cond,
    "cond_false": build_cond_false,
    "nested_loop": build_nested_loop,
    "while_tensorarray": build_while_tensorarray,
    "dynamic_loop": build_dynamic_loop,
    "map_fn": build_map_fn,
    "map_fn_nms": build_map_fn_nms,
    "tf1_tensorarray": build_tf1_tensorarray,
    "ragged_cond": build_ragged_cond,
}
# TF 1.x graphs have no v2 form to convert to.
V1_ONLY = {"tf1_tensorarray"}

CF_OPS = ("Enter", "Exit", "Merge", "Switch", "NextIteration", "LoopCond")


def main(argv):
    wanted = argv or list(MODELS)
    tmp = tempfile.mkdtemp(prefix="gen_cf_")
    try:
        for name in wanted:
            obj, inputs = MODELS[name]()
            sdir = os.path.join(tmp, name + "_saved")
            if isinstance(obj, Tf1TensorArray):
                obj.save(sdir)
            else:
                G.save(obj, sdir)
            outs, fn = G.reference(sdir, inputs)
            forms = (("", []), ("_v2", ["--control_flow_v2=True"]))
            for suffix, extra in forms[:1] if name in V1_ONLY else forms:
                full = name + suffix
                cdir = os.path.join(tmp, full + "_tfjs")
                G.convert(sdir, cdir, extra)
                dest = os.path.join(G.OUT, full)
                G.install(cdir, dest)
                mj = json.load(open(os.path.join(dest, "model.json")))
                ref_in, ref_out = G.map_keys(mj, fn, inputs, outs)
                G.write_reference(os.path.join(dest, "reference.json"), ref_in, ref_out)
                ops = G.model_ops(mj)
                print("%s: %d nodes, ops: %s" % (full, len(mj["modelTopology"]["node"]),
                                                 " ".join(ops)))
                has_lib = bool(mj["modelTopology"].get("library", {}).get("function"))
                if suffix:
                    assert has_lib or not any(o in CF_OPS for o in ops), full
                else:
                    assert not has_lib, full
                    got = run_v1(dest, ref_in)
                    G.check_close(full, got, ref_out, rtol=1e-4, atol=1e-5)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    G.write_coverage()


def run_v1(dest, ref_in):
    return G.tfjs_graph.run_model(dest, ref_in)


if __name__ == "__main__":
    main(sys.argv[1:])
