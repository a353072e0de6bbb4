#!/usr/bin/env python3
"""Generate tests/fixtures/models/unfused_chains/ and swish_chains/: models the TF.js converter leaves with
contraction -> bias -> activation chains and Pad -> VALID conv pairs unfused, the patterns the
loader's fusion pass (src/model/fuse.rs) folds. Same pipeline as gen_models.py (whose helpers this
imports); the script asserts the converter really left each pattern unfused.

    /tmp/tfenv/bin/python tools/gen_fusion_models.py [unfused_chains] [swish_chains]
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


class Chains(tf.Module):
    """Each output is one pattern; `shared` keeps a conv output that a second op also reads."""

    def __init__(self):
        rng = np.random.default_rng(131)
        w = lambda *s: tf.constant(rng.normal(0, 0.3, s).astype(np.float32))  # noqa: E731
        self.dw3, self.b8 = w(3, 3, 8, 1), w(1, 1, 1, 8)
        self.k3, self.b6 = w(3, 3, 8, 6), w(6)
        self.k4, self.b4 = w(3, 3, 8, 4), w(1, 1, 1, 4)
        self.kp, self.bp = w(3, 3, 8, 4), w(4)
        self.dw5, self.b16 = w(5, 5, 8, 2), w(1, 1, 1, 16)
        self.dwp, self.b8p = w(3, 3, 8, 1), w(1, 1, 1, 8)
        self.k2, self.b5 = w(2, 2, 8, 5), w(1, 1, 1, 5)
        self.m, self.bm = w(8, 3), w(3)
        self.ks, self.bs = w(1, 1, 8, 3), w(3)
        self.alpha = w(6)
        self.k7 = w(3, 3, 8, 6)
        self.prelu = G.L.PReLU(shared_axes=[1, 2])
        self.prelu.build((None, 9, 9, 6))
        self.prelu.alpha.assign(rng.normal(0, 0.3, (1, 1, 6)).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([1, 9, 9, 8], tf.float32, name="x")])
    def serve(self, x):
        dw = lambda t, k, s, p: tf.nn.depthwise_conv2d(t, k, [1, s, s, 1], p)  # noqa: E731
        conv = lambda t, k, s, p: tf.nn.conv2d(t, k, s, p)  # noqa: E731
        xp = tf.pad(x, [[0, 0], [1, 2], [0, 1], [0, 0]])
        shared = tf.nn.bias_add(conv(x, self.ks, 1, "VALID"), self.bs)
        y7 = tf.nn.bias_add(conv(x, self.k7, 1, "SAME"), self.b6)
        return {
            "dw_add_relu": tf.nn.relu(self.b8 + dw(x, self.dw3, 1, "SAME")),
            "conv_bias_sigmoid": tf.sigmoid(tf.nn.bias_add(conv(x, self.k3, 1, "SAME"), self.b6)),
            "conv_add_sigmoid": tf.sigmoid(self.b4 + conv(x, self.k4, 1, "SAME")),
            "dw5_add_elu": tf.nn.elu(self.b16 + dw(x, self.dw5, 1, "SAME")),
            "pad_dw_s2_relu6": tf.nn.relu6(self.b8p + dw(xp, self.dwp, 2, "VALID")),
            "pad_conv_s2": tf.nn.relu(conv(xp, self.kp, 2, "VALID") + self.bp),
            "conv2x2_s2_tanh": tf.tanh(self.b5 + conv(x, self.k2, 2, "VALID")),
            "matmul_bias_tanh": tf.tanh(tf.matmul(tf.reduce_mean(x, [1, 2]), self.m) + self.bm),
            "conv_bias_prelu": self.prelu(y7),
            "shared_relu": tf.nn.relu(shared),
            "shared_raw": shared * 2.0,
        }


def build_swish():
    """Keras swish (`x * sigmoid(x)`, as EfficientNet's activations) after a conv, a depthwise and
    a dense layer, each with batch norm or bias; MobileNetV3's hard swish; and three swishes
    that must not fold: on a conv output a second op also reads, on a non-contraction, and a
    sigmoid gate of a different tensor (squeeze-excite)."""
    G.seed(41)
    x = keras.Input((10, 10, 8), name="x")
    swish = lambda: L.Activation("swish")  # noqa: E731
    bn = lambda h: L.BatchNormalization()(h)  # noqa: E731
    a = swish()(bn(L.Conv2D(8, 3, padding="same", use_bias=False)(x)))
    b = swish()(bn(L.DepthwiseConv2D(5, strides=2, padding="same", use_bias=False)(a)))
    d = swish()(bn(L.DepthwiseConv2D(3, padding="same", use_bias=False)(x)))
    e = L.Dense(6, activation="swish")(L.GlobalAveragePooling2D()(b))
    h = L.Conv2D(12, 1)(x)
    hard = L.Multiply()([h, L.ReLU(6.0)(h + 3.0) * (1.0 / 6.0)])
    s = L.Conv2D(4, 1)(x)
    shared = L.Activation("swish")(s)
    shared_raw = L.Lambda(lambda t: t * 2.0)(s)
    not_contraction = swish()(L.Lambda(lambda t: t + 1.0)(x))
    gate = L.Multiply()([d, L.Conv2D(8, 1, activation="sigmoid")(d)])
    outs = {
        "conv_bn_swish_dw5s2_bn_swish": b,
        "dense_swish": e,
        "hard_swish": hard,
        "shared_swish": shared,
        "shared_raw": shared_raw,
        "add_swish": not_contraction,
        "se_gate": gate,
    }
    m = keras.Model(x, [L.Identity(name=k)(v) for k, v in outs.items()])
    G.randomize_biases(m, 141)
    G._randomize_bn(m, np.random.default_rng(142))
    return m, {"x": np.random.default_rng(143).normal(size=(1, 10, 10, 8)).astype(np.float32)}


def generate(name, obj, inputs, tmp):
    sdir = os.path.join(tmp, name + "_saved")
    G.save(obj, sdir)
    outs, fn = G.reference(sdir, inputs)
    cdir = os.path.join(tmp, name + "_tfjs")
    G.convert(sdir, cdir)
    dest = os.path.join(G.OUT, name)
    G.install(cdir, dest)
    mj = json.load(open(os.path.join(dest, "model.json")))
    ref_in, ref_out = G.map_keys(mj, fn, inputs, outs)
    G.write_reference(os.path.join(dest, "reference.json"), ref_in, ref_out)
    nodes = mj["modelTopology"]["node"]
    print("%s: %d nodes" % (name, len(nodes)))
    for n in nodes:
        print("  %s %s <- %s" % (n["op"], n["name"], n.get("input", [])))
    got = G.tfjs_graph.run_model(dest, ref_in)
    G.check_close(name, got, ref_out, rtol=1e-4, atol=1e-5)


def main(argv):
    tmp = tempfile.mkdtemp(prefix="gen_fusion_")
    try:
        if not argv or "unfused_chains" in argv:
            rng = np.random.default_rng(132)
            inputs = {"x": rng.normal(size=(1, 9, 9, 8)).astype(np.float32)}
            generate("unfused_chains", Chains(), inputs, tmp)
        if not argv or "swish_chains" in argv:
            generate("swish_chains", *build_swish(), tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    G.write_coverage()


if __name__ == "__main__":
    main(sys.argv[1:])
