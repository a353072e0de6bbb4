#!/usr/bin/env python3
"""Generate the TF.js graph model fixtures under tests/fixtures/models/.

Run with the TensorFlow venv described in tools/README.md:

    /tmp/tfenv/bin/python tools/gen_models.py [name ...]

For every model: build it (tf_keras or tf.Module) with fixed seeds, save a
SavedModel to a temp dir, run its serving signature on a seeded random input
(reference.json), convert it with tensorflowjs_converter
(--input_format=tf_saved_model --output_format=tfjs_graph_model), copy
model.json + shards to tests/fixtures/models/<name>/, and re-run the converted
graph in TF (tools/tfjs_graph.py) to check it agrees with the reference.
Quantized variants also get reference_dequantized.json: the converted graph's
outputs with weights dequantized exactly as TF.js does.
Finally tests/fixtures/models/ops_coverage.txt lists each model's ops.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.dont_write_bytecode = True  # no __pycache__ in tools/

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tf_keras as keras  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_io  # noqa: E402
import tfjs_graph  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "fixtures", "models")
L = keras.layers


def seed(s):
    keras.utils.set_random_seed(s)


# --------------------------------------------------------------------------
# Models.  Each builder returns (saveable, {signature input key: np array}).
# A saveable is a tf_keras Model or a tf.Module with a `serve` tf.function.
# --------------------------------------------------------------------------


def randomize_biases(model, seed_):
    """Keras biases start at zero and grappler drops `+ 0`; make them non-zero."""
    rng = np.random.default_rng(seed_)
    for layer in model.layers:
        b = getattr(layer, "bias", None)
        if b is not None:
            b.assign(rng.normal(0, 0.1, b.shape).astype(np.float32))
    return model


def build_mlp():
    seed(1)
    x = keras.Input((784,), name="x")
    h = L.Dense(128, activation="relu")(x)
    h = L.Dense(64, activation="relu")(h)
    y = L.Dense(10, activation="softmax", name="y")(h)
    m = randomize_biases(keras.Model(x, y), 999)
    rng = np.random.default_rng(101)
    return m, {"x": rng.random((2, 784), dtype=np.float32)}


def build_cnn():
    seed(2)
    x = keras.Input((28, 28, 1), name="x")
    h = L.Conv2D(8, 3, activation="relu")(x)
    h = L.MaxPooling2D(2)(h)
    h = L.Conv2D(16, 3, padding="same", activation="relu")(h)
    h = L.AveragePooling2D(2)(h)
    h = L.Flatten()(h)
    y = L.Dense(10, name="y")(h)
    m = randomize_biases(keras.Model(x, y), 999)
    rng = np.random.default_rng(102)
    return m, {"x": rng.random((2, 28, 28, 1), dtype=np.float32)}


def _randomize_bn(model, rng):
    for layer in model.layers:
        if isinstance(layer, L.BatchNormalization):
            c = layer.gamma.shape[0]
            layer.set_weights([
                rng.uniform(0.5, 1.5, c).astype(np.float32),   # gamma
                rng.normal(0, 0.2, c).astype(np.float32),      # beta
                rng.normal(0, 0.3, c).astype(np.float32),      # moving_mean
                rng.uniform(0.5, 2.0, c).astype(np.float32),   # moving_variance
            ])


def build_mobilenet():
    seed(3)
    relu6 = lambda: L.ReLU(6.0)  # noqa: E731

    def block(h, expand, out, stride=1, padding="same", residual=False, name=""):
        inp = h
        h = L.Conv2D(expand, 1, use_bias=False, name=name + "_expand")(h)
        h = L.BatchNormalization(epsilon=1e-3, name=name + "_expand_bn")(h)
        h = relu6()(h)
        h = L.DepthwiseConv2D(3, strides=stride, padding=padding, use_bias=False,
                              name=name + "_dw")(h)
        h = L.BatchNormalization(epsilon=1e-3, name=name + "_dw_bn")(h)
        h = relu6()(h)
        h = L.Conv2D(out, 1, use_bias=False, name=name + "_project")(h)
        h = L.BatchNormalization(epsilon=1e-3, name=name + "_project_bn")(h)
        if residual:
            h = L.Add(name=name + "_add")([inp, h])
        return h

    x = keras.Input((32, 32, 3), name="x")
    h = L.Conv2D(16, 3, strides=2, padding="same", use_bias=False, name="stem")(x)
    h = L.BatchNormalization(epsilon=1e-3, name="stem_bn")(h)
    h = relu6()(h)                                                    # 16x16x16
    h = block(h, 48, 16, residual=True, name="b1")                    # 16x16x16
    h = block(h, 64, 24, stride=2, name="b2")                         # 8x8x24
    h = block(h, 72, 24, residual=True, name="b3")                    # 8x8x24
    h = block(h, 72, 32, padding="valid", name="b4")                  # 6x6x32
    h = L.Conv2D(64, 1, use_bias=False, name="head")(h)
    h = L.BatchNormalization(epsilon=1e-3, name="head_bn")(h)
    h = relu6()(h)
    h = L.GlobalAveragePooling2D()(h)
    y = L.Dense(10, activation="softmax", name="y")(h)
    m = randomize_biases(keras.Model(x, y), 999)
    _randomize_bn(m, np.random.default_rng(303))
    rng = np.random.default_rng(103)
    return m, {"x": rng.normal(size=(1, 32, 32, 3)).astype(np.float32)}


def flat(v):
    """[N, ...] -> [N, prod(...)], keeping a static second dim."""
    return tf.reshape(v, [-1, int(np.prod(v.shape[1:]))])


class TensorOps(tf.Module):
    """Layout / indexing ops."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(404)
        self.w = tf.Variable(rng.normal(size=(2, 5, 7)).astype(np.float32))

    @tf.function(input_signature=[
        tf.TensorSpec([None, 4, 6, 8], tf.float32, name="x"),
        tf.TensorSpec([None, 3, 5], tf.float32, name="m"),
    ])
    def serve(self, x, m):
        out = {}
        r = tf.reshape(x, [-1, 4, 48])                               # Reshape
        t = tf.transpose(x, [0, 3, 1, 2])                            # Transpose [N,8,4,6]
        c = tf.concat([x, x * -1.5], axis=-1)                        # ConcatV2 [N,4,6,16]
        s1 = c[:, ::-1, 1:-1:2, -3:]                                 # StridedSlice neg stride
        s2 = x[:, 1, tf.newaxis, -3:, ::3]                           # shrink + new axis + step
        s3 = x[..., -1]                                              # ellipsis + shrink
        parts = tf.split(c, 4, axis=3)                               # Split
        p2 = tf.split(c, [3, 5, -1], axis=-1)                        # SplitV
        st = tf.stack([parts[0], parts[3]], axis=1)                  # Pack [N,2,4,6,4]
        un = tf.unstack(t, axis=1)                                   # Unpack 8 x [N,4,6]
        sq = tf.squeeze(s2, axis=1)                                  # Squeeze [N,3,3]
        ed = tf.expand_dims(s3, -2)                                  # ExpandDims [N,4,1,6]
        out["layout"] = tf.concat([flat(v) for v in (
            r, t, s1, s2, s3, st, p2[1], p2[2], un[2] - un[5], sq, ed)], axis=1)
        # batched matmul, adjoint flags, broadcast of batch dims
        mm1 = tf.linalg.matmul(m, m, adjoint_b=True)                 # [N,3,3]
        mm2 = tf.linalg.matmul(m, m, adjoint_a=True)                 # [N,5,5]
        mm3 = tf.linalg.matmul(m, tf.transpose(self.w[:1], [0, 1, 2]))  # [N,3,7] bcast
        out["matmul"] = tf.concat([flat(mm1), flat(mm2), flat(mm3)], axis=1)
        # pads, tile, gather, resize, cast
        pc = tf.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]])                       # Pad
        pv = tf.pad(x, [[0, 0], [1, 0], [0, 1], [0, 0]], constant_values=1.5)  # PadV2
        pr = tf.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]], mode="REFLECT")       # MirrorPad
        ps = tf.pad(x, [[0, 0], [2, 1], [0, 2], [0, 0]], mode="SYMMETRIC")     # MirrorPad
        tl = tf.tile(s3, [1, 2, 3])                                            # Tile
        g1 = tf.gather(x, [5, 0, 2, 2], axis=2)                                # GatherV2
        g2 = tf.gather(x, [[1, 0], [3, 3]], axis=-1)
        rz = tf.image.resize(x, [7, 11], method="bilinear")                    # half_pixel
        rz2 = tf.compat.v1.image.resize_bilinear(x, [9, 5], align_corners=True)
        ci = tf.cast(tf.cast(x * 3.0, tf.int32), tf.float32)                   # Cast f->i->f
        cb = tf.cast(x > 0.5, tf.float32)                                      # Cast b->f
        out["pad_tile_gather"] = tf.concat([
            flat(v) for v in (pc, pv, pr, ps, tl, g1, g2, rz, rz2, ci, cb)], axis=1)
        return out


class TensorOps2(tf.Module):
    """Math, reductions, layer norm, select, activations."""

    def __init__(self):
        super().__init__()
        self.ln = L.LayerNormalization(axis=-1, epsilon=1e-6)
        self.ln.build([None, 5, 12])
        rng = np.random.default_rng(405)
        self.ln.set_weights([rng.uniform(0.5, 1.5, 12).astype(np.float32),
                             rng.normal(0, 0.2, 12).astype(np.float32)])

    @tf.function(input_signature=[
        tf.TensorSpec([None, 5, 12], tf.float32, name="x"),
        tf.TensorSpec([None, 1, 12], tf.float32, name="y"),
    ])
    def serve(self, x, y):
        out = {}
        red = [
            tf.reduce_mean(x, axis=-1),
            tf.reduce_sum(x, axis=[1, -1], keepdims=True),
            tf.reduce_max(x, axis=-2, keepdims=True),
            tf.reduce_min(x, axis=1),
            tf.reduce_prod(x[:, :, :4] * 0.5 + 1.0, axis=-1),
            tf.reduce_mean(x, axis=[-2, -1], keepdims=True),
        ]
        out["reductions"] = tf.concat([flat(v) for v in red], 1)
        out["argmax"] = tf.argmax(x, axis=-1, output_type=tf.int32)          # [N,5] int32
        # layer norm: keras layer and a hand-written one
        mean = tf.reduce_mean(x, axis=-1, keepdims=True)
        var = tf.reduce_mean(tf.math.squared_difference(x, mean), axis=-1, keepdims=True)
        ln2 = (x - mean) * tf.math.rsqrt(var + 1e-5)
        out["layer_norm"] = tf.concat([self.ln(x), ln2], axis=-1)          # [N,5,24]
        # elementwise math with broadcasting between x [N,5,12] and y [N,1,12]
        a = tf.abs(x) + 0.5
        el = [
            tf.pow(a, y),                                    # Pow
            tf.math.rsqrt(a),                                # Rsqrt
            tf.sqrt(a),                                      # Sqrt
            tf.exp(x * 0.5),                                 # Exp
            tf.math.log(a),                                  # Log
            tf.math.squared_difference(x, y),                # SquaredDifference
            tf.where(x > y, x, y * 2.0),                     # SelectV2 + Greater
            tf.compat.v1.where(x < 0.0, x * x, -x),          # Select + Less
            tf.where(tf.greater_equal(x, 0.1), 1.0, 0.0),
            tf.maximum(x, y) - tf.minimum(x, y),
            x / (tf.abs(y) + 1.0),                           # RealDiv
            tf.nn.softplus(x),
            tf.nn.selu(x),
            tf.nn.log_softmax(x, axis=-1),
            tf.nn.softmax(x, axis=-1),
            tf.nn.elu(x), tf.nn.leaky_relu(x, 0.3), tf.nn.relu6(x * 4.0),
            tf.sigmoid(x), tf.tanh(x), tf.square(x), tf.negative(y) + x,
        ]
        out["elementwise"] = tf.concat(el, axis=-1)                       # [N,5,12*k]
        return out


def build_tensor_ops():
    rng = np.random.default_rng(104)
    return TensorOps(), {
        "x": rng.normal(size=(2, 4, 6, 8)).astype(np.float32),
        "m": rng.normal(size=(2, 3, 5)).astype(np.float32),
    }


def build_tensor_ops2():
    rng = np.random.default_rng(105)
    return TensorOps2(), {
        "x": rng.normal(size=(2, 5, 12)).astype(np.float32),
        "y": rng.normal(size=(2, 1, 12)).astype(np.float32),
    }


def build_activations():
    seed(6)
    x = keras.Input((16,), name="x")
    h = L.Dense(24)(x)
    prelu = L.PReLU()
    h = prelu(h)
    h = L.Dense(24)(h)
    h = L.LeakyReLU(alpha=0.2)(h)
    h = L.Dense(24, activation="elu")(h)
    h = L.Dense(24, activation="tanh")(h)
    h = L.Dense(24, activation="sigmoid")(h)
    h = L.Dense(24)(h)
    h = L.ReLU(6.0)(h)
    h = L.Dense(24, activation="selu")(h)
    y = L.Dense(8, name="y")(h)
    m = randomize_biases(keras.Model(x, y), 999)
    rng = np.random.default_rng(606)
    prelu.set_weights([rng.uniform(0.05, 0.5, (24,)).astype(np.float32)])
    rng = np.random.default_rng(106)
    return m, {"x": (rng.normal(size=(2, 16)) * 2.0).astype(np.float32)}


def build_lstm():
    seed(7)
    x = keras.Input((5, 8), name="x")
    h = L.LSTM(16, unroll=True)(x)
    y = L.Dense(4, name="y")(h)
    m = randomize_biases(keras.Model(x, y), 999)
    rng = np.random.default_rng(107)
    return m, {"x": rng.normal(size=(2, 5, 8)).astype(np.float32)}


def build_layer_norm_keras():
    """Keras LayerNormalization with its default epsilon (1e-3) takes tf_keras's
    "fused" path: Reshape to NCHW [1, N*rows, C, 1] + FusedBatchNormV3 with
    is_training=true (empty mean/variance, scale/offset from Fill), then Mul/AddV2."""
    seed(9)
    x = keras.Input((5, 12), name="x")
    ln = L.LayerNormalization(name="ln")
    y = L.Activation("linear", name="y")(ln(x))
    m = keras.Model(x, y)
    rng = np.random.default_rng(909)
    ln.set_weights([rng.uniform(0.5, 1.5, 12).astype(np.float32),
                    rng.normal(0, 0.2, 12).astype(np.float32)])
    rng = np.random.default_rng(109)
    return m, {"x": (rng.normal(size=(2, 5, 12)) * 2 + 0.5).astype(np.float32)}


class RawConv(L.Layer):
    """tf.nn.conv2d with explicit padding / dilations (Keras would use
    SpaceToBatchND for dilations), + bias + activation."""

    def __init__(self, filters, padding, dilations=1, activation=None, **kw):
        super().__init__(**kw)
        self.filters, self.pad, self.dil, self.act = filters, padding, dilations, activation

    def build(self, shape):
        self.kernel = self.add_weight("kernel", (3, 3, int(shape[-1]), self.filters))
        self.bias = self.add_weight("bias", (self.filters,))

    def call(self, x):
        y = tf.nn.conv2d(x, self.kernel, strides=1, padding=self.pad,
                         dilations=self.dil) + self.bias
        return self.act(y) if self.act else y


class ExplicitPadDepthwise(L.Layer):
    def build(self, shape):
        self.kernel = self.add_weight("kernel", (3, 3, int(shape[-1]), 1))

    def call(self, x):
        return tf.raw_ops.DepthwiseConv2dNative(
            input=x, filter=self.kernel, strides=[1, 2, 2, 1], padding="EXPLICIT",
            explicit_paddings=[0, 0, 1, 1, 0, 2, 0, 0])


def build_conv_variants():
    seed(8)
    x = keras.Input((16, 16, 3), name="x")
    outs = [
        L.Conv2D(4, 3, strides=2, padding="same", name="s2_same")(x),                   # 8x8x4
        L.Conv2D(5, 3, dilation_rate=2, padding="valid", activation="relu",
                 name="d2_valid_relu")(x),                                                # 12x12x5
        L.Conv2D(6, 3, strides=2, padding="valid", use_bias=False, name="s2_valid")(x),  # 7x7x6
        L.Conv2D(7, 3, padding="same", activation="elu", name="same_elu")(x),            # 16x16x7
        L.LeakyReLU(alpha=0.2, name="leaky")(L.Conv2D(3, 2, strides=(1, 2), padding="same",
                                                      name="rect_stride")(x)),           # 16x8x3
        L.DepthwiseConv2D(3, depth_multiplier=2, padding="same", name="dw_mult2")(x),    # 16x16x6
        L.ReLU(6.0, name="dw_relu6")(L.DepthwiseConv2D(3, strides=2, padding="valid",
                                                       name="dw_s2_valid")(x)),          # 7x7x3
        RawConv(4, [[0, 0], [1, 2], [2, 1], [0, 0]], name="explicit_pad")(x),            # 17x17x4
        RawConv(3, "SAME", dilations=2, activation=tf.nn.relu, name="raw_d2_same")(x),   # 16x16x3
        ExplicitPadDepthwise(name="explicit_pad_dw")(x),                                  # 9x9x3
        L.Conv2D(2, 1, dilation_rate=1, padding="same", name="conv1x1")(x),              # 16x16x2
    ]
    m = randomize_biases(keras.Model(x, outs), 999)
    rng = np.random.default_rng(108)
    return m, {"x": rng.normal(size=(2, 16, 16, 3)).astype(np.float32)}


# ---- models for op coverage (issue 16) ------------------------------------


def build_unet_transpose():
    """U-Net style segmenter: encoder convs + pool, a Conv2DTranspose decoder
    (Conv2DBackpropInput) concatenated with the skip connection."""
    seed(10)
    x = keras.Input((16, 16, 3), name="x")
    e1 = L.Conv2D(8, 3, padding="same", activation="relu")(x)            # 16x16x8
    p1 = L.MaxPooling2D(2)(e1)                                            # 8x8x8
    e2 = L.Conv2D(16, 3, padding="same", activation="relu")(p1)           # 8x8x16
    p2 = L.MaxPooling2D(2)(e2)                                            # 4x4x16
    b = L.Conv2D(16, 3, padding="same", activation="relu")(p2)            # 4x4x16
    u2 = L.Conv2DTranspose(16, 3, strides=2, padding="same")(b)           # 8x8x16
    d2 = L.Conv2D(16, 3, padding="same", activation="relu")(L.Concatenate()([u2, e2]))
    u1 = L.Conv2DTranspose(8, 2, strides=2, padding="valid", activation="relu")(d2)  # 16x16x8
    d1 = L.Conv2D(8, 3, padding="same", activation="relu")(L.Concatenate()([u1, e1]))
    y = L.Conv2D(3, 1, activation="softmax", name="y")(d1)
    m = randomize_biases(keras.Model(x, y), 999)
    rng = np.random.default_rng(110)
    return m, {"x": rng.normal(size=(2, 16, 16, 3)).astype(np.float32)}


class KeypointDecoder(tf.Module):
    """Heatmap peaks (ArgMax), their scores (GatherNd) and the best keypoints (TopKV2)."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(411)
        self.w = tf.Variable(rng.normal(size=(1, 1, 6, 5)).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([None, 8, 8, 6], tf.float32, name="x")])
    def serve(self, x):
        heat = tf.nn.conv2d(x, self.w, 1, "SAME")                          # [N,8,8,5]
        n = tf.shape(heat)[0]
        flat_heat = tf.reshape(heat, [n, 64, 5])
        idx = tf.argmax(flat_heat, axis=1, output_type=tf.int32)            # [N,5]
        ys, xs = idx // 8, idx % 8
        b = tf.broadcast_to(tf.range(n)[:, None], tf.shape(idx))
        k = tf.broadcast_to(tf.range(5)[None, :], tf.shape(idx))
        coords = tf.stack([b, ys, xs, k], axis=-1)                          # [N,5,4]
        scores = tf.gather_nd(heat, coords)                                 # [N,5]
        top = tf.math.top_k(scores, k=3)
        return {"coords": tf.stack([ys, xs], -1), "scores": scores,
                "top_values": top.values, "top_indices": top.indices}


class DetectorHead(tf.Module):
    """Box regression on anchors, soft-NMS (NonMaxSuppressionV5), GatherV2 of kept boxes, Where."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(412)
        self.wb = tf.Variable(rng.normal(0, 0.1, (8, 4)).astype(np.float32))
        self.ws = tf.Variable(rng.normal(0, 1.0, (8, 1)).astype(np.float32))
        cy, cx = np.meshgrid(np.linspace(0.1, 0.9, 5), np.linspace(0.1, 0.9, 4), indexing="ij")
        c = np.stack([cy.ravel(), cx.ravel()], -1)
        self.anchors = tf.constant(np.concatenate([c - 0.15, c + 0.15], -1).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([20, 8], tf.float32, name="x")])
    def serve(self, x):
        boxes = self.anchors + tf.matmul(x, self.wb)                        # [20,4]
        scores = tf.sigmoid(tf.matmul(x, self.ws))[:, 0]                    # [20]
        sel, sel_scores = tf.image.non_max_suppression_with_scores(
            boxes, scores, max_output_size=8, iou_threshold=0.5, score_threshold=0.2,
            soft_nms_sigma=0.5)
        kept = tf.gather(boxes, sel)
        confident = tf.where(scores > 0.5)                                  # [k,1] int64
        return {"selected": sel, "selected_scores": sel_scores, "kept_boxes": kept,
                "confident": confident}


def build_keypoint_decoder():
    rng = np.random.default_rng(111)
    return KeypointDecoder(), {"x": rng.normal(size=(2, 8, 8, 6)).astype(np.float32)}


def build_detector_head():
    rng = np.random.default_rng(112)
    return DetectorHead(), {"x": rng.normal(size=(20, 8)).astype(np.float32)}


def build_upsample_d2s():
    """Super-resolution style head: conv to 4x channels, DepthToSpace, conv."""
    seed(13)
    x = keras.Input((8, 8, 3), name="x")
    h = L.Conv2D(12, 3, padding="same", activation="relu")(x)
    h = L.Lambda(lambda t: tf.nn.depth_to_space(t, 2))(h)                 # 16x16x3
    y = L.Conv2D(3, 3, padding="same", name="y")(h)                       # (SpaceToDepth: not
    #                                                 in the TF.js converter's op list)
    m = randomize_biases(keras.Model(x, y), 999)
    rng = np.random.default_rng(113)
    return m, {"x": rng.normal(size=(2, 8, 8, 3)).astype(np.float32)}


class Uint8Image(tf.Module):
    """Fed uint8 pixels: Cast, scale, nearest and bilinear resize, a conv and a dense head."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(414)
        self.k = tf.Variable(rng.normal(0, 0.3, (3, 3, 3, 4)).astype(np.float32))
        self.d = tf.Variable(rng.normal(0, 0.3, (8, 3)).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([None, 12, 10, 3], tf.uint8, name="x")])
    def serve(self, x):
        small = tf.compat.v1.image.resize_nearest_neighbor(x, [6, 5], half_pixel_centers=True)
        f = tf.cast(x, tf.float32) / 255.0
        f = tf.image.resize(f, [8, 8])
        h = tf.nn.relu(tf.nn.conv2d(f, self.k, 1, "SAME"))
        pooled = tf.concat([tf.reduce_mean(h, [1, 2]), tf.reduce_max(h, [1, 2])], -1)
        return {"y": tf.nn.softmax(tf.matmul(pooled, self.d)),
                "small": tf.cast(small, tf.int32)}


def build_uint8_image():
    rng = np.random.default_rng(115)
    return Uint8Image(), {"x": rng.integers(0, 256, (2, 12, 10, 3)).astype(np.uint8)}


class MiscOps(tf.Module):
    """The rarer ops a TF.js model meets, in one graph: math, scans, one-hot, reverse, clip."""

    @tf.function(input_signature=[tf.TensorSpec([None, 6], tf.float32, name="x"),
                                  tf.TensorSpec([None], tf.int32, name="labels")])
    def serve(self, x, labels):
        u = tf.tanh(x) * 0.9
        trig = tf.concat([tf.acos(u), tf.asin(u), tf.atan(x), tf.atanh(u), tf.cosh(u),
                          tf.sinh(x), tf.tan(u), tf.math.expm1(u), tf.asinh(x),
                          tf.acosh(tf.abs(x) + 1.0), tf.atan2(x, u + 2.0)], -1)
        scans = tf.concat([tf.cumsum(x, axis=1), tf.math.cumprod(u, axis=-1, exclusive=True),
                           tf.cumsum(x, axis=1, reverse=True)], -1)
        misc = tf.concat([tf.clip_by_value(x, -0.5, 0.5), tf.math.floormod(x, 0.7),
                          tf.math.divide_no_nan(x, tf.round(u)), tf.reverse(x, [-1]),
                          tf.one_hot(labels, 6, on_value=2.0, off_value=-1.0)], -1)
        flags = tf.cast(tf.math.is_finite(tf.math.log(x)), tf.float32)
        return {"trig": trig, "scans": scans, "misc": misc, "flags": flags}


def build_misc_ops():
    rng = np.random.default_rng(116)
    return MiscOps(), {"x": rng.normal(size=(3, 6)).astype(np.float32),
                       "labels": np.array([0, 5, 7], np.int32)}


class ComplexFft(tf.Module):
    """complex64 in a graph: a complex64 Const (a 'complex64' weight), Cast to complex, complex Mul,
    FFT, RFFT/IRFFT of a length that is not a power of two, ComplexAbs, Real, Imag, Complex."""

    def __init__(self):
        rng = np.random.default_rng(119)
        self.w = tf.constant((rng.normal(size=12) + 1j * rng.normal(size=12)).astype(np.complex64))

    @tf.function(input_signature=[tf.TensorSpec([None, 12], tf.float32, name="x")])
    def serve(self, x):
        spec = tf.signal.rfft(x)
        y = tf.signal.fft(tf.cast(x, tf.complex64) * self.w)
        z = tf.complex(tf.math.imag(y), tf.math.real(y))
        return {"mag": tf.abs(spec), "re": tf.math.real(tf.signal.ifft(z)),
                "back": tf.signal.irfft(spec)}


def build_complex_fft():
    rng = np.random.default_rng(120)
    return ComplexFft(), {"x": rng.normal(size=(2, 12)).astype(np.float32)}


def build_bert_tiny():
    """A small BERT-style encoder: token + segment (OneHot @ table) + position embeddings,
    layer norm, multi-head self-attention (Einsum), GELU (Erf) feed-forward, residuals."""
    seed(17)
    ids = keras.Input((8,), dtype="int32", name="ids")
    seg = keras.Input((8,), dtype="int32", name="segments")
    tok = L.Embedding(30, 16)(ids)
    seg_table = L.Dense(16, use_bias=False)
    segv = seg_table(L.Lambda(lambda s: tf.one_hot(s, 2))(seg))
    pos = L.Embedding(8, 16)(L.Lambda(lambda t: tf.range(tf.shape(t)[1])[None, :])(ids))
    h = L.LayerNormalization(epsilon=1e-12)(L.Add()([tok, segv, pos]))
    att = L.MultiHeadAttention(num_heads=2, key_dim=8)(h, h)
    h = L.LayerNormalization(epsilon=1e-12)(L.Add()([h, att]))
    ff = L.Dense(32, activation=lambda t: tf.nn.gelu(t, approximate=False))(h)
    ff = L.Dense(16)(ff)
    h = L.LayerNormalization(epsilon=1e-12)(L.Add()([h, ff]))
    y = L.Dense(3, name="y")(h[:, 0])
    m = randomize_biases(keras.Model([ids, seg], y), 999)
    rng = np.random.default_rng(117)
    return m, {"ids": rng.integers(0, 30, (2, 8)).astype(np.int32),
               "segments": (np.arange(8)[None, :] >= np.array([[4], [6]])).astype(np.int32)}


class RaggedOps(tf.Module):
    """Ragged tensors in a graph: built from row lengths, row ids and nested lengths, gathered
    (RaggedGather), made by tf.ragged.range (RaggedRange) and densified with default values and
    shapes that pad or truncate (RaggedTensorToTensor with ROW_SPLITS, FIRST_DIM_SIZE +
    VALUE_ROWIDS, and two ragged dims)."""

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="values"),
                                  tf.TensorSpec([None], tf.int64, name="lengths"),
                                  tf.TensorSpec([None], tf.int64, name="rowids"),
                                  tf.TensorSpec([None], tf.int64, name="outer"),
                                  tf.TensorSpec([None], tf.int32, name="idx")])
    def serve(self, values, lengths, rowids, outer, idx):
        rt = tf.RaggedTensor.from_row_lengths(values, lengths, validate=False)
        gathered = tf.gather(rt, idx).to_tensor(default_value=-1.0)
        ranges = tf.ragged.range(tf.cast(lengths, tf.int32) * 2, row_splits_dtype=tf.int32)
        ranges = ranges.to_tensor(default_value=7, shape=[None, 5])
        feats = tf.stack([values, values * 2.0], -1)
        by_ids = tf.RaggedTensor.from_value_rowids(feats, rowids, nrows=tf.size(lengths, out_type=tf.int64),
                                                   validate=False)
        by_ids = by_ids.to_tensor(default_value=tf.constant([0.5, -0.5]))
        nested = tf.RaggedTensor.from_row_lengths(rt, outer, validate=False)
        nested = tf.gather(nested, [1, 0, 1]).to_tensor(default_value=9.0, shape=[3, 2, None])
        return {"gathered": gathered, "ranges": ranges, "by_ids": by_ids, "nested": nested}


def build_ragged_ops():
    rng = np.random.default_rng(119)
    return RaggedOps(), {"values": rng.normal(size=(9,)).astype(np.float32),
                         "lengths": np.array([2, 0, 3, 4], np.int64),
                         "rowids": np.array([0, 0, 1, 1, 1, 3, 3, 3, 3], np.int64),
                         "outer": np.array([1, 3], np.int64),
                         "idx": np.array([3, 0, 2, 0, 1], np.int32)}


MODELS = {
    "mlp": build_mlp,
    "cnn": build_cnn,
    "mobilenet": build_mobilenet,
    "tensor_ops": build_tensor_ops,
    "tensor_ops2": build_tensor_ops2,
    "activations": build_activations,
    "lstm": build_lstm,
    "conv_variants": build_conv_variants,
    "layer_norm_keras": build_layer_norm_keras,
    "unet_transpose": build_unet_transpose,
    "keypoint_decoder": build_keypoint_decoder,
    "detector_head": build_detector_head,
    "upsample_d2s": build_upsample_d2s,
    "uint8_image": build_uint8_image,
    "misc_ops": build_misc_ops,
    "bert_tiny": build_bert_tiny,
    "ragged_ops": build_ragged_ops,
    "complex_fft": build_complex_fft,
}
# Frozen graphs (tf_frozen_model conversion): model.json has a signature with outputs only, as older
# TF.js models do; inputs are the graph's Placeholders (reference keys: node names).
FROZEN = {}


def frozen_model(fn):
    FROZEN[fn.__name__[len("build_"):]] = fn
    return fn


@frozen_model
def build_frozen_no_inputs():
    rng = np.random.default_rng(418)
    w = tf.Variable(rng.normal(size=(6, 5)).astype(np.float32))
    b = tf.Variable(rng.normal(size=(5,)).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([None, 6], tf.float32, name="x"),
                                  tf.TensorSpec([None, 5], tf.float32, name="bias2")])
    def f(x, bias2):
        h = tf.nn.relu(tf.matmul(x, w) + b)
        return tf.identity(tf.nn.softmax(h + bias2), name="probs")

    rng = np.random.default_rng(118)
    return f, {"x": rng.normal(size=(2, 6)).astype(np.float32),
               "bias2": rng.normal(size=(2, 5)).astype(np.float32)}


def gen_frozen(name, tmp):
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2)
    fn, inputs = FROZEN[name]()
    cf = fn.get_concrete_function()
    frozen = convert_variables_to_constants_v2(cf)
    gd = frozen.graph.as_graph_def()
    tf.io.write_graph(gd, tmp, name + ".pb", as_text=False)
    out_nodes = [t.name.split(":")[0] for t in frozen.outputs]
    env = dict(os.environ, TF_ENABLE_ONEDNN_OPTS="0", TF_CPP_MIN_LOG_LEVEL="2")
    exe = os.path.join(os.path.dirname(sys.executable), "tensorflowjs_converter")
    cdir = os.path.join(tmp, name + "_tfjs")
    r = subprocess.run([exe, "--input_format=tf_frozen_model", "--output_format=tfjs_graph_model",
                        "--output_node_names=" + ",".join(out_nodes),
                        os.path.join(tmp, name + ".pb"), cdir],
                       env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        raise SystemExit("converter failed for " + name)
    dest = os.path.join(OUT, name)
    install(cdir, dest)
    mj = json.load(open(os.path.join(dest, "model.json")))
    assert not mj["signature"].get("inputs"), mj["signature"]
    outs = [o.numpy() for o in tf.nest.flatten(fn(**{k: tf.constant(v) for k, v in inputs.items()}))]
    ref_out = dict(zip(mj["signature"]["outputs"].keys(), outs))
    write_reference(os.path.join(dest, "reference.json"), inputs, ref_out)
    print("%s: %d nodes, ops: %s" % (name, len(mj["modelTopology"]["node"]), " ".join(model_ops(mj))))
    check_close(name, tfjs_graph.run_model(dest, inputs), ref_out, rtol=1e-4, atol=1e-5)


# quantized variants: name -> (base model, converter flags, dequantization kind)
class StringsVocab(tf.Module):
    """Text preprocessing in the graph: regex cleanup, StringSplit, a StaticHashTable vocabulary
    (the converter's modelInitializer), n-grams and hash buckets; fed raw strings."""

    def __init__(self):
        self.table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(
                tf.constant(["the", "cat", "sat", "on", "mat", "caf\u00e9"]),
                tf.constant([1, 2, 3, 4, 5, 6], tf.int64)),
            default_value=-1)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="text")])
    def serve(self, text):
        low = tf.strings.regex_replace(text, "[^a-z\u00e9 ]", "")
        sp = tf.compat.v1.string_split(low, " ")
        grams = tf.strings.ngrams(sp.values, [1, 2], separator="_", pad_values=("<s>", "</s>"))
        return {"ids": self.table.lookup(sp.values), "indices": sp.indices, "dense_shape": sp.dense_shape,
                "buckets": tf.strings.to_hash_bucket_fast(grams, 1000), "grams": grams}


def gen_strings_vocab(tmp):
    """strings_vocab: TF.js's python graph runner has no string ops, so TF's outputs are the only
    reference; the table handle input (a resourceId) is left out of reference.json."""
    name = "strings_vocab"
    inputs = {"text": np.array([b"The cat sat!", b"", b"on the caf\xc3\xa9 mat, the end"], dtype=object)}
    sdir = os.path.join(tmp, name + "_saved")
    save(StringsVocab(), sdir)
    outs, fn = reference(sdir, inputs)
    cdir = os.path.join(tmp, name + "_tfjs")
    convert(sdir, cdir)
    dest = os.path.join(OUT, name)
    install(cdir, dest)
    mj = json.load(open(os.path.join(dest, "model.json")))
    assert "modelInitializer" in mj, "the converter no longer writes a modelInitializer"
    sig_out = mj["signature"]["outputs"]
    out_names = [t.name for t in fn.outputs]
    out_keys = sorted(fn.structured_outputs.keys())
    ref_out = {k: outs[k] if k in outs else outs[out_keys[out_names.index(k)]] for k in sig_out}
    write_reference(os.path.join(dest, "reference.json"), inputs, ref_out)
    print("%s: %d nodes, ops: %s" % (name, len(mj["modelTopology"]["node"]), " ".join(model_ops(mj))))


SPECIAL = {"strings_vocab": gen_strings_vocab}


QUANTIZED = {
    "mlp_uint8": ("mlp", ["--quantize_uint8", "*"]),
    "mlp_float16": ("mlp", ["--quantize_float16", "*"]),
}

# --------------------------------------------------------------------------


def save(obj, path):
    if isinstance(obj, keras.Model):
        obj.save(path, save_format="tf")
    else:
        tf.saved_model.save(obj, path, signatures={"serving_default": obj.serve})


def convert(saved_dir, out_dir, extra=()):
    env = dict(os.environ, TF_ENABLE_ONEDNN_OPTS="0", TF_CPP_MIN_LOG_LEVEL="2")
    exe = os.path.join(os.path.dirname(sys.executable), "tensorflowjs_converter")
    cmd = [exe, "--input_format=tf_saved_model", "--output_format=tfjs_graph_model",
           *extra, saved_dir, out_dir]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        raise SystemExit("converter failed: %s" % " ".join(cmd))


def reference(saved_dir, inputs):
    """Runs the SavedModel's serving signature. Returns (outputs dict, fn)."""
    loaded = tf.saved_model.load(saved_dir)
    fn = loaded.signatures["serving_default"]
    res = fn(**{k: tf.constant(v) for k, v in inputs.items()})
    return {k: v.numpy() for k, v in res.items()}, fn


def map_keys(model_json, fn, inputs, outputs):
    """Maps SavedModel signature keys to the keys model.json uses.

    The converter keys an input/output by its SavedModel signature key when
    exactly one signature entry has its dtype and shape, else by tensor name
    (e.g. "Identity_2:0").  Tensor names are resolved through the signature
    function's flat inputs/outputs, which is what the converter iterates.
    """
    sig = model_json["signature"]
    in_names = [t.name for t in fn.inputs]
    in_keys = sorted(fn.structured_input_signature[1].keys())
    out_names = [t.name for t in fn.outputs]
    out_keys = sorted(fn.structured_outputs.keys())
    ref_in, ref_out = {}, {}
    for key in sig["inputs"]:
        if key in inputs:
            ref_in[key] = inputs[key]
        else:
            ref_in[key] = inputs[in_keys[in_names.index(key)]]
    for key in sig["outputs"]:
        if key in outputs:
            ref_out[key] = outputs[key]
        else:
            ref_out[key] = outputs[out_keys[out_names.index(key)]]
    assert len(ref_in) == len(inputs) and len(ref_out) == len(outputs), (sig, inputs.keys())
    return ref_in, ref_out


def write_reference(path, ins, outs):
    doc = {"inputs": {k: fixture_io.tensor(v) for k, v in ins.items()},
           "outputs": {k: fixture_io.tensor(v) for k, v in outs.items()}}
    with open(path, "w") as f:
        f.write(fixture_io.dumps(doc) + "\n")


def install(conv_dir, dest):
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    for fn in sorted(os.listdir(conv_dir)):
        shutil.copy(os.path.join(conv_dir, fn), os.path.join(dest, fn))


def model_ops(model_json):
    ops = {n["op"] for n in model_json["modelTopology"]["node"]}
    for f in model_json["modelTopology"].get("library", {}).get("function", []):
        ops |= {n["op"] for n in f.get("nodeDef", [])}
    return sorted(ops)


def check_close(name, got, want, rtol, atol):
    worst = 0.0
    for k, w in want.items():
        g = got[k]
        assert g.shape == w.shape, (name, k, g.shape, w.shape)
        if w.dtype != np.float32:
            assert np.array_equal(g, w), (name, k)
            continue
        err = np.max(np.abs(g - w) / (atol + rtol * np.abs(w))) if w.size else 0.0
        worst = max(worst, float(err))
    status = "ok" if worst <= 1.0 else "MISMATCH"
    print("  re-run of converted graph vs reference: %s (worst err/tol %.3g)" % (status, worst))
    if worst > 1.0:
        raise SystemExit("%s: converted graph disagrees with SavedModel" % name)


def main(argv):
    wanted = argv or list(MODELS) + list(QUANTIZED) + list(FROZEN) + list(SPECIAL)
    os.makedirs(OUT, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="gen_models_")
    built = {}
    try:
        for name in wanted:
            if name in FROZEN:
                gen_frozen(name, tmp)
                continue
            if name in SPECIAL:
                SPECIAL[name](tmp)
                continue
            base = QUANTIZED[name][0] if name in QUANTIZED else name
            if base not in built:
                obj, inputs = MODELS[base]()
                sdir = os.path.join(tmp, base + "_saved")
                save(obj, sdir)
                outs, fn = reference(sdir, inputs)
                built[base] = (sdir, inputs, outs, fn)
            sdir, inputs, outs, fn = built[base]
            extra = QUANTIZED[name][1] if name in QUANTIZED else []
            cdir = os.path.join(tmp, name + "_tfjs")
            convert(sdir, cdir, extra)
            dest = os.path.join(OUT, name)
            install(cdir, dest)
            mj = json.load(open(os.path.join(dest, "model.json")))
            ref_in, ref_out = map_keys(mj, fn, inputs, outs)
            write_reference(os.path.join(dest, "reference.json"), ref_in, ref_out)
            ops = model_ops(mj)
            print("%s: %d nodes, ops: %s" % (name, len(mj["modelTopology"]["node"]), " ".join(ops)))
            bad = [o for o in ops if o.startswith("While") or o.startswith("TensorList")
                   or o in ("Enter", "Exit", "Merge", "Switch", "NextIteration", "LoopCond")]
            assert not bad, (name, bad)
            assert not mj["modelTopology"].get("library", {}).get("function"), name
            got = tfjs_graph.run_model(dest, ref_in)
            if name in QUANTIZED:
                # looser: quantization error vs the float model
                check_close(name, got, ref_out, rtol=0.05, atol=0.02)
                write_reference(os.path.join(dest, "reference_dequantized.json"), ref_in, got)
            else:
                check_close(name, got, ref_out, rtol=1e-4, atol=1e-5)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    write_coverage()


def write_coverage():
    lines = []
    for name in sorted(os.listdir(OUT)):
        p = os.path.join(OUT, name, "model.json")
        if not os.path.exists(p):
            continue
        mj = json.load(open(p))
        size = sum(os.path.getsize(os.path.join(OUT, name, f))
                   for g in mj["weightsManifest"] for f in g["paths"])
        lines.append("%s (%d nodes, %d weight bytes): %s" % (
            name, len(mj["modelTopology"]["node"]), size, " ".join(model_ops(mj))))
    with open(os.path.join(OUT, "ops_coverage.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
