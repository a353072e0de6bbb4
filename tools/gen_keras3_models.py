#!/usr/bin/env python3
"""Generate TF.js layers-format fixtures from Keras 3 models under tests/fixtures/layers/.

Run with the TensorFlow venv described in tools/README.md:

    /tmp/tfenv/bin/python tools/gen_keras3_models.py [name ...]

TF 2.18's default `keras` is Keras 3 (tf_keras, which gen_layers_models.py uses, is Keras 2).
tensorflowjs 4.22 turns a Keras 3 model into the layers format two ways, and each model here is
written both ways:

- `k3_<name>/`: `model.save("m.h5")` (Keras 3's legacy HDF5 save) then `tensorflowjs_converter
  --input_format keras m.h5` (the same files as `tensorflowjs.converters.save_keras_model`):
  Keras 3 configs (`module`/`registered_name` wrappers, `DTypePolicy` dicts, `batch_shape`,
  `args`/`keras_history` inbound nodes), weights named by variable path (`dense/kernel`;
  `sequential/dense/kernel` inside a Sequential).
- `k3kk_<name>/`: `model.save("m.keras")` then `tensorflowjs_converter --input_format keras_keras
  --output_format tfjs_layers_model m.keras`: weights named by Keras 3's object path
  (`layers/dense/vars/0`, `layers/lstm/cell/vars/1`), where a layer is named by its class in
  snake case (not by its name) and numbered among the model's layers of that class.

Weights get seeded random values, the reference is `model(x, training=False)`;
reference.json as gen_layers_models.py writes it.
"""

import os
import shutil
import subprocess
import sys
import tempfile

os.environ.pop("TF_USE_LEGACY_KERAS", None)
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.dont_write_bytecode = True  # no __pycache__ in tools/

import numpy as np  # noqa: E402
import keras  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_io  # noqa: E402
import keras_weights  # noqa: E402

assert keras.__version__.startswith("3."), keras.__version__

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "fixtures", "layers")
CONVERTER = os.path.join(os.path.dirname(sys.executable), "tensorflowjs_converter")
L = keras.layers


def randomize(model, seed_):
    return keras_weights.randomize(model, seed_, lambda w: w.path.split("/")[-1], lambda w: w.dtype)


normal = keras_weights.normal


def build_seq():
    keras.utils.set_random_seed(31)
    m = keras.Sequential([
        keras.Input((8, 8, 2), name="image"),
        L.Conv2D(4, 3, padding="same", activation="relu"),
        L.BatchNormalization(),
        L.DepthwiseConv2D(3, padding="same"),
        L.MaxPooling2D(2),
        L.Flatten(),
        L.Dense(6, activation="gelu"),
        L.Dropout(0.3),
        L.Dense(3, activation="softmax"),
    ], name="k3_seq")
    randomize(m, 131)
    rng = np.random.default_rng(31)
    return m, {"image": normal(rng, (2, 8, 8, 2))}


def build_functional():
    keras.utils.set_random_seed(32)
    a = keras.Input((6,), name="a")
    b = keras.Input((4, 3), name="b")
    shared = L.Dense(6, activation="tanh", name="shared")
    fi = keras.Input((6,), name="fi")
    inner = keras.Model(fi, L.Dense(4, name="inner_dense")(fi), name="inner_fn")
    inner_seq = keras.Sequential([keras.Input((6,)), L.Dense(5), L.LeakyReLU(0.2), L.Dense(4)],
                                 name="inner_seq")
    sa = shared(a)
    sb = shared(L.Dense(6)(a))
    n = L.Normalization()
    n.adapt(normal(np.random.default_rng(1), (20, 6), 2.0) + 1.0)
    merged = [
        L.Add()([sa, sb]),
        L.Multiply()([sa, a]),
        inner(sa), inner(sb), inner_seq(sb),
        L.PReLU()(sa),
        L.LayerNormalization()(sa),
        n(a),
        L.Dot(axes=1)([sa, sb]),
    ]
    y1 = L.Concatenate(name="y1")(merged)
    c = L.Conv1D(4, 2, padding="causal")(b)
    y2 = L.Flatten(name="y2")(L.BatchNormalization(center=False)(c))
    m = randomize(keras.Model([a, b], [y1, y2], name="k3_functional"), 132)
    rng = np.random.default_rng(32)
    return m, {"a": normal(rng, (2, 6)), "b": normal(rng, (2, 4, 3))}


def build_rnn():
    keras.utils.set_random_seed(33)
    x = keras.Input((5,), name="tokens")
    e = L.Embedding(12, 4, mask_zero=True)(x)
    h = L.Bidirectional(L.LSTM(3, return_sequences=True))(e)
    h = L.TimeDistributed(L.Dense(3))(h)
    y1 = L.GRU(3, name="gru_out")(h)
    y2 = L.SimpleRNN(2, name="rnn")(L.GRU(3, return_sequences=True, reset_after=False)(h))
    y3 = L.Bidirectional(L.GRU(2), merge_mode="sum", name="bi_sum")(e)
    m = randomize(keras.Model(x, [y1, y2, y3], name="k3_rnn"), 133)
    rng = np.random.default_rng(33)
    tokens = rng.integers(1, 12, (2, 5)).astype(np.int32)
    tokens[0, 3:] = 0
    tokens[1, 1] = 0
    return m, {"tokens": tokens.astype(np.float32)}


BUILDERS = {
    "seq": build_seq,
    "functional": build_functional,
    "rnn": build_rnn,
}


def convert(model, out_dir, keras_v3_file):
    tmp = tempfile.mkdtemp()
    try:
        if keras_v3_file:
            src = os.path.join(tmp, "m.keras")
            args = ["--input_format", "keras_keras", "--output_format", "tfjs_layers_model"]
        else:
            src = os.path.join(tmp, "m.h5")
            args = ["--input_format", "keras"]
        model.save(src)
        conv = os.path.join(tmp, "out")
        subprocess.run([CONVERTER, *args, src, conv], check=True, capture_output=True)
        shutil.rmtree(out_dir, ignore_errors=True)
        os.makedirs(out_dir)
        files = sorted(os.listdir(conv))
        assert files == ["group1-shard1of1.bin", "model.json"], files
        for f in files:
            shutil.copy(os.path.join(conv, f), out_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def generate(name):
    model, inputs = BUILDERS[name]()
    in_names = [t._keras_history[0].name for t in model.inputs]  # input layer names
    out_names = [t._keras_history[0].name for t in model.outputs]  # output layer names
    assert len(set(out_names)) == len(out_names), out_names
    feed = [inputs[n] for n in in_names]
    got = model(feed if len(feed) > 1 else feed[0], training=False)
    if not isinstance(got, (list, tuple)):
        got = [got]
    ref = {
        "inputs": {n: fixture_io.tensor(inputs[n]) for n in in_names},
        "outputs": {n: fixture_io.tensor(np.asarray(g)) for n, g in zip(out_names, got)},
    }
    for prefix, v3 in (("k3_", False), ("k3kk_", True)):
        out_dir = os.path.join(OUT, prefix + name)
        convert(model, out_dir, v3)
        with open(os.path.join(out_dir, "reference.json"), "w") as f:
            f.write(fixture_io.dumps(ref))
            f.write("\n")
        size = sum(os.path.getsize(os.path.join(out_dir, f)) for f in os.listdir(out_dir))
        print("%-16s %6d bytes  inputs %s  outputs %s" % (prefix + name, size, in_names,
                                                          out_names))


def main(argv):
    for n in argv or list(BUILDERS):
        keras.backend.clear_session()
        generate(n)


if __name__ == "__main__":
    main(sys.argv[1:])
