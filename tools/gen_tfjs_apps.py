"""Small stand-ins for the graph models three published TF.js packages load, with random weights
and the input/output signature each package's code expects (read from the packages' sources in
node_modules), converted SavedModel -> tensorflowjs_converter like gen_models.py. Written to
tests/fixtures/tfjs-apps/<name>/{model.json, group1-shard*.bin}; tests/js/tfjs-apps.test.mjs
loads them through each package's public API (`modelUrl`) on TF.js's CPU backend and on
eager-wasm's TF.js backend and compares what the packages return.

- mobilenet (@tensorflow-models/mobilenet 2.1.1, `load({version: 2, alpha: 1, modelUrl})`): the
  package feeds float32 [1, 224, 224, 3] in [-1, 1] to `model.predict` and drops the first of 1001
  logits. Stand-in: MobileNetV2's layer pattern (stem, inverted residual blocks with ReLU6 and
  BatchNorm, 1x1 head, global average pool, 1001-way dense) at widths of 8-48 channels.
- coco_ssd (@tensorflow-models/coco-ssd 2.2.3, `load({modelUrl})`): the package calls
  `executeAsync` on an int32 [1, H, W, 3] image (uint8 in TF) and reads output 0 as class scores
  [1, boxes, 90] and output 1 as decoded boxes [1, boxes, 1, 4] (ymin, xmin, ymax, xmax in 0..1),
  then runs its own NMS. Stand-in: as the ssdlite_mobilenet_v2 graph, a tf.map_fn preprocessor
  (resize to 300x300 per image: a v1 while loop with TensorArrays, which is why the package uses
  executeAsync), a depthwise-separable backbone, box and class heads on 10x10 and 5x5 maps (3
  anchors each, 375 boxes, 91 classes with background), sigmoid scores without the background
  column and center-size box decoding against fixed anchors.
- movenet (@tensorflow-models/pose-detection 2.1.3, MoveNet SinglePose.Lightning,
  `createDetector(MoveNet, {modelType, modelUrl})`): the package feeds int32 [1, 192, 192, 3] to
  `execute` and reads [1, 1, 17, 3] (y, x, score per keypoint, y and x in 0..1). Stand-in: a
  stride-4 backbone, 48x48 keypoint heatmaps (sigmoid) and offsets, the argmax cell per keypoint
  plus its offset.

Run: /tmp/tfenv/bin/python tools/gen_tfjs_apps.py [name ...]
"""

import json
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_models as G  # noqa: E402  (sets TF env vars before importing TF)

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

keras = G.keras
L = G.L
OUT = os.path.join(G.REPO, "tests", "fixtures", "tfjs-apps")


def build_mobilenet():
    G.seed(21)
    relu6 = lambda: L.ReLU(6.0)  # noqa: E731

    def block(h, expand, out, stride=1, residual=False, name=""):
        inp = h
        h = L.Conv2D(expand, 1, use_bias=False, name=name + "_expand")(h)
        h = L.BatchNormalization(epsilon=1e-3, name=name + "_expand_bn")(h)
        h = relu6()(h)
        h = L.DepthwiseConv2D(3, strides=stride, padding="same", use_bias=False, name=name + "_dw")(h)
        h = L.BatchNormalization(epsilon=1e-3, name=name + "_dw_bn")(h)
        h = relu6()(h)
        h = L.Conv2D(out, 1, use_bias=False, name=name + "_project")(h)
        h = L.BatchNormalization(epsilon=1e-3, name=name + "_project_bn")(h)
        if residual:
            h = L.Add(name=name + "_add")([inp, h])
        return h

    x = keras.Input((224, 224, 3), name="images")
    h = L.Conv2D(8, 3, strides=2, padding="same", use_bias=False, name="stem")(x)   # 112
    h = L.BatchNormalization(epsilon=1e-3, name="stem_bn")(h)
    h = relu6()(h)
    h = block(h, 8, 8, residual=True, name="b1")
    h = block(h, 32, 12, stride=2, name="b2")                                      # 56
    h = block(h, 48, 12, residual=True, name="b3")
    h = block(h, 48, 16, stride=2, name="b4")                                      # 28
    h = block(h, 64, 16, residual=True, name="b5")
    h = block(h, 64, 24, stride=2, name="b6")                                      # 14
    h = L.Conv2D(48, 1, use_bias=False, name="head")(h)
    h = L.BatchNormalization(epsilon=1e-3, name="head_bn")(h)
    h = relu6()(h)
    h = L.GlobalAveragePooling2D()(h)
    y = L.Dense(1001, name="logits")(h)
    m = G.randomize_biases(keras.Model(x, y), 2101)
    G._randomize_bn(m, np.random.default_rng(2102))
    # BatchNorm statistics as training would leave them (one pass over smooth test-like images):
    # with random ones the signal dies out and the features hardly depend on the image.
    calib = _calibration_images(np.random.default_rng(2104), 64)
    for layer in m.layers:
        if isinstance(layer, L.BatchNormalization):
            layer.momentum = 0.0
    m(calib, training=True)
    # Random-weight features barely vary with the image next to their mean: the dense layer gets
    # them standardized (mean and spread over smooth test-like images, as the test draws), so the
    # logits, and what the packages rank by them, depend on the image. Logits spread over a few
    # units: the top classes are far apart against float rounding.
    feats = keras.Model(x, m.get_layer("logits").input)
    f = feats.predict(calib, verbose=0)
    mu, sd = f.mean(0), f.std(0)
    print("  feature spread: min %.3g median %.3g max %.3g" % (sd.min(), np.median(sd), sd.max()))
    sd = np.maximum(sd, 0.5 * sd.mean())  # no amplified near-constant (saturated or dead) features
    k, b = m.get_layer("logits").get_weights()
    k = k * 4.0 / sd[:, None]
    m.get_layer("logits").set_weights([k, b - mu @ k])
    rng = np.random.default_rng(2103)
    return m, {"images": rng.uniform(-1, 1, size=(1, 224, 224, 3)).astype(np.float32)}


def _calibration_images(rng, n):
    """Smooth RGB patterns in [-1, 1] at 224x224 (sines of random frequency, phase and level)."""
    i = np.arange(224, dtype=np.float32)[:, None, None]
    j = np.arange(224, dtype=np.float32)[None, :, None]
    out = []
    for _ in range(n):
        fi, fj = rng.uniform(0.01, 0.08, (2, 1, 1, 3))
        pi, pj = rng.uniform(0, 6.3, (2, 1, 1, 3))
        level, amp = rng.uniform(-0.7, 0.7), rng.uniform(0.2, 0.8)
        img = level + amp * np.sin(i * fi + pi) * np.cos(j * fj + pj) + rng.normal(0, 0.05, (224, 224, 3))
        out.append(np.clip(img, -1, 1))
    return np.stack(out).astype(np.float32)


def _anchors(sizes, scales):
    """SSD anchors (ycenter, xcenter, h, w) for square feature maps of `sizes`."""
    rows = []
    for n, s in zip(sizes, scales):
        for i in range(n):
            for j in range(n):
                for aspect in (1.0, 2.0, 0.5):
                    rows.append([(i + 0.5) / n, (j + 0.5) / n, s / np.sqrt(aspect), s * np.sqrt(aspect)])
    return np.array(rows, np.float32)


# Category ids 1..90 that coco-ssd's CLASSES table leaves out (80 classes are named).
UNUSED_COCO_IDS = (12, 26, 29, 30, 45, 66, 68, 69, 71, 83)


class CocoSsd(tf.Module):
    def __init__(self):
        super().__init__()
        G.seed(22)
        rng = np.random.default_rng(2201)

        def sep(cin, cout, stride, name):
            dw = L.DepthwiseConv2D(3, strides=stride, padding="same", name=name + "_dw")
            pw = L.Conv2D(cout, 1, activation=lambda t: tf.nn.relu6(t), name=name + "_pw")
            return [dw, pw]

        inp = keras.Input((300, 300, 3))
        h = L.Conv2D(8, 3, strides=2, padding="same", activation=tf.nn.relu6, name="stem")(inp)  # 150
        for layer in sep(8, 12, 2, "s1") + sep(12, 16, 2, "s2") + sep(16, 24, 2, "s3"):            # 19
            h = layer(h)
        f1 = h
        for layer in sep(24, 24, 2, "s4"):                                                         # 10
            f1 = layer(f1)
        f2 = f1
        for layer in sep(24, 32, 2, "s5"):                                                         # 5
            f2 = layer(f2)
        # Pooled pixels beside the features: random-weight features barely vary with position,
        # and scores that vary make the package's ranking and NMS decisions clear-cut.
        f1 = L.Concatenate()([f1, L.AveragePooling2D(30)(inp)])
        f2 = L.Concatenate()([f2, L.AveragePooling2D(60)(inp)])
        boxes, classes = [], []
        for k, f in enumerate((f1, f2)):
            bx = L.Conv2D(3 * 4, 1, name="box%d" % k)(f)
            cl = L.Conv2D(3 * 91, 1, name="cls%d" % k)(f)
            boxes.append(L.Reshape((-1, 4))(bx))
            classes.append(L.Reshape((-1, 91))(cl))
        self.net = G.randomize_biases(keras.Model(inp, [L.Concatenate(1)(boxes), L.Concatenate(1)(classes)]), 2202)
        # Class logits spread over a few units: scores well apart against float rounding.
        for k in (0, 1):
            layer = self.net.get_layer("cls%d" % k)
            w, b = layer.get_weights()
            w, b = w * 12.0, b + rng.normal(0, 0.3, b.shape).astype(np.float32)
            # COCO ids without a class in the package's table (as in the real model, those
            # scores stay near zero: the package would look up a missing class name).
            for a in range(3):
                for m in UNUSED_COCO_IDS:
                    w[..., a * 91 + m] = 0.0
                    b[a * 91 + m] = -12.0
            layer.set_weights([w, b])
        self.anchors = tf.constant(_anchors((10, 5), (0.3, 0.6)))

    @tf.function(input_signature=[tf.TensorSpec([1, None, None, 3], tf.uint8, name="image_tensor")])
    def serve(self, image_tensor):
        def preprocess(img):
            img = tf.image.resize(tf.cast(img, tf.float32), [300, 300])
            return img * (2.0 / 255.0) - 1.0

        x = tf.map_fn(preprocess, image_tensor, fn_output_signature=tf.TensorSpec([300, 300, 3], tf.float32))
        enc, logits = self.net(x)
        scores = tf.sigmoid(logits)[:, :, 1:]
        a = self.anchors
        ty, tx, th, tw = tf.unstack(enc[0], axis=1)
        yc = ty / 10.0 * a[:, 2] + a[:, 0]
        xc = tx / 10.0 * a[:, 3] + a[:, 1]
        h = tf.exp(th / 5.0) * a[:, 2]
        w = tf.exp(tw / 5.0) * a[:, 3]
        decoded = tf.stack([yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2], axis=1)
        boxes = tf.expand_dims(tf.expand_dims(decoded, 0), 2)
        return {"a_scores": scores, "b_boxes": boxes}


def build_coco_ssd():
    rng = np.random.default_rng(2203)
    return CocoSsd(), {"image_tensor": rng.integers(0, 256, size=(1, 120, 160, 3)).astype(np.uint8)}


class MoveNet(tf.Module):
    def __init__(self):
        super().__init__()
        G.seed(23)
        inp = keras.Input((192, 192, 3))
        h = L.Conv2D(8, 3, strides=2, padding="same", activation=tf.nn.relu6, name="stem")(inp)  # 96
        h = L.DepthwiseConv2D(3, padding="same", name="d1")(h)
        h = L.Conv2D(16, 1, activation=tf.nn.relu6, name="p1")(h)
        h = L.DepthwiseConv2D(3, strides=2, padding="same", name="d2")(h)                          # 48
        h = L.Conv2D(24, 1, activation=tf.nn.relu6, name="p2")(h)
        heat = L.Conv2D(17, 3, padding="same", name="heatmaps")(h)
        offs = L.Conv2D(34, 3, padding="same", name="offsets")(h)
        self.net = G.randomize_biases(keras.Model(inp, [heat, offs]), 2301)
        w, b = self.net.get_layer("heatmaps").get_weights()
        self.net.get_layer("heatmaps").set_weights([w * 3.0, b])

    @tf.function(input_signature=[tf.TensorSpec([1, 192, 192, 3], tf.int32, name="input")])
    def serve(self, input):
        x = tf.cast(input, tf.float32) * (2.0 / 255.0) - 1.0
        heat, offs = self.net(x)
        n = 48
        heat = tf.reshape(tf.sigmoid(heat), [n * n, 17])
        offs = tf.reshape(offs, [n * n, 17, 2])
        idx = tf.argmax(heat, axis=0, output_type=tf.int32)                      # [17]
        kp = tf.range(17)
        at = tf.stack([idx, kp], axis=1)
        score = tf.gather_nd(heat, at)
        off = tf.gather_nd(offs, at)                                              # [17, 2]
        y = (tf.cast(idx // n, tf.float32) + 0.5 + off[:, 0] * 0.5) / n
        x_ = (tf.cast(idx % n, tf.float32) + 0.5 + off[:, 1] * 0.5) / n
        out = tf.reshape(tf.stack([y, x_, score], axis=1), [1, 1, 17, 3])
        return {"output_0": out}


def build_movenet():
    rng = np.random.default_rng(2302)
    return MoveNet(), {"input": rng.integers(0, 256, size=(1, 192, 192, 3)).astype(np.int32)}


OUTPUT_ORDER = {"coco_ssd": ["a_scores", "b_boxes"]}
MODELS = {"mobilenet": build_mobilenet, "coco_ssd": build_coco_ssd, "movenet": build_movenet}


def main(argv):
    wanted = argv or list(MODELS)
    tmp = tempfile.mkdtemp(prefix="gen_tfjs_apps_")
    try:
        for name in wanted:
            keras.backend.clear_session()  # layer names (hence node names) as when built alone
            obj, inputs = MODELS[name]()
            sdir = os.path.join(tmp, name + "_saved")
            G.save(obj, sdir)
            outs, fn = G.reference(sdir, inputs)
            cdir = os.path.join(tmp, name + "_tfjs")
            G.convert(sdir, cdir)
            dest = os.path.join(OUT, name)
            G.install(cdir, dest)
            mj = json.load(open(os.path.join(dest, "model.json")))
            if name in OUTPUT_ORDER:
                # GraphModel returns outputs in model.json's signature order; the converter's
                # order is not the package's (coco-ssd reads scores first, as in its model).
                outs_sig = mj["signature"]["outputs"]
                mj["signature"]["outputs"] = {k: outs_sig[k] for k in OUTPUT_ORDER[name]}
                with open(os.path.join(dest, "model.json"), "w") as f:
                    json.dump(mj, f, separators=(",", ":"))
            ref_in, ref_out = G.map_keys(mj, fn, inputs, outs)
            size = sum(os.path.getsize(os.path.join(dest, f)) for f in os.listdir(dest))
            print("%s: %d nodes, %d bytes, outputs %s, ops: %s" % (
                name, len(mj["modelTopology"]["node"]), size,
                {k: list(v.shape) for k, v in ref_out.items()}, " ".join(G.model_ops(mj))))
            G.check_close(name, G.tfjs_graph.run_model(dest, ref_in), ref_out, rtol=1e-4, atol=1e-5)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
