"""Load a TF.js graph model (model.json + weight shards) and run it in TensorFlow.

Used by gen_models.py to
  * cross-check every converted model against the SavedModel it came from, and
  * compute reference_dequantized.json for quantized models, i.e. the outputs of
    the converted graph when its weights are dequantized exactly like TF.js does.

Weights are decoded like tfjs-core's io_utils.decodeWeights:
  * shards of one manifest group are concatenated in `paths` order, weights
    follow each other in `weights` order;
  * uint8/uint16 quantized float32: value = q * scale + min, computed in float64
    (JS numbers) and stored into a Float32Array (round to nearest float32);
  * float16 quantized float32: exact float16 -> float32 conversion.

TF.js-only ops (and fused ops whose fused_ops TF's CPU kernels do not take) are
rewritten into plain TF ops before the graph is imported:
  _FusedMatMul(a, b, args)             -> MatMul  -> AddV2(args[0]) -> activation
  _FusedConv2D(x, w, args)             -> Conv2D  -> AddV2(args[0]) -> activation
  FusedDepthwiseConv2dNative(x, w, ..) -> DepthwiseConv2dNative -> AddV2 -> act
  Prelu(x, alpha)                      -> Relu(x) + alpha * Minimum(x, 0)
Activation is fused_ops[1]; Prelu takes its alpha from args[1], LeakyRelu from
the leakyrelu_alpha attr.  The graph then runs in a v1 Session with grappler
switched off, so it executes exactly the nodes written in model.json.
"""

import base64
import json
import os

import numpy as np

os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
import tensorflow as tf  # noqa: E402
from google.protobuf import json_format  # noqa: E402
from tensorflow.core.framework import graph_pb2, node_def_pb2  # noqa: E402

_DTYPES = {
    "float32": np.float32,
    "int32": np.int32,
    "bool": np.bool_,
    "int64": np.int64,
    # Interleaved (re, im) float32s, numpy's own complex64 layout.
    "complex64": np.complex64,
}
_QDTYPES = {"uint8": np.uint8, "uint16": np.uint16, "float16": np.float16}


def load_weights(model_dir, model_json):
    """Returns {weight name: np.ndarray} decoded as TF.js would decode them."""
    out = {}
    for group in model_json["weightsManifest"]:
        buf = b"".join(
            open(os.path.join(model_dir, p), "rb").read() for p in group["paths"]
        )
        off = 0
        for w in group["weights"]:
            shape = [int(d) for d in w["shape"]]
            n = int(np.prod(shape)) if shape else 1
            q = w.get("quantization")
            dtype = w["dtype"]
            if q is None:
                npdt = np.dtype(_DTYPES[dtype])
                arr = np.frombuffer(buf, dtype=npdt, count=n, offset=off)
                off += n * npdt.itemsize
            else:
                qdt = np.dtype(_QDTYPES[q["dtype"]])
                raw = np.frombuffer(buf, dtype=qdt, count=n, offset=off)
                off += n * qdt.itemsize
                if q["dtype"] in ("uint8", "uint16"):
                    v = raw.astype(np.float64) * float(q["scale"]) + float(q["min"])
                    if dtype == "int32":
                        arr = np.round(v).astype(np.int32)  # Math.round; no ties here
                    else:
                        arr = v.astype(np.float32)
                else:
                    arr = raw.astype(np.float32)
            out[w["name"]] = np.array(arr).reshape(shape)
        assert off == len(buf), (off, len(buf))
    return out


def _s(attr):
    return base64.b64decode(attr["s"]).decode()


def _fused_ops(node):
    return [base64.b64decode(s).decode() for s in node["attr"]["fused_ops"]["list"].get("s", [])]


def _mk(name, op, inputs, attrs):
    return {"name": name, "op": op, "input": list(inputs), "attr": attrs}


def _activation(name, act, x, node, extra_args, T):
    """Emit nodes computing activation `act` of tensor `x`; final node is `name`."""
    t = {"T": T}
    if act == "Relu":
        return [_mk(name, "Relu", [x], t)]
    if act == "Relu6":
        return [_mk(name, "Relu6", [x], t)]
    if act == "Elu":
        return [_mk(name, "Elu", [x], t)]
    if act == "Sigmoid":
        return [_mk(name, "Sigmoid", [x], t)]
    if act == "Tanh":
        return [_mk(name, "Tanh", [x], t)]
    if act == "LeakyRelu":
        alpha = node["attr"].get("leakyrelu_alpha", {"f": 0.2})
        return [_mk(name, "LeakyRelu", [x], {"T": T, "alpha": alpha})]
    if act == "Prelu":
        return _prelu(name, x, extra_args[0], T)
    raise NotImplementedError("fused activation %s" % act)


def _prelu(name, x, alpha, T):
    zero = name + "/__zero"
    zt = tf.make_tensor_proto(np.float32(0.0))
    return [
        _mk(zero, "Const", [], {"dtype": {"type": "DT_FLOAT"},
                                "value": {"tensor": json_format.MessageToDict(zt)}}),
        _mk(name + "/__pos", "Relu", [x], {"T": T}),
        _mk(name + "/__neg", "Minimum", [x, zero], {"T": T}),
        _mk(name + "/__neg_a", "Mul", [alpha, name + "/__neg"], {"T": T}),
        _mk(name, "AddV2", [name + "/__pos", name + "/__neg_a"], {"T": T}),
    ]


_BASE_ATTRS = {
    "_FusedMatMul": ("MatMul", ["transpose_a", "transpose_b"]),
    "_FusedConv2D": ("Conv2D", ["strides", "padding", "explicit_paddings",
                                "dilations", "data_format", "use_cudnn_on_gpu"]),
    "FusedDepthwiseConv2dNative": ("DepthwiseConv2dNative",
                                   ["strides", "padding", "explicit_paddings",
                                    "dilations", "data_format"]),
}


def _rewrite(node):
    op = node["op"]
    if op == "Prelu":
        T = node["attr"].get("T", {"type": "DT_FLOAT"})
        return _prelu(node["name"], node["input"][0], node["input"][1], T)
    if op not in _BASE_ATTRS:
        return [node]
    base, keep = _BASE_ATTRS[op]
    name = node["name"]
    T = node["attr"].get("T", {"type": "DT_FLOAT"})
    data_inputs = [i for i in node["input"] if not i.startswith("^")]
    ctrl = [i for i in node["input"] if i.startswith("^")]
    a, b, args = data_inputs[0], data_inputs[1], data_inputs[2:]
    fused = _fused_ops(node)
    attrs = {"T": T}
    for k in keep:
        if k in node["attr"]:
            attrs[k] = node["attr"][k]
    nodes = []
    cur = name + "/__base"
    nodes.append(_mk(cur, base, [a, b] + ctrl, attrs))
    rest = fused
    if rest and rest[0] == "BiasAdd":
        nodes.append(_mk(name + "/__bias", "AddV2", [cur, args[0]], {"T": T}))
        cur = name + "/__bias"
        rest = rest[1:]
        args = args[1:]
    elif rest and rest[0] == "FusedBatchNorm":
        raise NotImplementedError("FusedBatchNorm inside %s" % op)
    if not rest:
        nodes.append(_mk(name, "Identity", [cur], {"T": T}))
    else:
        assert len(rest) == 1, fused
        nodes.extend(_activation(name, rest[0], cur, node, args, T))
    return nodes


def run_model(model_dir, inputs, weights=None):
    """Runs model.json in model_dir on {signature input key: np.ndarray}.

    Returns {signature output key: np.ndarray}.  `weights` overrides the
    decoded weights (name -> array) if given.
    """
    mj = json.load(open(os.path.join(model_dir, "model.json")))
    if weights is None:
        weights = load_weights(model_dir, mj)
    topo = mj["modelTopology"]
    assert not topo.get("library", {}).get("function"), "control flow not supported"
    nodes = []
    for n in topo["node"]:
        n = json.loads(json.dumps(n))
        n.setdefault("input", [])
        n.setdefault("attr", {})
        if n["op"] == "Const" and n["name"] in weights:
            v = weights[n["name"]]
            want = n["attr"]["dtype"]["type"]
            if want == "DT_INT64":
                v = v.astype(np.int64)
            n["attr"]["value"] = {"tensor": json_format.MessageToDict(tf.make_tensor_proto(v))}
        nodes.extend(_rewrite(n))
    sig = mj["signature"]
    if sig.get("inputs"):
        feeds = {info["name"]: inputs[key] for key, info in sig["inputs"].items()}
    else:
        # A frozen-graph conversion lists outputs only: inputs are the Placeholders, by node name.
        feeds = {k + ":0": v for k, v in inputs.items()}
    out_keys = list(sig["outputs"].keys())
    fetch = [sig["outputs"][k]["name"] for k in out_keys]
    res = run_nodes(nodes, feeds, [n if ":" in n else n + ":0" for n in fetch])
    return dict(zip(out_keys, res))


def run_nodes(nodes, feeds, fetch):
    """Imports `nodes` (NodeDefs in their JSON form, as in model.json) into a fresh graph and runs
    `fetch` in a v1 Session with grappler and the graph optimizer switched off, so exactly these
    nodes execute."""
    gd = graph_pb2.GraphDef()
    for n in nodes:
        nd = node_def_pb2.NodeDef()
        json_format.ParseDict(n, nd)
        gd.node.append(nd)
    g = tf.Graph()
    with g.as_default():
        tf.graph_util.import_graph_def(gd, name="")
    cfg = tf.compat.v1.ConfigProto()
    cfg.graph_options.rewrite_options.disable_meta_optimizer = True
    cfg.graph_options.optimizer_options.opt_level = tf.compat.v1.OptimizerOptions.L0
    cfg.graph_options.optimizer_options.do_constant_folding = False
    cfg.graph_options.optimizer_options.do_common_subexpression_elimination = False
    with tf.compat.v1.Session(graph=g, config=cfg) as sess:
        return sess.run(fetch, feed_dict=feeds)
