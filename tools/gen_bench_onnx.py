"""Emit the ONNX models the benchmark (bench/) runs in onnxruntime-web.

Needs only `onnx` and `numpy` (plus `onnxruntime` for the self-check), in a venv outside the repo:

    python3 -m venv /tmp/onnxenv && /tmp/onnxenv/bin/pip install onnx numpy onnxruntime
    /tmp/onnxenv/bin/python tools/gen_bench_onnx.py            # writes bench/models/*.onnx
    /tmp/onnxenv/bin/python tools/gen_bench_onnx.py --check    # + runs them in onnxruntime

Two kinds of model:

* Op models (add, matmul, conv2d, depthwise): the activation is a graph input; the weight is an
  initializer stored as ONNX *external data* (location `<name>.weights`) that the benchmark
  hands to `InferenceSession.create(..., { externalData })` from the same bytes it gives the
  other runtimes. So the files stay tiny, and ORT sees a constant weight exactly like
  eager-wasm and TF.js see a resident weight tensor (each may pre-pack it).
  Conv models use ORT's native NCHW / OIHW layout; the benchmark transposes input, filter and
  output in JS outside the timed region (documented in bench/README.md).

* Sample models (mlp, mobilenet): translated node by node from the TF.js graph model
  tests/fixtures/models/<name>/model.json + weights (the same files eager-wasm and TF.js load),
  weights embedded. Inputs and outputs keep the TF.js layout (NHWC input); the NHWC->NCHW
  transpose is the first node of the ONNX graph, as tf2onnx would emit it.
  The translation covers exactly the ops these models use:
  _FusedConv2D, FusedDepthwiseConv2dNative, _FusedMatMul (BiasAdd + Relu/Relu6), AddV2,
  Mean over H,W, Softmax, Identity. `--check` compares ORT's outputs with reference.json
  (TensorFlow's outputs).
"""

import base64
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "bench", "models")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "models")
OPSET = 13


def save(model, name):
    model.opset_import[0].version = OPSET
    model.producer_name = "eager-wasm tools/gen_bench_onnx.py"
    model.ir_version = 8
    path = os.path.join(OUT, name + ".onnx")
    onnx.save(model, path)
    return path


def external_initializer(name, shape, location):
    t = TensorProto()
    t.name = name
    t.data_type = TensorProto.FLOAT
    t.dims.extend(shape)
    t.data_location = TensorProto.EXTERNAL
    n = int(np.prod(shape)) * 4
    for k, v in (("location", location), ("offset", "0"), ("length", str(n))):
        e = t.external_data.add()
        e.key = k
        e.value = v
    return t


def vi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def op_models():
    made = {}
    # 1. add of two [1] tensors (dispatch reference: one session.run per op)
    g = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["y"])], "add1", [vi("a", [1]), vi("b", [1])], [vi("y", [1])]
    )
    made["add1"] = save(helper.make_model(g), "add1")
    # 2. matmul n^3: A input, B constant
    for n in (256, 1024):
        name = f"matmul{n}"
        g = helper.make_graph(
            [helper.make_node("MatMul", ["a", "b"], ["y"])],
            name,
            [vi("a", [n, n])],
            [vi("y", [n, n])],
            [external_initializer("b", [n, n], name + ".weights")],
        )
        made[name] = save(helper.make_model(g), name)
    # 3. conv2d [1,64,56,56] (NCHW) * [64,64,3,3] (OIHW), SAME (pads 1), stride 1
    g = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1])],
        "conv2d",
        [vi("x", [1, 64, 56, 56])],
        [vi("y", [1, 64, 56, 56])],
        [external_initializer("w", [64, 64, 3, 3], "conv2d.weights")],
    )
    made["conv2d"] = save(helper.make_model(g), "conv2d")
    # 4. depthwise 3x3 on [1,128,56,56], SAME, stride 1: grouped conv, group = C
    g = helper.make_graph(
        [
            helper.make_node(
                "Conv", ["x", "w"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1], group=128
            )
        ],
        "depthwise",
        [vi("x", [1, 128, 56, 56])],
        [vi("y", [1, 128, 56, 56])],
        [external_initializer("w", [128, 1, 3, 3], "depthwise.weights")],
    )
    made["depthwise"] = save(helper.make_model(g), "depthwise")
    return made


# ---------------------------------------------------------------- TF.js graph model -> ONNX


def attr(node, key):
    a = node.get("attr", {}).get(key)
    if a is None:
        return None
    if "list" in a:
        lst = a["list"]
        if "s" in lst:
            return [base64.b64decode(s).decode() for s in lst["s"]]
        if "i" in lst:
            return [int(i) for i in lst["i"]]
        return []
    if "s" in a:
        return base64.b64decode(a["s"]).decode()
    if "b" in a:
        return bool(a["b"])
    if "i" in a:
        return int(a["i"])
    if "f" in a:
        return float(a["f"])
    return a


def read_weights(model_dir, manifest):
    out = {}
    np_dt = {"float32": np.float32, "int32": np.int32}
    for group in manifest:
        buf = b"".join(open(os.path.join(model_dir, p), "rb").read() for p in group["paths"])
        off = 0
        for w in group["weights"]:
            if "quantization" in w:
                raise SystemExit(f"quantized weight {w['name']}: not supported here")
            dt = np_dt[w["dtype"]]
            n = int(np.prod(w["shape"])) if w["shape"] else 1
            out[w["name"]] = np.frombuffer(buf, dt, n, off).reshape(w["shape"]).copy()
            off += n * np.dtype(dt).itemsize
    return out


def tfjs_to_onnx(name):
    model_dir = os.path.join(FIXTURES, name)
    mj = json.load(open(os.path.join(model_dir, "model.json")))
    weights = read_weights(model_dir, mj["weightsManifest"])
    nodes_by_name = {n["name"]: n for n in mj["modelTopology"]["node"]}
    sig = mj["signature"]
    onnx_nodes, inits, inputs = [], [], []
    layout = {}  # tensor -> 'nchw' for 4-D activations after the entry transpose
    used_init = set()

    def clean(s):
        return s.split(":")[0].lstrip("^")

    def init(key, array):
        if key not in used_init:
            inits.append(numpy_helper.from_array(np.ascontiguousarray(array), key))
            used_init.add(key)
        return key

    def const(nm):
        return weights[clean(nm)]

    def act(out, fused, base):
        """fused_ops[1:] as ONNX nodes after `base`; returns the final name."""
        rest = fused[1:]
        if not rest:
            return base
        if rest == ["Relu"]:
            onnx_nodes.append(helper.make_node("Relu", [base], [out]))
        elif rest == ["Relu6"]:
            lo = init("zero_f", np.array(0, np.float32))
            hi = init("six_f", np.array(6, np.float32))
            onnx_nodes.append(helper.make_node("Clip", [base, lo, hi], [out]))
        else:
            raise SystemExit(f"{name}: fused_ops {fused} not supported")
        return out

    for n in mj["modelTopology"]["node"]:
        op, nm = n["op"], n["name"]
        ins = [clean(i) for i in n.get("input", []) if not i.startswith("^")]
        if op == "Const":
            continue
        if op == "Placeholder":
            shape = [d.get("size", "-1") for d in attr(n, "shape")["shape"]["dim"]]
            shape = ["N" if int(s) < 0 else int(s) for s in shape]
            inputs.append(vi(nm, shape))
            if len(shape) == 4:
                onnx_nodes.append(helper.make_node("Transpose", [nm], [nm + "__nchw"], perm=[0, 3, 1, 2]))
                layout[nm] = nm + "__nchw"
            continue

        def src(i):
            return layout.get(i, i)

        if op in ("_FusedConv2D", "FusedDepthwiseConv2dNative"):
            fused = attr(n, "fused_ops")
            if fused[0] != "BiasAdd" or attr(n, "num_args") != 1:
                raise SystemExit(f"{name}/{nm}: fused {fused} not supported")
            if attr(n, "data_format") not in (None, "NHWC"):
                raise SystemExit(f"{name}/{nm}: data_format")
            s = attr(n, "strides")
            d = attr(n, "dilations") or [1, 1, 1, 1]
            pad = attr(n, "padding")
            w = const(ins[1])  # HWIO or [kh,kw,C,mult]
            kh, kw = w.shape[0], w.shape[1]
            kw_ = dict(kernel_shape=[kh, kw], strides=[s[1], s[2]], dilations=[d[1], d[2]])
            if pad == "SAME":
                kw_["auto_pad"] = "SAME_UPPER"  # TF SAME: the odd pad at the end
            elif pad == "VALID":
                kw_["pads"] = [0, 0, 0, 0]
            else:
                raise SystemExit(f"{name}/{nm}: padding {pad}")
            if op == "_FusedConv2D":
                w_onnx = w.transpose(3, 2, 0, 1)  # HWIO -> OIHW
            else:
                c, mult = w.shape[2], w.shape[3]
                w_onnx = w.transpose(2, 3, 0, 1).reshape(c * mult, 1, kh, kw)
                kw_["group"] = int(c)
            wn = init(ins[1] + "__onnx", w_onnx)
            bn = init(ins[2], const(ins[2]))
            out = nm + "__nchw"
            base = out if len(fused) == 1 else nm + "__pre"
            onnx_nodes.append(helper.make_node("Conv", [src(ins[0]), wn, bn], [base], **kw_))
            act(out, fused, base)
            layout[nm] = out
        elif op == "_FusedMatMul":
            fused = attr(n, "fused_ops")
            if fused[0] != "BiasAdd" or attr(n, "num_args") != 1:
                raise SystemExit(f"{name}/{nm}: fused {fused} not supported")
            a_in = src(ins[0])
            if ins[0] in layout:
                raise SystemExit(f"{name}/{nm}: matmul of a 4-D activation")
            wn = init(ins[1], const(ins[1]))
            bn = init(ins[2], const(ins[2]))
            base = nm if len(fused) == 1 else nm + "__pre"
            onnx_nodes.append(
                helper.make_node(
                    "Gemm",
                    [a_in, wn, bn],
                    [base],
                    transA=int(bool(attr(n, "transpose_a"))),
                    transB=int(bool(attr(n, "transpose_b"))),
                )
            )
            act(nm, fused, base)
        elif op == "AddV2":
            a, b = ins
            if (a in layout) != (b in layout):
                raise SystemExit(f"{name}/{nm}: AddV2 of mixed layouts")
            if a in layout:
                onnx_nodes.append(helper.make_node("Add", [src(a), src(b)], [nm + "__nchw"]))
                layout[nm] = nm + "__nchw"
            else:
                onnx_nodes.append(helper.make_node("Add", [a, b], [nm]))
        elif op == "Mean":
            axes = [int(v) for v in const(ins[1]).reshape(-1)]
            if ins[0] not in layout or sorted(axes) != [1, 2] or attr(n, "keep_dims"):
                raise SystemExit(f"{name}/{nm}: Mean over {axes} not supported")
            onnx_nodes.append(helper.make_node("ReduceMean", [src(ins[0])], [nm], axes=[2, 3], keepdims=0))
        elif op == "Softmax":
            onnx_nodes.append(helper.make_node("Softmax", [src(ins[0])], [nm], axis=-1))
        elif op == "Identity":
            if ins[0] in layout:
                raise SystemExit(f"{name}/{nm}: 4-D Identity")
            onnx_nodes.append(helper.make_node("Identity", [ins[0]], [nm]))
        else:
            raise SystemExit(f"{name}: op {op} not supported by this translator")

    outputs = []
    rename = []
    for key, o in sig["outputs"].items():
        t = clean(o["name"])
        shape = ["N" if int(d.get("size", "-1")) < 0 else int(d["size"]) for d in o["tensorShape"]["dim"]]
        # graph output named like the TF.js signature key ('y')
        rename.append(helper.make_node("Identity", [t], [key]))
        outputs.append(vi(key, shape))
    # graph input named like the signature key ('x')
    in_map = {clean(v["name"]): k for k, v in sig["inputs"].items()}
    for node in onnx_nodes:
        for i, x in enumerate(node.input):
            if x in in_map:
                node.input[i] = in_map[x]
    for v in inputs:
        v.name = in_map.get(v.name, v.name)
    g = helper.make_graph(onnx_nodes + rename, name, inputs, outputs, inits)
    m = helper.make_model(g)
    m.opset_import[0].version = OPSET
    onnx.checker.check_model(m)
    assert nodes_by_name  # keep linters quiet about the unused map
    return save(m, name)


def check(made):
    import onnxruntime as ort

    for name in ("mlp", "mobilenet"):
        ref = json.load(open(os.path.join(FIXTURES, name, "reference.json")))
        sess = ort.InferenceSession(made[name], providers=["CPUExecutionProvider"])
        feeds = {
            k: np.array(v["data"], np.float32).reshape(v["shape"]) for k, v in ref["inputs"].items()
        }
        got = sess.run(None, feeds)
        want = np.array(ref["outputs"]["y"]["data"], np.float32).reshape(ref["outputs"]["y"]["shape"])
        err = float(np.max(np.abs(got[0] - want)))
        print(f"check {name}: max |ort - tf| = {err:.3g}")
        assert err < 1e-4, name
    # op models: with random weights written next to them for the check only
    rng = np.random.default_rng(0)
    import tempfile
    import shutil

    tmp = tempfile.mkdtemp()
    try:
        for name, wshape, xshape in (
            ("matmul256", (256, 256), (256, 256)),
            ("conv2d", (64, 64, 3, 3), (1, 64, 56, 56)),
            ("depthwise", (128, 1, 3, 3), (1, 128, 56, 56)),
        ):
            w = rng.standard_normal(wshape).astype(np.float32)
            shutil.copy(made[name], tmp)
            w.tofile(os.path.join(tmp, name + ".weights"))
            sess = ort.InferenceSession(os.path.join(tmp, name + ".onnx"), providers=["CPUExecutionProvider"])
            x = rng.standard_normal(xshape).astype(np.float32)
            y = sess.run(None, {sess.get_inputs()[0].name: x})[0]
            if name == "matmul256":
                print(f"check {name}: max |ort - numpy| = {float(np.max(np.abs(y - x @ w))):.3g}")
            else:  # conv outputs are compared with eager-wasm / TF.js by the benchmark itself
                print(f"check {name}: runs, output {y.shape}")
    finally:
        shutil.rmtree(tmp)


def main():
    os.makedirs(OUT, exist_ok=True)
    made = op_models()
    made["mlp"] = tfjs_to_onnx("mlp")
    made["mobilenet"] = tfjs_to_onnx("mobilenet")
    total = 0
    for k, p in sorted(made.items()):
        sz = os.path.getsize(p)
        total += sz
        print(f"{os.path.relpath(p, ROOT)}: {sz} bytes")
    print(f"total {total} bytes")
    if "--check" in sys.argv:
        check(made)


if __name__ == "__main__":
    main()
