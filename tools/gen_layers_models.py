#!/usr/bin/env python3
"""Generate the TF.js *layers*-format model fixtures under tests/fixtures/layers/.

Run with the TensorFlow venv described in tools/README.md:

    /tmp/tfenv/bin/python tools/gen_layers_models.py [name ...]

For every model: build it with tf_keras 2.18 (Keras 2) and fixed seeds, give every weight a
seeded random value (biases, BN statistics, gammas... not left at their trivial initial values),
save it with `tensorflowjs.converters.save_keras_model` (what `tensorflowjs_converter
--input_format keras` writes: `format: layers-model`), run Keras's `model(x, training=False)` on a
seeded input, and write tests/fixtures/layers/<name>/{model.json, group1-shard1of1.bin,
reference.json}. reference.json keys: the model's input layer names and output names (Keras's
`output_names`), as tools/README.md describes for graph models.
"""

import json
import os
import shutil
import sys
import tempfile

os.environ["TF_USE_LEGACY_KERAS"] = "1"
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.dont_write_bytecode = True  # no __pycache__ in tools/

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tf_keras as keras  # noqa: E402
import tensorflowjs as tfjs  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_io  # noqa: E402
import keras_weights  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "fixtures", "layers")
L = keras.layers


def seed(s):
    keras.utils.set_random_seed(s)


def randomize(model, seed_):
    return keras_weights.randomize(model, seed_, lambda w: w.name.split("/")[-1].split(":")[0], lambda w: w.dtype.as_numpy_dtype)


normal = keras_weights.normal


# --------------------------------------------------------------------------
# Models. Each builder returns (model, {input name: np array}).
# --------------------------------------------------------------------------


def build_seq_mlp():
    seed(11)
    m = keras.Sequential([
        L.Dense(16, activation="relu", input_shape=(10,)),
        L.Dropout(0.5),
        L.Dense(8, activation="tanh"),
        L.GaussianNoise(0.3),
        L.GaussianDropout(0.3),
        L.AlphaDropout(0.3),
        L.ActivityRegularization(l1=0.01),
        L.Dense(4, activation="softmax"),
    ], name="seq_mlp")
    randomize(m, 111)
    rng = np.random.default_rng(1)
    return m, {m.input_names[0]: normal(rng, (2, 10))}


ACTIVATIONS = ["relu", "relu6", "elu", "selu", "sigmoid", "hard_sigmoid", "tanh", "softmax",
               "softplus", "softsign", "swish", "silu", "gelu", "mish", "linear", "exponential"]


def build_activations():
    seed(12)
    x = keras.Input((12,), name="x")
    h = L.Dense(12)(x)
    outs = [L.Activation(a, name="act_" + a)(h) for a in ACTIVATIONS]
    outs += [
        L.ReLU()(h),
        L.ReLU(max_value=1.0, negative_slope=0.1, threshold=0.25)(h),
        L.LeakyReLU(alpha=0.2)(h),
        L.PReLU()(h),
        L.ELU(alpha=0.7)(h),
        L.ThresholdedReLU(theta=0.3)(h),
        L.Softmax()(h),
        L.Dense(5, activation="swish")(h),
        L.Dense(5, activation="gelu")(h),
    ]
    r = L.Reshape((3, 4))(h)
    outs.append(L.Flatten()(L.Softmax(axis=1)(r)))
    outs.append(L.Flatten()(L.PReLU(shared_axes=[1])(r)))
    y = L.Concatenate(name="y")(outs)
    m = randomize(keras.Model(x, y), 112)
    rng = np.random.default_rng(2)
    return m, {"x": normal(rng, (2, 12), 2.0)}


def build_conv2d():
    seed(13)
    x = keras.Input((12, 12, 3), name="image")
    h = L.ZeroPadding2D(((1, 0), (2, 1)))(x)
    h = L.Conv2D(6, 3, padding="same", activation="relu")(h)
    h = L.BatchNormalization()(h)
    h = L.DepthwiseConv2D(3, depth_multiplier=2, padding="same", activation="relu6")(h)
    h = L.SeparableConv2D(5, 3, strides=2, padding="valid")(h)
    h = L.SpatialDropout2D(0.5)(h)
    a = L.Conv2D(4, 3, dilation_rate=2, padding="same", use_bias=False)(h)
    b = L.MaxPooling2D(2, padding="same")(h)
    b = L.AveragePooling2D(2, strides=1)(b)
    b = L.UpSampling2D(2)(b)
    b = L.Cropping2D(((1, 0), (0, 1)))(b)
    c = L.UpSampling2D((2, 1), interpolation="bilinear")(a)
    d = L.Conv2D(3, (2, 3), strides=(1, 2), padding="valid", activation="sigmoid")(h)
    e = L.DepthwiseConv2D(2, strides=2, padding="valid")(h)
    e = L.BatchNormalization(center=False, scale=False, epsilon=0.01)(e)
    outs = [
        L.GlobalAveragePooling2D()(a),
        L.GlobalMaxPooling2D()(b),
        L.Flatten()(c),
        L.Flatten()(d),
        L.Flatten()(e),
        L.GlobalAveragePooling2D(keepdims=True)(L.MaxPooling2D((2, 2), strides=(1, 2))(a)),
    ]
    outs[-1] = L.Flatten()(outs[-1])
    y = L.Concatenate(name="features")(outs)
    m = randomize(keras.Model(x, y), 113)
    rng = np.random.default_rng(3)
    return m, {"image": normal(rng, (2, 12, 12, 3))}


def build_conv1d():
    seed(14)
    x = keras.Input((16, 4), name="seq")
    h = L.Conv1D(6, 3, padding="causal", dilation_rate=2, activation="elu")(x)
    h = L.ZeroPadding1D((1, 2))(h)
    h = L.Conv1D(5, 3, strides=2)(h)
    h = L.Cropping1D((1, 0))(h)
    h = L.UpSampling1D(2)(h)
    h = L.MaxPooling1D(2)(h)
    h = L.AveragePooling1D(2, padding="same")(h)
    h = L.SeparableConv1D(4, 3, padding="same", depth_multiplier=2)(h)
    h = L.LayerNormalization()(h)
    h = L.SpatialDropout1D(0.3)(h)
    p = L.Permute((2, 1))(h)
    p = L.LayerNormalization(axis=[1, 2], center=False)(p)
    f = L.Dense(3)(L.Flatten()(p))
    r = L.RepeatVector(2)(f)
    r = L.Reshape((3, 2))(r)
    d3 = L.Dense(2, activation="softsign")(r)  # Dense on a rank-3 input
    outs = [L.GlobalMaxPooling1D()(h), L.GlobalAveragePooling1D()(h), L.Flatten()(d3),
            L.Flatten()(L.ZeroPadding1D(1)(L.Cropping1D(1)(x)))]
    y = L.Concatenate(name="y")(outs)
    m = randomize(keras.Model(x, y), 114)
    rng = np.random.default_rng(4)
    return m, {"seq": normal(rng, (2, 16, 4))}


def build_merge():
    seed(15)
    a = keras.Input((6,), name="a")
    b = keras.Input((6,), name="b")
    c = keras.Input((4, 3), name="c")
    shared = L.Dense(6, activation="tanh", name="shared")
    sa, sb = shared(a), shared(b)
    inner = keras.Sequential([L.Dense(5, input_shape=(6,)), L.Activation("relu"),
                              L.Dense(6)], name="inner_seq")
    fi = keras.Input((6,), name="fi")
    fo = L.Dense(6, name="inner_dense")(fi)
    fo2 = L.Multiply()([fo, fi])
    inner_f = keras.Model(fi, [fo, fo2], name="inner_fn")
    f1, f2 = inner_f(sa)
    g1, _ = inner_f(sb)  # a nested model used twice
    merged = [
        L.Add()([sa, sb, a]),
        L.Subtract()([sa, sb]),
        L.Multiply()([sa, sb]),
        L.Average()([sa, sb, b]),
        L.Maximum()([sa, sb]),
        L.Minimum()([sa, sb]),
        inner(a),
        f1, f2, g1,
        L.Dot(axes=1)([sa, sb]),
        L.Dot(axes=1, normalize=True)([a, b]),
    ]
    y1 = L.Concatenate(name="y1")(merged)
    c2 = L.Dense(3)(c)
    d = L.Dot(axes=(2, 2))([c, c2])          # [b, 4, 4]
    e = L.Dot(axes=(1, 1))([c, c2])          # [b, 3, 3]
    f = L.Dot(axes=(1, 1))([c, L.Dense(4)(a)])  # rank 3 . rank 2 -> [b, 3]
    y2 = L.Concatenate(axis=1, name="y2")([L.Flatten()(d), L.Flatten()(e), f])
    y3 = L.Concatenate(axis=1, name="y3")([c, c2])
    m = randomize(keras.Model([a, b, c], [y1, y2, y3]), 115)
    rng = np.random.default_rng(5)
    return m, {"a": normal(rng, (2, 6)), "b": normal(rng, (2, 6)), "c": normal(rng, (2, 4, 3))}


def build_rnn():
    seed(16)
    x = keras.Input((6, 5), name="x")
    h = L.SimpleRNN(4, return_sequences=True)(x)
    h = L.LSTM(5, return_sequences=True)(h)
    y1 = L.GRU(4, name="gru_after")(h)
    y2 = L.GRU(3, reset_after=False, return_sequences=True, go_backwards=True,
               name="gru_before")(x)
    s_out, s_h, s_c = L.LSTM(3, return_state=True, activation="relu",
                             recurrent_activation="hard_sigmoid", name="lstm_state")(x)
    y3 = L.Concatenate(name="states")([s_out, s_h, s_c,
                                       L.SimpleRNN(2, go_backwards=True, use_bias=False)(x)])
    m = randomize(keras.Model(x, [y1, y2, y3]), 116)
    rng = np.random.default_rng(6)
    return m, {"x": normal(rng, (2, 6, 5))}


def build_rnn_wrappers():
    seed(17)
    x = keras.Input((7, 4), name="x")
    h = L.Masking(0.0)(x)
    h = L.Bidirectional(L.LSTM(3, return_sequences=True))(h)
    h = L.TimeDistributed(L.Dense(2))(h)
    y1 = L.Bidirectional(L.GRU(3), merge_mode="sum", name="bi_sum")(h)
    y2 = L.Bidirectional(L.SimpleRNN(2, return_sequences=True), merge_mode="ave",
                         name="bi_ave")(x)
    y3 = L.LSTM(2, name="masked_lstm")(L.Masking(0.0)(x))
    t = L.TimeDistributed(L.Conv1D(2, 2))(L.Reshape((7, 2, 2))(x))
    y4 = L.Flatten(name="td_conv")(t)
    y5 = L.Bidirectional(L.LSTM(2), merge_mode="mul", name="bi_mul")(x)
    m = randomize(keras.Model(x, [y1, y2, y3, y4, y5]), 117)
    rng = np.random.default_rng(7)
    xs = normal(rng, (2, 7, 4))
    xs[0, 5:] = 0.0  # trailing padding: masked steps
    xs[1, 2] = 0.0   # a masked step in the middle
    return m, {"x": xs}


def build_embedding():
    seed(18)
    x = keras.Input((6,), dtype="int32", name="tokens")
    e = L.Embedding(20, 4, mask_zero=True)(x)
    y1 = L.GRU(3, name="gru")(e)
    y2 = L.Dense(3, name="dense_flat")(L.Flatten()(L.Embedding(20, 2)(x)))
    m = randomize(keras.Model(x, [y1, y2]), 118)
    rng = np.random.default_rng(8)
    tokens = rng.integers(1, 20, (2, 6)).astype(np.int32)
    tokens[0, 4:] = 0
    tokens[1, 1] = 0
    return m, {"tokens": tokens}


def build_preprocess():
    seed(19)
    rng = np.random.default_rng(9)
    norm = L.Normalization()
    norm.adapt(normal(rng, (50, 5), 3.0) + 2.0)
    x = keras.Input((5,), name="x")
    h = L.Rescaling(0.5, offset=-1.0)(x)
    h = norm(h)
    y = L.Dense(3, name="y")(h)
    m = randomize(keras.Model(x, y), 119)
    return m, {"x": normal(rng, (2, 5), 3.0)}


def build_teachable():
    """Teachable Machine's export shape: Sequential([trunk Sequential, head Sequential])."""
    seed(20)
    trunk = keras.Sequential([
        L.Conv2D(8, 3, strides=2, padding="same", use_bias=False, input_shape=(32, 32, 3)),
        L.BatchNormalization(),
        L.ReLU(6.0),
        L.DepthwiseConv2D(3, padding="same", use_bias=False),
        L.BatchNormalization(),
        L.ReLU(6.0),
        L.Conv2D(16, 1, use_bias=False),
        L.BatchNormalization(),
        L.ReLU(6.0),
        L.DepthwiseConv2D(3, strides=2, padding="same", use_bias=False),
        L.BatchNormalization(),
        L.ReLU(6.0),
        L.Conv2D(16, 1, use_bias=False),
        L.BatchNormalization(),
        L.GlobalAveragePooling2D(),
    ], name="sequential_1")
    head = keras.Sequential([
        L.Dense(20, activation="relu", input_shape=(16,), name="dense_Dense1"),
        L.Dropout(0.5),
        L.Dense(3, activation="softmax", name="dense_Dense2"),
    ], name="sequential_3")
    m = keras.Sequential([trunk, head], name="sequential_4")
    randomize(m, 120)
    rng = np.random.default_rng(10)
    return m, {m.input_names[0]: rng.random((2, 32, 32, 3), dtype=np.float32)}


def build_lstm_text():
    """A small text classifier: token ids -> masked embedding -> LSTM -> softmax (the demo's
    layers-format LSTM sample)."""
    seed(21)
    x = keras.Input((12,), name="tokens")
    h = L.Embedding(50, 8, mask_zero=True)(x)
    h = L.LSTM(16)(h)
    y = L.Dense(4, activation="softmax", name="label")(h)
    m = randomize(keras.Model(x, y, name="lstm_text"), 121)
    rng = np.random.default_rng(11)
    tokens = rng.integers(1, 50, (2, 12)).astype(np.float32)  # float ids, as TF.js apps feed them
    tokens[0, 7:] = 0
    tokens[1, 10:] = 0
    return m, {"tokens": tokens}


def build_image_preprocess():
    seed(22)
    x = keras.Input((9, 11, 3), name="image")
    a = L.Resizing(6, 8)(x)
    b = L.CenterCrop(5, 6)(x)
    c = L.Resizing(12, 14)(L.Rescaling(1.0 / 255)(x))
    outs = [L.Flatten()(a), L.Flatten()(b), L.Flatten()(c)]
    outs.append(L.Dense(2)(outs[0]))  # a weight, so the model has a shard like the others
    m = randomize(keras.Model(x, L.Concatenate(name="y")(outs)), 122)
    rng = np.random.default_rng(12)
    return m, {"image": (rng.random((2, 9, 11, 3)) * 255).astype(np.float32)}


def build_masked_sequences():
    """Masked steps inside returned sequences (what Keras emits there, not just in states)."""
    seed(23)
    x = keras.Input((6, 3), name="x")
    h = L.Masking(0.0)(x)
    y1 = L.LSTM(3, return_sequences=True, name="lstm_seq")(h)
    y2 = L.GRU(2, return_sequences=True, go_backwards=True, name="gru_seq")(h)
    y3 = L.SimpleRNN(2, return_sequences=True, name="rnn_seq")(h)
    y4 = L.Bidirectional(L.LSTM(2, return_sequences=True), name="bi_seq")(h)
    m = randomize(keras.Model(x, [y1, y2, y3, y4]), 123)
    rng = np.random.default_rng(13)
    xs = normal(rng, (2, 6, 3))
    xs[0, 4:] = 0.0
    xs[1, 1] = 0.0
    xs[1, 3] = 0.0
    return m, {"x": xs}


def build_conv_transpose():
    """Conv2DTranspose (the decoder half of a segmenter): same and valid, strides, dilation."""
    seed(24)
    x = keras.Input((5, 6, 3), name="x")
    a = L.Conv2DTranspose(4, 3, strides=2, padding="same", activation="relu")(x)
    b = L.Conv2DTranspose(2, (2, 3), strides=(2, 1), padding="valid", use_bias=False)(a)
    c = L.Conv2DTranspose(3, 3, dilation_rate=2, padding="same", activation="sigmoid")(x)
    d = L.Conv2DTranspose(2, 4, strides=3, padding="valid")(x)
    outs = [L.Flatten()(t) for t in (a, b, c, d)]
    m = randomize(keras.Model(x, L.Concatenate(name="y")(outs)), 124)
    rng = np.random.default_rng(14)
    return m, {"x": normal(rng, (2, 5, 6, 3))}


def build_conv3d():
    """The volumetric layers: Conv3D, MaxPooling3D, AveragePooling3D, their global forms, and
    ZeroPadding3D, Cropping3D, UpSampling3D, SpatialDropout3D."""
    seed(25)
    x = keras.Input((6, 7, 8, 2), name="volume")
    a = L.Conv3D(4, 3, padding="same", activation="relu")(x)
    b = L.Conv3D(3, (2, 3, 2), strides=(1, 2, 2), padding="valid", use_bias=False)(a)
    c = L.MaxPooling3D(2)(L.SpatialDropout3D(0.3)(a))
    d = L.AveragePooling3D((2, 2, 1), strides=1, padding="same")(b)
    e = L.MaxPooling3D((3, 2, 2), strides=(1, 2, 1), padding="same")(x)
    f = L.AveragePooling3D(2, padding="valid")(L.ZeroPadding3D(((1, 0), (0, 1), (1, 1)))(x))
    g = L.UpSampling3D((1, 2, 2))(L.Cropping3D(((1, 2), (0, 3), (2, 2)))(x))
    outs = [
        L.GlobalMaxPooling3D()(a),
        L.GlobalAveragePooling3D()(b),
        L.GlobalAveragePooling3D(keepdims=True)(c),
        L.GlobalMaxPooling3D(keepdims=True)(d),
        e, f, g,
    ]
    y = L.Concatenate(name="y")([L.Flatten()(t) for t in outs])
    m = randomize(keras.Model(x, y), 125)
    rng = np.random.default_rng(15)
    return m, {"volume": normal(rng, (2, 6, 7, 8, 2))}


def build_conv_transpose_padding():
    """Conv2DTranspose with output_padding (same and valid, per-axis values)."""
    seed(26)
    x = keras.Input((4, 5, 2), name="x")
    a = L.Conv2DTranspose(3, 3, strides=2, padding="same", output_padding=1)(x)
    b = L.Conv2DTranspose(2, (3, 4), strides=(3, 2), padding="valid", output_padding=(2, 0),
                          activation="tanh")(x)
    c = L.Conv2DTranspose(2, 3, strides=(2, 3), padding="same", output_padding=(0, 2),
                          use_bias=False)(x)
    outs = [L.Flatten()(t) for t in (a, b, c)]
    m = randomize(keras.Model(x, L.Concatenate(name="y")(outs)), 126)
    rng = np.random.default_rng(16)
    return m, {"x": normal(rng, (2, 4, 5, 2))}


BUILDERS = {
    "seq_mlp": build_seq_mlp,
    "activations": build_activations,
    "conv2d": build_conv2d,
    "conv1d": build_conv1d,
    "merge": build_merge,
    "rnn": build_rnn,
    "rnn_wrappers": build_rnn_wrappers,
    "embedding": build_embedding,
    "preprocess": build_preprocess,
    "teachable": build_teachable,
    "lstm_text": build_lstm_text,
    "image_preprocess": build_image_preprocess,
    "masked_sequences": build_masked_sequences,
    "conv_transpose": build_conv_transpose,
    "conv3d": build_conv3d,
    "conv_transpose_padding": build_conv_transpose_padding,
}


def generate(name):
    model, inputs = BUILDERS[name]()
    out_names = list(model.output_names)
    assert len(set(out_names)) == len(out_names), out_names
    feed = [inputs[n] for n in model.input_names]
    got = model(feed if len(feed) > 1 else feed[0], training=False)
    if not isinstance(got, (list, tuple)):
        got = [got]
    outputs = {n: np.asarray(g) for n, g in zip(out_names, got)}
    out_dir = os.path.join(OUT, name)
    tmp = tempfile.mkdtemp()
    try:
        tfjs.converters.save_keras_model(model, tmp)
        shutil.rmtree(out_dir, ignore_errors=True)
        os.makedirs(out_dir)
        files = sorted(os.listdir(tmp))
        assert files == ["group1-shard1of1.bin", "model.json"], files
        for f in files:
            shutil.copy(os.path.join(tmp, f), out_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ref = {
        "inputs": {n: fixture_io.tensor(inputs[n]) for n in model.input_names},
        "outputs": {n: fixture_io.tensor(v) for n, v in outputs.items()},
    }
    with open(os.path.join(out_dir, "reference.json"), "w") as f:
        f.write(fixture_io.dumps(ref))
        f.write("\n")
    size = sum(os.path.getsize(os.path.join(out_dir, f)) for f in os.listdir(out_dir))
    print("%-14s %6d bytes  inputs %s  outputs %s" % (
        name, size, model.input_names, {n: v.shape for n, v in outputs.items()}))


def main(argv):
    names = argv or list(BUILDERS)
    for n in names:
        keras.backend.clear_session()
        generate(n)


if __name__ == "__main__":
    main(sys.argv[1:])
