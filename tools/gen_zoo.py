#!/usr/bin/env python3
"""The benchmark's model zoo: real architectures with random (seeded) weights, converted with the
real tensorflowjs_converter, each with TF's output on a fixed seeded input.

    /tmp/tfenv/bin/python tools/gen_zoo.py [name ...]      # all by default (~5 min)
    /tmp/tfenv/bin/python tools/gen_zoo.py --fixtures      # only the committed small fixtures
    /tmp/tfenv/bin/python tools/gen_zoo.py --no-onnx ...   # without the ONNX conversions

Zoo models go to bench/models/zoo/<name>/{model.json, group1-shard*.bin, reference.json}
(gitignored: up to 100 MB); `npm run bench` runs each one present. The three small hand-built
architectures are also written at a smaller input size to tests/fixtures/models/zoo_<name>/ (the
committed fixtures the Rust tests check; a full-size reference input would be MBs of JSON).

Pipeline as tools/gen_models.py (whose helpers this imports): Keras model -> SavedModel ->
tensorflowjs_converter (tf_saved_model -> tfjs_graph_model), reference from the SavedModel's
serving signature, and the converted graph re-run in TF (tools/tfjs_graph.py) must agree.
Inputs are seeded normals rounded to multiples of 1/8 (short decimals in the JSON, exact in f32).

The GRU (a text classifier whose recurrences are real while loops) is converted in both control-flow
lowerings, as tools/gen_control_flow_models.py does: `<name>/` (v1: Switch/Merge/Enter/Exit) and
`<name>_v2/` (`--control_flow_v2=True`: functional While); only v1 is re-run in TF.

Every zoo model is also converted to ONNX with tf2onnx (`pip install tf2onnx onnx onnxruntime` into
the venv) into `<dir>/model.onnx`, run in onnxruntime on the same input and kept only if it agrees
with TF (the benchmark runs it in onnxruntime-web); a model tf2onnx cannot convert gets none.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_models as G  # noqa: E402  (sets TF env vars before importing TF)

np, tf, keras, L = G.np, G.tf, G.keras, G.L

ZOO = os.path.join(G.REPO, "bench", "models", "zoo")


def image_input(size, seed_, channels=3):
    rng = np.random.default_rng(seed_)
    x = rng.normal(size=(1, size, size, channels))
    return (np.clip(np.round(x * 8), -16, 16) / 8).astype(np.float32)


def randomize(model, seed_):
    """Non-trivial biases and BatchNorm statistics (Keras starts them at 0/1)."""
    G.randomize_biases(model, seed_)
    G._randomize_bn(model, np.random.default_rng(seed_ + 1))
    return model


# ------------------------------------------------------------------ Keras applications


def application(ctor, size=224, **kw):
    def build():
        G.seed(7)
        m = ctor(input_shape=(size, size, 3), weights=None, classifier_activation=None, **kw)
        return randomize(m, 17), {m.input_names[0]: image_input(size, 27)}
    return build


# ------------------------------------------------------------------ hand-built (MediaPipe style)


def pad_channels(h, c):
    extra = c - h.shape[-1]
    if extra == 0:
        return h
    return L.Lambda(lambda t: tf.pad(t, [[0, 0], [0, 0], [0, 0], [0, extra]]))(h)


def blaze_block(h, out, stride=1, act=None):
    """Depthwise 5x5 -> 1x1 conv, + shortcut (max-pooled when strided, channels zero-padded)."""
    act = act or (lambda: L.ReLU())
    short = h
    if stride == 2:
        # TF pads SAME asymmetrically; BlazeFace pads explicitly then convolves VALID.
        h = L.ZeroPadding2D(((1, 2), (1, 2)))(h)
        h = L.DepthwiseConv2D(5, strides=2, padding="valid")(h)
        short = L.MaxPooling2D(2)(short)
    else:
        h = L.DepthwiseConv2D(5, padding="same")(h)
    h = L.Conv2D(out, 1)(h)
    h = L.Add()([h, pad_channels(short, out)])
    return act()(h)


def build_blazeface(size=128):
    """BlazeFace-style detector: 5x5 depthwise blocks with residual adds, heads at size/8 (2
    anchors per cell) and size/16 (6 anchors): 16 box/keypoint regressors and a score each."""
    G.seed(31)
    x = keras.Input((size, size, 3), name="x")
    h = L.Conv2D(16, 5, strides=2, padding="same", activation="relu")(x)   # size/2
    for c in (16, 20, 24):
        h = blaze_block(h, c)
    h = blaze_block(h, 32, 2)                                              # size/4
    for c in (36, 40):
        h = blaze_block(h, c)
    h = blaze_block(h, 48, 2)                                              # size/8
    for c in (52, 56):
        h = blaze_block(h, c)
    f1 = h
    h = blaze_block(h, 64, 2)                                              # size/16
    for _ in range(3):
        h = blaze_block(h, 64)
    f2 = h
    regs, scores = [], []
    for f, anchors in ((f1, 2), (f2, 6)):
        cells = f.shape[1] * f.shape[2] * anchors
        regs.append(L.Reshape((cells, 16))(L.Conv2D(16 * anchors, 1)(f)))
        scores.append(L.Reshape((cells, 1))(L.Conv2D(anchors, 1)(f)))
    boxes = L.Concatenate(axis=1, name="boxes")(regs)
    score = L.Activation("sigmoid", name="scores")(L.Concatenate(axis=1)(scores))
    m = randomize(keras.Model(x, [boxes, score]), 131)
    return m, {"x": image_input(size, 231)}


def build_landmarks(size=192):
    """Face-landmark-style regressor: PReLU, 5x5 depthwise residual blocks down to 3x3, then 68
    (x, y, z) landmarks and a sigmoid presence score from 1x1 convs."""
    G.seed(32)
    prelu = lambda: L.PReLU(shared_axes=[1, 2])  # noqa: E731
    x = keras.Input((size, size, 3), name="x")
    h = L.Conv2D(16, 3, strides=2, padding="same")(x)
    h = prelu()(h)
    widths = [24, 32, 40, 48, 64]
    stages = int(round(np.log2(size / 6)))   # stride-2 stages down to 3x3
    for c in widths[len(widths) - stages:]:
        h = blaze_block(h, h.shape[-1], act=prelu)
        h = blaze_block(h, c, 2, act=prelu)
    h = blaze_block(h, h.shape[-1], act=prelu)
    h = L.Conv2D(32, 3, padding="valid")(h)                                # 1x1x32
    h = prelu()(h)
    pts = L.Reshape((68 * 3,), name="landmarks")(L.Conv2D(68 * 3, 1)(h))
    flag = L.Reshape((1,), name="presence")(L.Conv2D(1, 1, activation="sigmoid")(h))
    m = randomize(keras.Model(x, [pts, flag]), 132)
    return m, {"x": image_input(size, 232)}


def build_unet(size=128):
    """U-Net-style segmenter: conv + depthwise encoder with max pooling, Conv2DTranspose decoder
    concatenated with the skips, sigmoid mask at full resolution."""
    G.seed(33)
    x = keras.Input((size, size, 3), name="x")

    def enc(h, c):
        h = L.Conv2D(c, 3, padding="same", activation="relu")(h)
        h = L.DepthwiseConv2D(3, padding="same")(h)
        return L.Conv2D(c, 1, activation="relu")(h)

    e1 = enc(x, 16)                                                        # size
    e2 = enc(L.MaxPooling2D(2)(e1), 24)                                    # size/2
    e3 = enc(L.MaxPooling2D(2)(e2), 32)                                    # size/4
    b = enc(L.MaxPooling2D(2)(e3), 40)                                     # size/8
    h = b
    for skip, c in ((e3, 32), (e2, 24), (e1, 16)):
        h = L.Conv2DTranspose(c, 2, strides=2, activation="relu")(h)
        h = enc(L.Concatenate()([h, skip]), c)
    y = L.Conv2D(1, 1, activation="sigmoid", name="mask")(h)
    m = randomize(keras.Model(x, y), 133)
    return m, {"x": image_input(size, 233)}


def build_gru(seq=32, vocab=2000, dim=64, units=96, classes=8, batch=1):
    """GRU text classifier: token ids -> Embedding -> GRU (all steps) -> GRU -> Dense logits. Both
    GRUs are `unroll=False`: each recurrence is a while loop over the time steps."""
    G.seed(34)
    # Named layers: node names don't depend on what else the process built before.
    x = keras.Input((seq,), dtype="int32", name="x")
    h = L.Embedding(vocab, dim, name="embedding")(x)
    h = L.GRU(units, return_sequences=True, name="gru_steps")(h)
    h = L.GRU(units, name="gru_last")(h)
    y = L.Dense(classes, name="y")(h)
    m = randomize(keras.Model(x, y, name="gru_text"), 134)
    rng = np.random.default_rng(234)
    return m, {"x": rng.integers(0, vocab, size=(batch, seq)).astype(np.int32)}


# ------------------------------------------------------------------ shapes of published models that were slower than TF.js


def conv_bn_relu(h, c, k=3, padding="valid", strides=1):
    """Conv2D + BatchNormalization + ReLU: the converter folds the BN and the ReLU into one
    `_FusedConv2D` (BiasAdd, Relu)."""
    h = L.Conv2D(c, k, strides=strides, padding=padding)(h)
    return L.ReLU()(L.BatchNormalization()(h))


def build_age_cnn(size=64):
    """Small-input age/gender CNN: 3x3 VALID conv + BN + ReLU stacks of 16 and 32 channels (two of
    them 32 -> 32 with 62x62 and 29x29 outputs), max pooling, 1x1 conv heads (softmax over 101
    ages, 2 gender logits); one dead (denormal-scaled) channel per BatchNormalization, as trained
    models have."""
    G.seed(35)
    x = keras.Input((size, size, 3), name="x")
    h = conv_bn_relu(x, 16, padding="same")                                # 64x64x16
    h = conv_bn_relu(h, 32, padding="same")                                # 64x64x32
    h = conv_bn_relu(h, 32)                                                # 62x62x32
    h = L.MaxPooling2D(2)(h)                                               # 31
    h = conv_bn_relu(h, 32)                                                # 29x29x32
    h = L.MaxPooling2D(2)(h)                                               # 14
    h = conv_bn_relu(h, 32)                                                # 12x12x32
    h = conv_bn_relu(h, 64, k=1)
    h = L.Reshape((1, 1, 64))(L.GlobalAveragePooling2D()(h))
    age = L.Reshape((101,))(L.Conv2D(101, 1)(h))
    age = L.Softmax(name="age")(age)
    gender = L.Reshape((2,), name="gender")(L.Conv2D(2, 1)(h))
    m = randomize(keras.Model(x, [age, gender]), 135)
    dead_channels(m)
    return m, {"x": image_input(size, 235)}


def dead_channels(model, gamma=1e-39):
    """As training with weight decay leaves them: one channel per BatchNormalization whose scale
    has decayed to a denormal. The converter folds it into the conv's filter (in numpy: the
    folded weights stay denormal), TF computes with them flushed to zero (its CPU executor runs
    ops with denormals flushed), and a runtime that multiplies them as they are pays x86's
    ~100-cycle denormal assists on every product with them (7-15x slower convs in a published model)."""
    for layer in model.layers:
        if isinstance(layer, L.BatchNormalization):
            w = layer.get_weights()
            w[0][len(w[0]) // 2] = np.float32(gamma)
            layer.set_weights(w)


def sep_block(h, c, stride=1):
    """Depthwise 3x3 + BN + ReLU, then 1x1 conv + BN + ReLU."""
    h = L.DepthwiseConv2D(3, strides=stride, padding="same")(h)
    h = L.ReLU()(L.BatchNormalization()(h))
    return conv_bn_relu(h, c, k=1)


def build_centernet(size=512, classes=80, k=100):
    """CenterNet-style detector: a small stride-4 backbone, a [1, size/4, size/4, classes] sigmoid
    heatmap, size and offset heads; decoded in the graph as the published models do: peaks where
    the heatmap equals its 3x3 max pool (`Equal`), `TopKV2` k=100 over the flattened heatmap,
    class / cell from the indices, the two heads gathered at the cells."""
    G.seed(36)
    x = keras.Input((size, size, 3), name="x")
    h = conv_bn_relu(x, 16, padding="same", strides=2)                     # size/2
    h = sep_block(h, 32, 2)                                                # size/4
    for _ in range(2):
        h = sep_block(h, 32)
    heat = L.Conv2D(classes, 1, activation="sigmoid")(h)
    wh = L.Conv2D(2, 1)(h)
    off = L.Conv2D(2, 1)(h)
    cells = (size // 4) ** 2
    fw = size // 4

    def decode(t):
        heat, wh, off = t
        peak = tf.nn.max_pool2d(heat, 3, 1, "SAME")
        heat = heat * tf.cast(tf.equal(heat, peak), tf.float32)
        scores, idx = tf.math.top_k(tf.reshape(heat, [1, cells * classes]), k=k)
        cls = idx % classes
        cell = idx // classes
        ys = tf.cast(cell // fw, tf.float32)
        xs = tf.cast(cell % fw, tf.float32)
        wh = tf.gather(tf.reshape(wh, [1, cells, 2]), cell, axis=1, batch_dims=1)
        off = tf.gather(tf.reshape(off, [1, cells, 2]), cell, axis=1, batch_dims=1)
        cy, cx = ys + off[..., 0], xs + off[..., 1]
        boxes = tf.stack([cy - wh[..., 0] / 2, cx - wh[..., 1] / 2,
                          cy + wh[..., 0] / 2, cx + wh[..., 1] / 2], axis=-1)
        return scores, boxes, tf.cast(cls, tf.float32)

    scores, boxes, cls = L.Lambda(decode)([heat, wh, off])
    outs = [L.Activation("linear", name=n)(t) for n, t in
            (("scores", scores), ("boxes", boxes), ("classes", cls))]
    m = randomize(keras.Model(x, outs), 136)
    return m, {"x": image_input(size, 236)}


def build_movenet(size=192, joints=17):
    """MoveNet-style single-pose model: int32 image, cast and normalised by broadcast Sub/Mul, a
    stride-4 backbone, [48, 48, 17] keypoint heatmaps, a center heatmap and regression / offset
    heads, decoded in the graph: center weighted by its distance to the image center (Sqrt),
    keypoints regressed from it, each heatmap weighted by the distance to its regressed keypoint
    (Sqrt over [48, 48, 17]), argmax, offsets gathered."""
    G.seed(37)
    x = keras.Input((size, size, 3), dtype="int32", name="x")
    fw = size // 4
    mean = np.array([127.5, 127.0, 126.5], np.float32)
    scale = np.array([1 / 127.5, 1 / 128.0, 1 / 127.0], np.float32)
    h = L.Lambda(lambda t: (tf.cast(t, tf.float32) - mean) * scale)(x)
    h = conv_bn_relu(h, 16, padding="same", strides=2)                     # 96
    h = sep_block(h, 24, 2)                                                # 48
    for _ in range(2):
        h = sep_block(h, 32)
    heat = L.Conv2D(joints, 1, activation="sigmoid")(h)
    center = L.Conv2D(1, 1, activation="sigmoid")(h)
    regress = L.Conv2D(2 * joints, 1)(h)
    offset = L.Conv2D(2 * joints, 1)(h)

    def decode(t):
        heat, center, regress, offset = t
        grid = tf.range(fw, dtype=tf.float32)
        gy = tf.reshape(grid, [fw, 1, 1])
        gx = tf.reshape(grid, [1, fw, 1])
        c = (fw - 1) / 2.0
        dist_c = tf.sqrt(tf.square(gy - c) + tf.square(gx - c))              # [48,48,1]
        weighted = center[0] / (dist_c + 1.0)
        ci = tf.argmax(tf.reshape(weighted, [-1]), output_type=tf.int32)
        cy, cx = ci // fw, ci % fw
        reg = tf.reshape(regress[0, cy, cx], [joints, 2])
        ky = tf.cast(cy, tf.float32) + reg[:, 0]                            # [17]
        kx = tf.cast(cx, tf.float32) + reg[:, 1]
        dist = tf.sqrt(tf.square(gy - ky) + tf.square(gx - kx))             # [48,48,17]
        score_map = heat[0] / (dist + 1.8)
        ki = tf.argmax(tf.reshape(score_map, [fw * fw, joints]), axis=0, output_type=tf.int32)
        ys, xs = ki // fw, ki % fw
        j = tf.range(joints)
        scores = tf.gather_nd(heat[0], tf.stack([ys, xs, j], axis=-1))        # [17]
        oy = tf.gather_nd(offset[0], tf.stack([ys, xs, 2 * j], axis=-1))
        ox = tf.gather_nd(offset[0], tf.stack([ys, xs, 2 * j + 1], axis=-1))
        py = (tf.cast(ys, tf.float32) + oy) / fw
        px = (tf.cast(xs, tf.float32) + ox) / fw
        return tf.stack([py, px, scores], axis=-1)[None]                    # [1,17,3]

    kp = L.Lambda(decode, name="keypoints")([heat, center, regress, offset])
    m = randomize(keras.Model(x, kp), 137)
    rng = np.random.default_rng(237)
    return m, {"x": rng.integers(0, 256, size=(1, size, size, 3)).astype(np.int32)}


def build_mobilefacenet(size=112, emb=128):
    """MobileFaceNet-style face embedder: PReLU everywhere, depthwise 3x3, linear bottlenecks
    (expand 1x1 + PReLU, depthwise + PReLU, project 1x1 linear, residual), a 1x1 conv to 512, the
    global depthwise conv (7x7 VALID over the last 7x7 map), a 1x1 linear embedding + BN."""
    G.seed(38)

    def prelu(h):
        return L.PReLU(shared_axes=[1, 2])(h)

    def conv(h, c, k=1, strides=1, act=True):
        h = L.BatchNormalization()(L.Conv2D(c, k, strides=strides, padding="same", use_bias=False)(h))
        return prelu(h) if act else h

    def dw(h, strides=1, k=3, padding="same", act=True):
        h = L.DepthwiseConv2D(k, strides=strides, padding=padding, use_bias=False)(h)
        h = L.BatchNormalization()(h)
        return prelu(h) if act else h

    def bottleneck(h, c, expand, strides):
        short = h
        y = conv(h, h.shape[-1] * expand)
        y = dw(y, strides)
        y = conv(y, c, act=False)
        if strides == 1 and short.shape[-1] == c:
            y = L.Add()([y, short])
        return y

    x = keras.Input((size, size, 3), name="x")
    h = conv(x, 64, 3, 2)                                                  # 56
    h = dw(h)
    for c, t, n, s in ((64, 2, 3, 2), (128, 4, 1, 2), (128, 2, 3, 1), (128, 4, 1, 2),
                       (128, 2, 2, 1)):
        for i in range(n):
            h = bottleneck(h, c, t, s if i == 0 else 1)                    # 28, 14, 7
    h = conv(h, 512)
    h = dw(h, k=h.shape[1], padding="valid", act=False)                    # global depthwise
    h = L.BatchNormalization()(L.Conv2D(emb, 1, use_bias=False)(h))
    y = L.Reshape((emb,), name="embedding")(h)
    m = randomize(keras.Model(x, y), 138)
    return m, {"x": image_input(size, 238)}


def _apps():
    A = keras.applications
    return {
        "mobilenet_v2": application(A.MobileNetV2),
        "mobilenet_v3_small": application(A.MobileNetV3Small),
        "mobilenet_v3_large": application(A.MobileNetV3Large),
        "efficientnet_b0": application(A.EfficientNetB0),
        "resnet50": application(A.ResNet50),
    }


SMALL = {
    "blazeface": (build_blazeface, 128, 64),
    "landmarks": (build_landmarks, 192, 96),
    "unet": (build_unet, 128, 64),
}
# Hand-built models without a fixture of their own.
MORE = {
    "blazeface_256": lambda: build_blazeface(256),
    "age_cnn": build_age_cnn,
    "centernet_512": build_centernet,
    "movenet_192": build_movenet,
    "mobilefacenet_112": build_mobilefacenet,
}
# Control-flow models: (zoo build, fixture build), each written in both lowerings.
LOOPS = {
    "gru": (build_gru, lambda: build_gru(seq=7, vocab=50, dim=6, units=10, classes=3, batch=2)),
}
LOWERINGS = (("", []), ("_v2", ["--control_flow_v2=True"]))


def generate(name, build, dest, tmp, onnx=False, lowerings=LOWERINGS[:1]):
    """Builds, saves and converts one model into `dest` + suffix per lowering; returns the weight
    bytes of the last conversion."""
    obj, inputs = build()
    sdir = os.path.join(tmp, name + "_saved")
    G.save(obj, sdir)
    outs, fn = G.reference(sdir, inputs)
    for suffix, extra in lowerings:
        cdir = os.path.join(tmp, name + suffix + "_tfjs")
        G.convert(sdir, cdir, extra)
        to = dest + suffix
        G.install(cdir, to)
        mj = json.load(open(os.path.join(to, "model.json")))
        ref_in, ref_out = G.map_keys(mj, fn, inputs, outs)
        G.write_reference(os.path.join(to, "reference.json"), ref_in, ref_out)
        size = sum(os.path.getsize(os.path.join(to, p)) for g in mj["weightsManifest"] for p in g["paths"])
        print("%s: %d nodes, %d weight bytes, ops: %s" % (
            name + suffix, len(mj["modelTopology"]["node"]), size, " ".join(G.model_ops(mj))), flush=True)
        if not mj["modelTopology"].get("library", {}).get("function"):
            G.check_close(name, G.tfjs_graph.run_model(to, ref_in), ref_out, rtol=1e-4, atol=1e-5)
        if onnx:
            to_onnx(sdir, to, ref_in, ref_out, tmp)
    return size


def to_onnx(sdir, dest, ref_in, ref_out, tmp):
    """tf2onnx's conversion of the SavedModel into dest/model.onnx, kept if onnxruntime's outputs
    match TF's (inputs and outputs named by the model.json signature keys, as tf2onnx names them
    after the SavedModel signature)."""
    path = os.path.join(dest, "model.onnx")
    if os.path.exists(path):
        os.remove(path)
    out = os.path.join(tmp, "model.onnx")
    env = dict(os.environ, TF_ENABLE_ONEDNN_OPTS="0", TF_CPP_MIN_LOG_LEVEL="2")
    cmd = [sys.executable, "-m", "tf2onnx.convert", "--saved-model", sdir, "--output", out,
           "--opset", "17"]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        tail = (r.stdout + r.stderr).strip().splitlines()[-3:]
        print("  tf2onnx failed, no ONNX: %s" % " | ".join(tail), flush=True)
        return
    import onnxruntime
    sess = onnxruntime.InferenceSession(out, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    missing = [k for k in ref_out if k not in names]
    if missing or {i.name for i in sess.get_inputs()} != set(ref_in):
        print("  ONNX names %s / %s do not match the signature keys: no ONNX" % (
            [i.name for i in sess.get_inputs()], names), flush=True)
        return
    got = dict(zip(names, sess.run(None, dict(ref_in))))
    G.check_close(dest + " (onnxruntime)", got, ref_out, rtol=1e-4, atol=1e-5)
    shutil.copy(out, path)
    print("  ONNX: %d bytes, matches TF in onnxruntime" % os.path.getsize(path), flush=True)


def main(argv):
    fixtures_only = "--fixtures" in argv
    onnx = "--no-onnx" not in argv
    names = [a for a in argv if not a.startswith("--")]
    apps = _apps()
    everything = list(SMALL) + list(LOOPS) + list(MORE) + list(apps)
    wanted = names or (list(SMALL) + list(LOOPS) if fixtures_only else everything)
    unknown = [n for n in wanted if n not in everything]
    if unknown:
        raise SystemExit("unknown model(s) %s; known: %s" % (unknown, " ".join(everything)))
    tmp = tempfile.mkdtemp(prefix="gen_zoo_")
    try:
        for name in wanted:
            if name in SMALL or name in LOOPS:
                if name in SMALL:
                    build, size, fixture_size = SMALL[name]
                    small, full, forms = (lambda: build(fixture_size)), (lambda: build(size)), LOWERINGS[:1]
                else:
                    (full, small), forms = LOOPS[name], LOWERINGS
                n = generate("zoo_" + name, small, os.path.join(G.OUT, "zoo_" + name), tmp,
                             lowerings=forms)
                # Committed, single shard (tests/common embeds group1-shard1of1.bin).
                assert n < 300_000, ("fixture too large", name, n)
                if fixtures_only:
                    continue
                generate(name, full, os.path.join(ZOO, name), tmp, onnx, forms)
            else:
                build = MORE.get(name) or apps[name]
                generate(name, build, os.path.join(ZOO, name), tmp, onnx)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    G.write_coverage()


if __name__ == "__main__":
    main(sys.argv[1:])
