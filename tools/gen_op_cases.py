#!/usr/bin/env python3
"""Generate single-op test cases under tests/fixtures/ops/<family>.json.

Run with the TensorFlow venv described in tools/README.md:

    /tmp/tfenv/bin/python tools/gen_op_cases.py

Each file is a JSON array of cases:
  {"name", "op", "attrs": {attr: AttrValue JSON as in a TF.js model.json},
   "inputs": [tensor...], "outputs": [tensor...]}          -- or, for failures,
  {"name", "op", "attrs", "inputs", "error": "InvalidArgument"}
tensor = {"dtype": "float32"|"int32"|"int64"|"bool", "shape": [...], "data": [flat]}
(string tensors: "data" holds each element's bytes in base64).

`inputs` are in the NodeDef's input order (the order a model.json node lists
them), list inputs (ConcatV2 values, Pack values, IdentityN input) flattened.  `attrs` are every
attr of the NodeDef TF builds for the op (inferred type attrs like T/Tidx/N
and defaults included), read back from a graph built with placeholders.
Outputs come from running the op eagerly with tf.raw_ops (all outputs, except
FusedBatchNorm*: only `y`).  Errors are the eager exception's class name
without the "Error" suffix (InvalidArgumentError -> "InvalidArgument").

Ops tf.raw_ops cannot run:
  * _FusedMatMul / _FusedConv2D: built as NodeDefs with the converter's attrs
    and run by TF's own kernels in a Session (grappler off), when TF's CPU
    kernel takes that fused_ops list; else (Prelu, and Tanh/Sigmoid for conv)
    computed by composing the plain TF ops (tools/tfjs_graph.py).
  * FusedDepthwiseConv2dNative and Prelu are TF.js-only: always composed from
    DepthwiseConv2dNative + AddV2 + activation / Relu + alpha * Minimum(x, 0).
  * DepthwiseConv2dNative with dilations: TF's CPU kernel says Unimplemented;
    the reference is tf.nn.depthwise_conv2d with the same dilations.
  * Convolution gradients with dilations (grads family): Conv2DBackpropFilter and the
    depthwise filter gradient composed from TF ops (_filter_grad_composed), the depthwise
    input gradient from tf.GradientTape on tf.nn.depthwise_conv2d.
"""

import base64
import json
import os
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.dont_write_bytecode = True  # no __pycache__ in tools/

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from google.protobuf import json_format  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_io  # noqa: E402
import tfjs_graph  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "fixtures", "ops")

F32, I32, I64, B = np.float32, np.int32, np.int64, np.bool_
_rng = np.random.default_rng(0)


def reseed(s):
    global _rng
    _rng = np.random.default_rng(s)


def f(*shape, lo=None, hi=None, scale=1.0):
    if lo is not None:
        return _rng.uniform(lo, hi, shape).astype(F32)
    return (_rng.normal(size=shape) * scale).astype(F32)


def i(*shape, lo=-9, hi=10):
    return _rng.integers(lo, hi, shape).astype(I32)


def b(*shape):
    return _rng.random(shape) < 0.5


def c(v, dt=I32):
    return np.array(v, dtype=dt)


def s(v):
    """A string tensor: nested lists of str (UTF-8) or bytes, kept exact (object dtype: numpy's
    bytes dtype would drop trailing NULs)."""
    a = np.array(v, dtype=object)
    return np.vectorize(lambda x: x.encode() if isinstance(x, str) else x, otypes=[object])(a) \
        if a.size else a


# ---------------------------------------------------------------------------

CASES = {}      # family -> list of case dicts
_family = None


def family(name):
    global _family
    _family = name
    CASES.setdefault(name, [])


def _attr_json(node_def):
    return {k: json_format.MessageToDict(v) for k, v in sorted(node_def.attr.items())
            if not k.startswith("_")}


def _graph_node(op, kw, attrs):
    """Builds the op on placeholders; returns (attr JSON, inputs in NodeDef order).

    Placeholders have unknown rank (so error cases pass graph shape inference);
    ops whose shape function needs more get rank-only, then fully shaped ones."""
    for mode in ("none", "rank"):
        try:
            return _graph_node_ranked(op, kw, attrs, mode)
        except ValueError:
            pass
    return _graph_node_ranked(op, kw, attrs, "full")


def _graph_node_ranked(op, kw, attrs, ranked):
    g = tf.Graph()
    by_name = {}
    with g.as_default():
        gkw = {}
        for k, v in kw.items():
            vals = v if isinstance(v, list) else [v]
            phs = []
            for x in vals:
                ph = tf.compat.v1.placeholder(tf.string if x.dtype.kind in "OSU" else tf.as_dtype(x.dtype),
                                              {"none": None, "rank": [None] * x.ndim,
                                               "full": x.shape}[ranked])
                by_name[ph.name] = x
                phs.append(ph)
            gkw[k] = phs if isinstance(v, list) else phs[0]
        res = getattr(tf.raw_ops, op)(**gkw, **attrs)
        if isinstance(res, tf.Operation):
            node = res
        elif isinstance(res, tf.Tensor):
            node = res.op
        else:
            node = [t for r in res for t in (r if isinstance(r, list) else [r])][0].op
        flat = [by_name[t.name] for t in node.inputs]
    return _attr_json(node.node_def), flat


def _outputs(res, op):
    if isinstance(res, tf.Tensor):
        outs = [res]
    else:
        # List outputs (RaggedGather's output_nested_splits) flattened in place.
        outs = [t for r in res for t in (r if isinstance(r, list) else [r])]
    if op.startswith("FusedBatchNorm"):
        outs = outs[:1]
    return [o.numpy() for o in outs]


def case(name, op, inputs, attrs=None, error=False, ref=None):
    """inputs: dict arg name -> np array (or list of arrays); attrs: raw_ops kwargs.

    ref: optional callable giving the outputs when TF's kernel cannot run the op
    but an equivalent TF computation can."""
    attrs = attrs or {}
    kw = {k: (list(v) if isinstance(v, (list, tuple)) else np.asarray(v)) for k, v in inputs.items()}
    attr_json, flat = _graph_node(op, kw, attrs)
    d = {"name": name, "op": op, "attrs": attr_json,
         "inputs": [fixture_io.tensor(x) for x in flat]}
    if ref is not None:
        d["outputs"] = [fixture_io.tensor(o) for o in ref()]
        CASES[_family].append(d)
        return
    try:
        ekw = {k: ([tf.constant(x) for x in v] if isinstance(v, list) else tf.constant(v))
               for k, v in kw.items()}
        res = getattr(tf.raw_ops, op)(**ekw, **attrs)
        outs = _outputs(res, op)
        if error:
            raise SystemExit("%s: expected an error, got %s" % (name, [o.shape for o in outs]))
        d["outputs"] = [fixture_io.tensor(o) for o in outs]
    except (tf.errors.OpError, ValueError, TypeError) as e:
        if not error:
            raise
        cls = type(e).__name__
        d["error"] = cls[:-5] if cls.endswith("Error") else cls
    CASES[_family].append(d)


# ---- fused ops (converter-style NodeDefs) ----------------------------------

def _s(x):
    return base64.b64encode(x.encode()).decode()


def _ilist(v):
    return {"list": {"i": [str(int(x)) for x in v]}} if len(v) else {"list": {}}


def fused_case(name, op, inputs, attrs):
    """Runs a TF.js-style fused node natively if TF can, else by composition."""
    names = ["in%d" % k for k in range(len(inputs))]
    ph = [{"name": n, "op": "Placeholder",
           "attr": {"dtype": {"type": "DT_FLOAT"}}} for n in names]
    node = {"name": "out", "op": op, "input": names, "attr": attrs}
    feeds = {n + ":0": v for n, v in zip(names, inputs)}
    composed = tfjs_graph.run_nodes(ph + tfjs_graph._rewrite(json.loads(json.dumps(node))), feeds, "out:0")
    how = "composed"
    out = composed
    if op in ("_FusedMatMul", "_FusedConv2D"):
        try:
            native = tfjs_graph.run_nodes(ph + [node], feeds, "out:0")
            np.testing.assert_allclose(native, composed, rtol=1e-4, atol=1e-5)
            out, how = native, "native"
        except (tf.errors.OpError, ValueError) as e:
            msg = str(e).splitlines()[0][:100]
            print("  %s: TF kernel refused (%s); composed" % (name, msg))
    CASES[_family].append({"name": name, "op": op, "attrs": attrs,
                           "inputs": [fixture_io.tensor(x) for x in inputs],
                           "outputs": [fixture_io.tensor(out)]})
    return how


def fused_matmul_attrs(fused, ta=False, tb=False, alpha=0.2, nargs=1):
    return {"transpose_a": {"b": ta}, "transpose_b": {"b": tb},
            "fused_ops": {"list": {"s": [_s(x) for x in fused]}},
            "leakyrelu_alpha": {"f": alpha}, "num_args": {"i": str(nargs)},
            "epsilon": {"f": 0.0}, "T": {"type": "DT_FLOAT"}}


def fused_conv_attrs(fused, strides=(1, 1, 1, 1), padding="SAME", explicit=(),
                     dilations=(1, 1, 1, 1), alpha=0.2, nargs=1):
    return {"num_host_args": {"i": "0"}, "data_format": {"s": _s("NHWC")},
            "filter_format": {"s": _s("HWIO")}, "strides": _ilist(strides),
            "num_args": {"i": str(nargs)},
            "fused_ops": {"list": {"s": [_s(x) for x in fused]}},
            "TArgs": {"list": {"type": ["DT_FLOAT"] * nargs}},
            "padding": {"s": _s(padding)}, "use_cudnn_on_gpu": {"b": True},
            "leakyrelu_alpha": {"f": alpha}, "epsilon": {"f": 0.0},
            "T": {"type": "DT_FLOAT"}, "explicit_paddings": _ilist(explicit),
            "dilations": _ilist(dilations)}


def fused_dw_attrs(fused, strides=(1, 1, 1, 1), padding="SAME", explicit=(),
                   dilations=(1, 1, 1, 1), nargs=1):
    return {"padding": {"s": _s(padding)}, "data_format": {"s": _s("NHWC")},
            "strides": _ilist(strides), "num_args": {"i": str(nargs)},
            "fused_ops": {"list": {"s": [_s(x) for x in fused]}},
            "T": {"type": "DT_FLOAT"}, "explicit_paddings": _ilist(explicit),
            "dilations": _ilist(dilations)}


# ---------------------------------------------------------------------------
# Families
# ---------------------------------------------------------------------------

def gen_matmul():
    family("matmul")
    reseed(1)
    for (m, k, n) in [(1, 1, 1), (3, 5, 7), (4, 8, 4), (17, 33, 9), (64, 64, 64)]:
        case("matmul_%dx%dx%d" % (m, k, n), "MatMul", {"a": f(m, k), "b": f(k, n)})
    for ta in (False, True):
        for tb in (False, True):
            a = f(5, 3) if ta else f(3, 5)
            bb = f(7, 5) if tb else f(5, 7)
            case("matmul_ta%d_tb%d" % (ta, tb), "MatMul", {"a": a, "b": bb},
                 {"transpose_a": ta, "transpose_b": tb})
    case("matmul_9x13x6_tb", "MatMul", {"a": f(9, 13), "b": f(6, 13)}, {"transpose_b": True})
    case("matmul_empty_m", "MatMul", {"a": f(0, 4), "b": f(4, 3)})
    case("matmul_empty_k", "MatMul", {"a": f(2, 0), "b": f(0, 3)})
    case("matmul_int32", "MatMul", {"a": i(3, 4), "b": i(4, 2)})
    case("matmul_inner_mismatch", "MatMul", {"a": f(2, 3), "b": f(4, 2)}, error=True)

    case("bmm_2x3x4_4x5", "BatchMatMulV2", {"x": f(2, 3, 4), "y": f(2, 4, 5)})
    for ax in (False, True):
        for ay in (False, True):
            x = f(3, 6, 4) if ax else f(3, 4, 6)
            y = f(3, 5, 6) if ay else f(3, 6, 5)
            case("bmm_adjx%d_adjy%d" % (ax, ay), "BatchMatMulV2", {"x": x, "y": y},
                 {"adj_x": ax, "adj_y": ay})
    case("bmm_bcast_rank3_rank2", "BatchMatMulV2", {"x": f(4, 3, 5), "y": f(5, 2)})
    case("bmm_bcast_1_vs_3", "BatchMatMulV2", {"x": f(1, 2, 3), "y": f(3, 3, 4)})
    case("bmm_bcast_4d", "BatchMatMulV2", {"x": f(2, 1, 3, 4), "y": f(1, 3, 4, 2)})
    case("bmm_bcast_4d_adj", "BatchMatMulV2", {"x": f(2, 1, 4, 3), "y": f(3, 2, 4)},
         {"adj_x": True, "adj_y": True})
    case("bmm_17x33x9", "BatchMatMulV2", {"x": f(2, 17, 33), "y": f(2, 33, 9)})
    case("bmm_empty_batch", "BatchMatMulV2", {"x": f(0, 2, 3), "y": f(0, 3, 2)})
    case("bmm_batch_mismatch", "BatchMatMulV2", {"x": f(2, 2, 3), "y": f(3, 3, 2)}, error=True)

    for fused in (["BiasAdd"], ["BiasAdd", "Relu"], ["BiasAdd", "Relu6"], ["BiasAdd", "Elu"],
                  ["BiasAdd", "LeakyRelu"], ["BiasAdd", "Tanh"], ["BiasAdd", "Sigmoid"]):
        a, w, bias = f(3, 10, scale=2.0), f(10, 6), f(6)
        fused_case("fused_matmul_" + "_".join(fused).lower(), "_FusedMatMul", [a, w, bias],
                   fused_matmul_attrs(fused, alpha=0.15))
    fused_case("fused_matmul_biasadd_relu_tb", "_FusedMatMul", [f(4, 9), f(5, 9), f(5)],
               fused_matmul_attrs(["BiasAdd", "Relu"], tb=True))
    fused_case("fused_matmul_biasadd_prelu", "_FusedMatMul",
               [f(3, 8, scale=2.0), f(8, 6), f(6), f(6, lo=0.05, hi=0.5)],
               fused_matmul_attrs(["BiasAdd", "Prelu"], nargs=2))
    fused_case("fused_matmul_bias_broadcast_2d", "_FusedMatMul", [f(3, 4), f(4, 5), f(3, 5)],
               fused_matmul_attrs(["BiasAdd"]))


def gen_conv():
    family("conv")
    reseed(2)
    x = f(2, 7, 9, 3)
    for pad in ("SAME", "VALID"):
        for s in (1, 2):
            case("conv2d_k3_s%d_%s" % (s, pad.lower()), "Conv2D",
                 {"input": x, "filter": f(3, 3, 3, 4)},
                 {"strides": [1, s, s, 1], "padding": pad})
    case("conv2d_rect_stride_k2x4", "Conv2D", {"input": x, "filter": f(2, 4, 3, 5)},
         {"strides": [1, 2, 3, 1], "padding": "SAME"})
    case("conv2d_dilation2_same", "Conv2D", {"input": x, "filter": f(3, 3, 3, 2)},
         {"strides": [1, 1, 1, 1], "padding": "SAME", "dilations": [1, 2, 2, 1]})
    case("conv2d_dilation_2x3_valid", "Conv2D", {"input": x, "filter": f(2, 2, 3, 2)},
         {"strides": [1, 1, 1, 1], "padding": "VALID", "dilations": [1, 2, 3, 1]})
    case("conv2d_explicit", "Conv2D", {"input": x, "filter": f(3, 3, 3, 4)},
         {"strides": [1, 1, 1, 1], "padding": "EXPLICIT",
          "explicit_paddings": [0, 0, 1, 2, 2, 1, 0, 0]})
    case("conv2d_explicit_s2", "Conv2D", {"input": x, "filter": f(3, 2, 3, 3)},
         {"strides": [1, 2, 2, 1], "padding": "EXPLICIT",
          "explicit_paddings": [0, 0, 0, 3, 1, 0, 0, 0]})
    case("conv2d_1x1_c17", "Conv2D", {"input": f(1, 5, 5, 17), "filter": f(1, 1, 17, 9)},
         {"strides": [1, 1, 1, 1], "padding": "VALID"})
    case("conv2d_k5_c8_s2_same", "Conv2D", {"input": f(1, 12, 11, 8), "filter": f(5, 5, 8, 16)},
         {"strides": [1, 2, 2, 1], "padding": "SAME"})
    case("conv2d_filter_larger_same", "Conv2D", {"input": f(1, 2, 2, 1), "filter": f(3, 3, 1, 2)},
         {"strides": [1, 1, 1, 1], "padding": "SAME"})
    case("conv2d_channel_mismatch", "Conv2D", {"input": x, "filter": f(3, 3, 4, 2)},
         {"strides": [1, 1, 1, 1], "padding": "SAME"}, error=True)

    for pad in ("SAME", "VALID"):
        for s in (1, 2):
            case("dwconv_k3_s%d_%s" % (s, pad.lower()), "DepthwiseConv2dNative",
                 {"input": x, "filter": f(3, 3, 3, 1)}, {"strides": [1, s, s, 1], "padding": pad})
    case("dwconv_mult2", "DepthwiseConv2dNative", {"input": x, "filter": f(3, 3, 3, 2)},
         {"strides": [1, 1, 1, 1], "padding": "SAME"})
    case("dwconv_mult3_s2_valid", "DepthwiseConv2dNative", {"input": x, "filter": f(2, 3, 3, 3)},
         {"strides": [1, 2, 2, 1], "padding": "VALID"})
    case("dwconv_explicit", "DepthwiseConv2dNative", {"input": x, "filter": f(3, 3, 3, 1)},
         {"strides": [1, 2, 2, 1], "padding": "EXPLICIT",
          "explicit_paddings": [0, 0, 1, 1, 0, 2, 0, 0]})
    case("dwconv_c11", "DepthwiseConv2dNative", {"input": f(1, 6, 6, 11), "filter": f(3, 3, 11, 1)},
         {"strides": [1, 1, 1, 1], "padding": "SAME"})
    # TF's CPU DepthwiseConv2dNative kernel refuses dilations (Unimplemented), TF.js
    # runs them: reference from tf.nn.depthwise_conv2d (SpaceToBatchND route).
    for pad, dil in (("SAME", 2), ("VALID", 2)):
        w = f(3, 3, 3, 2)
        case("dwconv_dilation%d_%s" % (dil, pad.lower()), "DepthwiseConv2dNative",
             {"input": x, "filter": w},
             {"strides": [1, 1, 1, 1], "padding": pad, "dilations": [1, dil, dil, 1]},
             ref=lambda w=w, pad=pad, dil=dil: [tf.nn.depthwise_conv2d(
                 x, w, strides=[1, 1, 1, 1], padding=pad, dilations=[dil, dil]).numpy()])

    case("biasadd_4d", "BiasAdd", {"value": f(2, 3, 4, 5), "bias": f(5)})
    case("biasadd_2d", "BiasAdd", {"value": f(3, 7), "bias": f(7)})
    case("biasadd_int32", "BiasAdd", {"value": i(2, 3), "bias": i(3)})
    case("biasadd_bad_bias", "BiasAdd", {"value": f(3, 7), "bias": f(6)}, error=True)

    xs = f(2, 6, 7, 3, scale=2.0)
    for fused in (["BiasAdd"], ["BiasAdd", "Relu"], ["BiasAdd", "Relu6"], ["BiasAdd", "Elu"],
                  ["BiasAdd", "LeakyRelu"], ["BiasAdd", "Sigmoid"], ["BiasAdd", "Tanh"]):
        fused_case("fused_conv2d_" + "_".join(fused).lower(), "_FusedConv2D",
                   [xs, f(3, 3, 3, 4), f(4)], fused_conv_attrs(fused, alpha=0.1))
    fused_case("fused_conv2d_s2_valid_relu", "_FusedConv2D", [xs, f(3, 3, 3, 5), f(5)],
               fused_conv_attrs(["BiasAdd", "Relu"], strides=(1, 2, 2, 1), padding="VALID"))
    fused_case("fused_conv2d_dilation2_relu", "_FusedConv2D", [xs, f(3, 3, 3, 2), f(2)],
               fused_conv_attrs(["BiasAdd", "Relu"], dilations=(1, 2, 2, 1)))
    fused_case("fused_conv2d_explicit", "_FusedConv2D", [xs, f(3, 3, 3, 4), f(4)],
               fused_conv_attrs(["BiasAdd"], padding="EXPLICIT",
                                explicit=(0, 0, 1, 2, 2, 1, 0, 0)))
    fused_case("fused_conv2d_prelu", "_FusedConv2D",
               [xs, f(3, 3, 3, 4), f(4), f(4, lo=0.05, hi=0.5)],
               fused_conv_attrs(["BiasAdd", "Prelu"], nargs=2))
    for fused in (["BiasAdd"], ["BiasAdd", "Relu"], ["BiasAdd", "Relu6"], ["BiasAdd", "Elu"],
                  ["BiasAdd", "LeakyRelu"]):
        fused_case("fused_dwconv_" + "_".join(fused).lower(), "FusedDepthwiseConv2dNative",
                   [xs, f(3, 3, 3, 2), f(6)], fused_dw_attrs(fused))
    fused_case("fused_dwconv_s2_valid_relu6", "FusedDepthwiseConv2dNative",
               [xs, f(3, 3, 3, 1), f(3)],
               fused_dw_attrs(["BiasAdd", "Relu6"], strides=(1, 2, 2, 1), padding="VALID"))
    fused_case("fused_dwconv_prelu", "FusedDepthwiseConv2dNative",
               [xs, f(3, 3, 3, 1), f(3), f(3, lo=0.05, hi=0.5)],
               fused_dw_attrs(["BiasAdd", "Prelu"], nargs=2))

    # Inputs of 1-4 channels (Conv2D's thin-input path, conv_thin.rs): kernel sizes, strides,
    # paddings, dilations (along y it runs there, along x not), batch 2, output depths that are
    # not a multiple of 8, fused epilogues applied in registers (bias + Relu6) or per row (Elu,
    # Prelu).
    reseed(202)
    for name, xs_, w_, strides, pad, extra in (
            ("c1_k5_s2_same", (2, 11, 9, 1), (5, 5, 1, 3), (1, 2, 2, 1), "SAME", {}),
            ("c2_k2_s1_valid", (1, 6, 7, 2), (2, 2, 2, 9), (1, 1, 1, 1), "VALID", {}),
            ("c4_k7_s2_same", (1, 9, 8, 4), (7, 7, 4, 3), (1, 2, 2, 1), "SAME", {}),
            ("c3_k1_s2_valid", (2, 5, 6, 3), (1, 1, 3, 17), (1, 2, 2, 1), "VALID", {}),
            ("c3_k3_explicit_s3x2", (1, 10, 9, 3), (3, 3, 3, 6), (1, 3, 2, 1), "EXPLICIT",
             {"explicit_paddings": [0, 0, 2, 1, 1, 3, 0, 0]}),
            ("c3_dilation_y2", (1, 9, 8, 3), (3, 3, 3, 4), (1, 1, 1, 1), "SAME",
             {"dilations": [1, 2, 1, 1]}),
            ("c3_dilation_x2", (1, 8, 9, 3), (3, 2, 3, 4), (1, 1, 2, 1), "VALID",
             {"dilations": [1, 1, 2, 1]})):
        case("conv2d_thin_" + name, "Conv2D", {"input": f(*xs_), "filter": f(*w_)},
             {"strides": list(strides), "padding": pad, **extra})
    fused_case("fused_conv2d_thin_k3_s2_relu6_c13", "_FusedConv2D",
               [f(1, 7, 8, 3, scale=2.0), f(3, 3, 3, 13), f(13)],
               fused_conv_attrs(["BiasAdd", "Relu6"], strides=(1, 2, 2, 1)))
    fused_case("fused_conv2d_thin_elu_explicit", "_FusedConv2D",
               [f(1, 6, 7, 3, scale=2.0), f(3, 3, 3, 7), f(7)],
               fused_conv_attrs(["BiasAdd", "Elu"], padding="EXPLICIT",
                                explicit=(0, 0, 1, 0, 0, 2, 0, 0)))
    fused_case("fused_conv2d_thin_prelu_s2", "_FusedConv2D",
               [f(2, 5, 6, 3, scale=2.0), f(3, 3, 3, 9), f(9), f(9, lo=0.05, hi=0.5)],
               fused_conv_attrs(["BiasAdd", "Prelu"], strides=(1, 2, 2, 1), nargs=2))


def gen_pool():
    family("pool")
    reseed(3)
    x = f(2, 7, 9, 3)
    for op in ("MaxPool", "AvgPool"):
        arg = "input" if op == "MaxPool" else "value"
        for pad in ("SAME", "VALID"):
            case("%s_k2_s2_%s" % (op.lower(), pad.lower()), op, {arg: x},
                 {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": pad})
            case("%s_k3_s2_%s" % (op.lower(), pad.lower()), op, {arg: x},
                 {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": pad})
            case("%s_k3_s1_%s" % (op.lower(), pad.lower()), op, {arg: x},
                 {"ksize": [1, 3, 3, 1], "strides": [1, 1, 1, 1], "padding": pad})
        case("%s_k2x3_s1x2_same" % op.lower(), op, {arg: x},
             {"ksize": [1, 2, 3, 1], "strides": [1, 1, 2, 1], "padding": "SAME"})
        case("%s_global_valid" % op.lower(), op, {arg: x},
             {"ksize": [1, 7, 9, 1], "strides": [1, 1, 1, 1], "padding": "VALID"})
        case("%s_c10" % op.lower(), op, {arg: f(1, 5, 5, 10)},
             {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "SAME"})
    case("maxpool_all_negative", "MaxPool", {"input": f(1, 4, 4, 2, lo=-5, hi=-1)},
         {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": "SAME"})
    # 29 channels: the kernels' channel blocks of 16, 8, 4 and 1 in one pixel.
    x29 = f(1, 6, 5, 29)
    for op in ("MaxPool", "AvgPool"):
        case("%s_c29" % op.lower(), op, {("input" if op == "MaxPool" else "value"): x29},
             {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": "SAME"})


def gen_batchnorm():
    family("batchnorm")
    reseed(4)
    for op in ("FusedBatchNorm", "FusedBatchNormV3"):
        for c_ in (3, 8):
            case("%s_c%d" % (op.lower(), c_), op,
                 {"x": f(2, 4, 5, c_), "scale": f(c_, lo=0.5, hi=1.5), "offset": f(c_),
                  "mean": f(c_), "variance": f(c_, lo=0.5, hi=2.0)},
                 {"is_training": False, "epsilon": 0.001})
        case("%s_eps_1e-5" % op.lower(), op,
             {"x": f(1, 3, 3, 4), "scale": f(4, lo=0.5, hi=1.5), "offset": f(4),
              "mean": f(4), "variance": f(4, lo=0.01, hi=0.1)},
             {"is_training": False, "epsilon": 1e-5})


    # training mode, as Keras LayerNormalization's fused path emits it: batch
    # statistics, empty mean/variance inputs, NCHW [1, rows, C, 1].
    for fmt, shape, ch in (("NCHW", (1, 6, 5, 1), 6), ("NHWC", (2, 3, 4, 5), 5)):
        case("fusedbatchnormv3_training_%s" % fmt.lower(), "FusedBatchNormV3",
             {"x": f(*shape, scale=2.0), "scale": f(ch, lo=0.5, hi=1.5), "offset": f(ch),
              "mean": np.zeros(0, F32), "variance": np.zeros(0, F32)},
             {"is_training": True, "epsilon": 0.001, "data_format": fmt})


def _binary_cases(op, x_lo=None):
    def xv(*s):
        return f(*s, lo=0.5, hi=2.0) if x_lo == "pos" else f(*s)
    case(op.lower() + "_same_shape", op, {"x": xv(2, 3, 5), "y": f(2, 3, 5)})
    case(op.lower() + "_scalar", op, {"x": xv(4, 3), "y": f()})
    case(op.lower() + "_bcast_rank", op, {"x": xv(2, 3, 4), "y": f(4)})
    case(op.lower() + "_bcast_both", op, {"x": xv(3, 1, 5), "y": f(1, 4, 1)})


def gen_binary():
    family("binary")
    reseed(5)
    for op in ("AddV2", "Add", "Sub", "Mul", "Maximum", "Minimum", "SquaredDifference"):
        _binary_cases(op)
    # RealDiv: keep divisor away from 0
    case("realdiv_same_shape", "RealDiv", {"x": f(2, 3, 5), "y": f(2, 3, 5, lo=0.5, hi=2)})
    case("realdiv_bcast", "RealDiv", {"x": f(3, 1, 5), "y": f(4, 1, lo=-2, hi=-0.5)})
    case("realdiv_scalar", "RealDiv", {"x": f(7), "y": c(3.0, F32)})
    case("pow_pos_base", "Pow", {"x": f(2, 3, 4, lo=0.5, hi=2.0), "y": f(4, lo=-2, hi=2)})
    case("pow_int_exponent_neg_base", "Pow", {"x": f(3, 4), "y": c([2.0, 3.0, 0.0, -1.0], F32)})
    case("pow_int32", "Pow", {"x": i(2, 3, lo=-3, hi=4), "y": i(3, lo=0, hi=4)})
    case("addv2_empty", "AddV2", {"x": f(0, 3), "y": f(3)})
    case("addv2_rank5_bcast", "AddV2", {"x": f(2, 1, 3, 1, 2), "y": f(4, 1, 1, 2)})
    case("addv2_tail_17", "AddV2", {"x": f(17), "y": f(17)})
    case("mul_tail_33_bcast", "Mul", {"x": f(3, 33), "y": f(3, 1)})
    for op in ("AddV2", "Sub", "Mul", "Maximum", "Minimum", "SquaredDifference"):
        case(op.lower() + "_int32", op, {"x": i(3, 4), "y": i(4)})
    case("addv2_int32_overflow_wraps", "AddV2",
         {"x": c([2147483647, -2147483648]), "y": c([1, -1])})
    case("addv2_shape_mismatch", "AddV2", {"x": f(2, 3), "y": f(2, 4)}, error=True)
    case("mul_shape_mismatch", "Mul", {"x": f(3, 2), "y": f(2, 3)}, error=True)


def gen_unary():
    family("unary")
    reseed(6)
    x = f(3, 7, scale=2.0)
    pos = f(3, 7, lo=0.1, hi=4.0)
    edge = c([-3.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 6.0, 7.5, 1e-3, -1e-3, 20.0, -20.0], F32)
    for op in ("Neg", "Abs", "Square", "Sigmoid", "Tanh"):
        case(op.lower(), op, {"x": x})
        case(op.lower() + "_edge", op, {"x": edge})
    case("exp", "Exp", {"x": x})
    case("exp_edge", "Exp", {"x": c([-80.0, -1.0, 0.0, 1.0, 10.0, 80.0], F32)})
    for op in ("Rsqrt", "Sqrt", "Log"):
        case(op.lower(), op, {"x": pos})
    case("sqrt_zero", "Sqrt", {"x": c([0.0, 1.0, 4.0, 2.0], F32)})
    for op in ("Relu", "Relu6", "Elu", "Selu", "Softplus"):
        case(op.lower(), op, {"features": x})
        case(op.lower() + "_edge", op, {"features": edge})
    case("leakyrelu_default", "LeakyRelu", {"features": x})
    case("leakyrelu_0.3", "LeakyRelu", {"features": edge}, {"alpha": 0.3})
    case("relu_int32", "Relu", {"features": i(10)})
    case("neg_int32", "Neg", {"x": i(10)})
    case("abs_int32", "Abs", {"x": i(10)})
    case("square_int32", "Square", {"x": i(10)})
    case("relu_empty", "Relu", {"features": f(0, 4)})
    case("sigmoid_tail_9", "Sigmoid", {"x": f(9, scale=3.0)})
    # Prelu is TF.js-only (the converter's fuse_prelu emits it): composed
    fused_case("prelu_bcast_channel", "Prelu", [f(2, 3, 4), f(4, lo=0.05, hi=0.5)],
               {"T": {"type": "DT_FLOAT"}})
    fused_case("prelu_same_shape", "Prelu", [f(5), f(5, lo=0.05, hi=0.5)],
               {"T": {"type": "DT_FLOAT"}})


def gen_softmax():
    family("softmax")
    reseed(7)
    for op in ("Softmax", "LogSoftmax"):
        case(op.lower() + "_2d", op, {"logits": f(3, 10, scale=3.0)})
        case(op.lower() + "_3d", op, {"logits": f(2, 3, 5)})
        case(op.lower() + "_1d", op, {"logits": f(7)})
        case(op.lower() + "_large", op, {"logits": c([[1000.0, 1001.0, 999.0], [-1000.0, -1002.0, -1000.5]], F32)})
        case(op.lower() + "_tail_33", op, {"logits": f(2, 33)})


def gen_reduce():
    family("reduce")
    reseed(8)
    x = f(2, 3, 4)
    for op in ("Mean", "Sum", "Max", "Min", "Prod"):
        xx = f(2, 3, 4, lo=0.5, hi=1.5) if op == "Prod" else x
        n = op.lower()
        case(n + "_axis_last", op, {"input": xx, "axis": c(-1)})
        case(n + "_axis0_keep", op, {"input": xx, "axis": c(0)}, {"keep_dims": True})
        case(n + "_axes_neg_keep", op, {"input": xx, "axis": c([0, -1])}, {"keep_dims": True})
        case(n + "_axes_1_2", op, {"input": xx, "axis": c([1, 2])})
        case(n + "_all", op, {"input": xx, "axis": c([0, 1, 2])})
        case(n + "_no_axes", op, {"input": xx, "axis": c([], I32)})
        case(n + "_int32", op, {"input": i(3, 5, lo=-4, hi=5), "axis": c(1)})
        case(n + "_tail_17", op, {"input": f(2, 17, lo=0.9, hi=1.1) if op == "Prod" else f(2, 17),
                                   "axis": c(-1)})
    case("sum_empty", "Sum", {"input": f(0, 3), "axis": c(0)})
    case("prod_empty", "Prod", {"input": f(2, 0), "axis": c(1)})
    case("sum_int64_axis", "Sum", {"input": x, "axis": c([1], I64)})
    case("mean_axis_out_of_range", "Mean", {"input": x, "axis": c(3)}, error=True)
    case("argmax_last", "ArgMax", {"input": x, "dimension": c(-1)})
    case("argmax_axis0_int32_out", "ArgMax", {"input": x, "dimension": c(0)}, {"output_type": tf.int32})
    case("argmax_axis1_int32_out", "ArgMax", {"input": x, "dimension": c(1)}, {"output_type": tf.int32})
    case("argmax_ties_first", "ArgMax", {"input": c([[1, 3, 3, 0], [2, 2, 2, 2]]), "dimension": c(1)},
         {"output_type": tf.int32})
    case("argmax_1d", "ArgMax", {"input": f(17), "dimension": c(0)}, {"output_type": tf.int32})


def gen_array():
    family("array")
    reseed(9)
    x = f(2, 3, 4)
    case("reshape_minus1", "Reshape", {"tensor": x, "shape": c([4, -1])})
    case("reshape_rank4", "Reshape", {"tensor": x, "shape": c([1, 2, 12, 1])})
    case("reshape_scalar", "Reshape", {"tensor": f(1, 1), "shape": c([], I32)})
    case("reshape_empty", "Reshape", {"tensor": f(0, 4), "shape": c([-1, 2])})
    case("reshape_int32", "Reshape", {"tensor": i(6), "shape": c([3, 2])})
    case("reshape_incompatible", "Reshape", {"tensor": x, "shape": c([5, 5])}, error=True)
    case("reshape_two_minus1", "Reshape", {"tensor": x, "shape": c([-1, -1])}, error=True)

    y = f(1, 3, 1, 2)
    case("squeeze_all", "Squeeze", {"input": y})
    case("squeeze_axis_neg", "Squeeze", {"input": y}, {"axis": [-2]})
    case("squeeze_axis0", "Squeeze", {"input": y}, {"axis": [0]})
    case("squeeze_not_one", "Squeeze", {"input": y}, {"axis": [1]}, error=True)
    case("expanddims_0", "ExpandDims", {"input": x, "axis": c(0)})
    case("expanddims_neg1", "ExpandDims", {"input": x, "axis": c(-1)})
    case("expanddims_scalar", "ExpandDims", {"input": c(2.5, F32), "axis": c(0)})

    case("concat_axis0", "ConcatV2", {"values": [f(1, 3), f(2, 3)], "axis": c(0)})
    case("concat_axis_neg1_three", "ConcatV2",
         {"values": [f(2, 2, 1), f(2, 2, 3), f(2, 2, 2)], "axis": c(-1)})
    case("concat_with_empty", "ConcatV2", {"values": [f(2, 0), f(2, 3)], "axis": c(1)})
    case("concat_int32", "ConcatV2", {"values": [i(2), i(3)], "axis": c(0)})
    case("concat_rank_mismatch", "ConcatV2", {"values": [f(2, 3), f(2, 3, 1)], "axis": c(0)},
         error=True)
    case("concat_dim_mismatch", "ConcatV2", {"values": [f(2, 3), f(3, 2)], "axis": c(0)},
         error=True)

    case("pack_axis0", "Pack", {"values": [f(3), f(3)]})
    case("pack_axis_neg1", "Pack", {"values": [f(2, 3), f(2, 3), f(2, 3)]}, {"axis": -1})
    case("pack_axis1", "Pack", {"values": [f(2, 3), f(2, 3)]}, {"axis": 1})
    case("pack_scalars_int32", "Pack", {"values": [c(1), c(2), c(3)]})
    case("unpack_axis0", "Unpack", {"value": x}, {"num": 2})
    case("unpack_axis_neg1", "Unpack", {"value": x}, {"num": 4, "axis": -1})
    case("unpack_axis1", "Unpack", {"value": x}, {"num": 3, "axis": 1})

    case("split_3_axis_neg1", "Split", {"axis": c(-1), "value": f(2, 6)}, {"num_split": 3})
    case("split_2_axis0", "Split", {"axis": c(0), "value": f(4, 3)}, {"num_split": 2})
    case("split_1", "Split", {"axis": c(1), "value": f(2, 3)}, {"num_split": 1})
    case("split_not_divisible", "Split", {"axis": c(1), "value": f(2, 5)}, {"num_split": 2},
         error=True)
    case("splitv_minus1", "SplitV", {"value": f(2, 7), "size_splits": c([2, -1, 1]),
                                     "axis": c(-1)}, {"num_split": 3})
    case("splitv_axis0", "SplitV", {"value": f(5, 2), "size_splits": c([1, 4]), "axis": c(0)},
         {"num_split": 2})
    case("splitv_zero_size", "SplitV", {"value": f(3, 2), "size_splits": c([0, 3]), "axis": c(0)},
         {"num_split": 2})

    z = f(4, 5, 6)

    def ss(name, begin, end, strides, **masks):
        case("stridedslice_" + name, "StridedSlice",
             {"input": z, "begin": c(begin), "end": c(end), "strides": c(strides)}, masks)
    ss("basic", [1, 0, 2], [3, 5, 6], [1, 2, 1])
    ss("neg_indices", [-3, -4, 0], [-1, -1, 6], [1, 1, 3])
    ss("reverse_all", [0, 0, 0], [0, 0, 0], [-1, -1, -1], begin_mask=7, end_mask=7)
    ss("neg_stride_range", [3, 4, 5], [0, 0, 1], [-2, -1, -2])
    ss("begin_end_mask", [2, 1, 0], [0, 3, 4], [1, 1, 1], begin_mask=1, end_mask=2)
    ss("shrink_axis", [1, 0, 2], [2, 5, 3], [1, 1, 1], shrink_axis_mask=5)
    ss("shrink_neg", [-1, 0, 0], [0, 0, 0], [1, 1, 1], shrink_axis_mask=1, end_mask=6)
    ss("new_axis", [0, 0, 1, 0], [0, 0, 3, 0], [1, 1, 1, 1], new_axis_mask=2, begin_mask=9,
       end_mask=9)
    ss("ellipsis", [0, 1], [0, 4], [1, 2], ellipsis_mask=1)
    ss("ellipsis_newaxis_shrink", [0, 0, 2], [0, 0, 3], [1, 1, 1], ellipsis_mask=1,
       new_axis_mask=2, shrink_axis_mask=4)
    ss("clamp_out_of_range", [-10, 2, 0], [10, 100, 6], [1, 1, 4])
    ss("empty_result", [3, 0, 0], [1, 5, 6], [1, 1, 1])
    ss("neg_stride_to_start", [2, -1, -2], [0, 0, 0], [-1, -2, -3], end_mask=7)
    case("stridedslice_1d_reverse_int32", "StridedSlice",
         {"input": i(9), "begin": c([-1]), "end": c([0]), "strides": c([-1])}, {"end_mask": 1})

    case("slice_basic", "Slice", {"input": z, "begin": c([1, 0, 2]), "size": c([2, 3, 4])})
    case("slice_size_minus1", "Slice", {"input": z, "begin": c([1, 2, 0]), "size": c([-1, 2, -1])})
    case("slice_empty", "Slice", {"input": z, "begin": c([0, 0, 0]), "size": c([0, 2, 3])})
    case("slice_out_of_bounds", "Slice", {"input": z, "begin": c([3, 0, 0]), "size": c([2, 1, 1])},
         error=True)

    case("transpose_021", "Transpose", {"x": z, "perm": c([0, 2, 1])})
    case("transpose_201", "Transpose", {"x": z, "perm": c([2, 0, 1])})
    case("transpose_2d", "Transpose", {"x": f(3, 7), "perm": c([1, 0])})
    case("transpose_nhwc_nchw", "Transpose", {"x": f(2, 3, 4, 5), "perm": c([0, 3, 1, 2])})
    case("transpose_rank5", "Transpose", {"x": f(2, 1, 3, 2, 2), "perm": c([4, 2, 0, 3, 1])})
    case("transpose_int32", "Transpose", {"x": i(2, 3), "perm": c([1, 0])})
    case("transpose_bad_perm", "Transpose", {"x": f(2, 3), "perm": c([0, 0])}, error=True)

    case("shape_int32", "Shape", {"input": z})
    case("shape_int64", "Shape", {"input": f(0, 3)}, {"out_type": tf.int64})
    case("shape_scalar", "Shape", {"input": c(1.0, F32)})
    case("fill_float", "Fill", {"dims": c([2, 3]), "value": c(1.5, F32)})
    case("fill_int32", "Fill", {"dims": c([4]), "value": c(-7)})
    case("fill_empty", "Fill", {"dims": c([0, 2]), "value": c(0.0, F32)})

    fv = c([-2.7, -1.5, -0.5, 0.0, 0.4, 1.5, 2.5, 3.9, 100.25], F32)
    case("cast_f32_i32_trunc", "Cast", {"x": fv}, {"DstT": tf.int32})
    case("cast_f32_bool", "Cast", {"x": fv}, {"DstT": tf.bool})
    case("cast_i32_f32", "Cast", {"x": i(7, lo=-1000, hi=1000)}, {"DstT": tf.float32})
    case("cast_i32_bool", "Cast", {"x": c([0, 1, -1, 5, 0])}, {"DstT": tf.bool})
    case("cast_bool_f32", "Cast", {"x": b(6)}, {"DstT": tf.float32})
    case("cast_bool_i32", "Cast", {"x": b(6)}, {"DstT": tf.int32})
    case("cast_i32_i64", "Cast", {"x": i(4)}, {"DstT": tf.int64})
    case("cast_i64_i32", "Cast", {"x": c([3, -4, 5], I64)}, {"DstT": tf.int32})
    case("cast_f32_f32", "Cast", {"x": f(3)}, {"DstT": tf.float32})

    p = f(2, 3, 4)
    case("pad_basic", "Pad", {"input": p, "paddings": c([[0, 0], [1, 2], [2, 1]])})
    case("pad_int32", "Pad", {"input": i(2, 3), "paddings": c([[1, 1], [0, 2]])})
    case("pad_zero", "Pad", {"input": p, "paddings": c([[0, 0], [0, 0], [0, 0]])})
    case("pad_int64_paddings", "Pad", {"input": f(3), "paddings": c([[2, 1]], I64)})
    case("padv2_value", "PadV2", {"input": p, "paddings": c([[1, 0], [0, 1], [1, 1]]),
                                  "constant_values": c(-2.5, F32)})
    case("padv2_int32", "PadV2", {"input": i(3), "paddings": c([[2, 2]]),
                                  "constant_values": c(9)})
    case("pad_negative", "Pad", {"input": p, "paddings": c([[0, 0], [-1, 0], [0, 0]])}, error=True)
    for mode in ("REFLECT", "SYMMETRIC"):
        m = mode.lower()
        case("mirrorpad_%s" % m, "MirrorPad",
             {"input": p, "paddings": c([[0, 0], [2, 1], [1, 3]])}, {"mode": mode})
        case("mirrorpad_%s_1d" % m, "MirrorPad", {"input": f(5), "paddings": c([[3, 2]])},
             {"mode": mode})
        case("mirrorpad_%s_4d" % m, "MirrorPad",
             {"input": f(1, 4, 4, 2), "paddings": c([[0, 0], [1, 2], [2, 1], [0, 0]])},
             {"mode": mode})
    case("mirrorpad_reflect_too_big", "MirrorPad", {"input": f(3), "paddings": c([[3, 0]])},
         {"mode": "REFLECT"}, error=True)
    case("mirrorpad_symmetric_max", "MirrorPad", {"input": f(3), "paddings": c([[3, 3]])},
         {"mode": "SYMMETRIC"})

    case("tile_basic", "Tile", {"input": p, "multiples": c([1, 2, 3])})
    case("tile_1d", "Tile", {"input": f(3), "multiples": c([4])})
    case("tile_int32_ones", "Tile", {"input": i(2, 2), "multiples": c([1, 1])})
    case("tile_zero", "Tile", {"input": f(2, 2), "multiples": c([0, 2])})

    g = f(4, 5, 3)
    case("gather_axis0", "GatherV2", {"params": g, "indices": c([3, 0, 0, 2]), "axis": c(0)})
    case("gather_axis1_2d_idx", "GatherV2", {"params": g, "indices": c([[4, 1], [0, 0], [2, 3]]),
                                             "axis": c(1)})
    case("gather_axis_neg1", "GatherV2", {"params": g, "indices": c([2, 0]), "axis": c(-1)})
    case("gather_scalar_idx", "GatherV2", {"params": g, "indices": c(1), "axis": c(1)})
    case("gather_int32_params", "GatherV2", {"params": i(6), "indices": c([5, 0, 3]), "axis": c(0)})
    case("gather_int64_idx", "GatherV2", {"params": g, "indices": c([1, 3], I64), "axis": c(0)})
    case("gather_empty_idx", "GatherV2", {"params": g, "indices": c([], I32), "axis": c(0)})
    case("gather_out_of_range", "GatherV2", {"params": g, "indices": c([4]), "axis": c(0)},
         error=True)

    # Keras Conv2D with dilation_rate converts to SpaceToBatchND -> Conv2D -> BatchToSpaceND
    case("spacetobatchnd_block2", "SpaceToBatchND",
         {"input": f(2, 4, 6, 3), "block_shape": c([2, 2]), "paddings": c([[0, 0], [0, 0]])})
    case("spacetobatchnd_padded", "SpaceToBatchND",
         {"input": f(1, 5, 3, 2), "block_shape": c([2, 3]), "paddings": c([[1, 2], [2, 1]])})
    case("spacetobatchnd_1d_block", "SpaceToBatchND",
         {"input": f(2, 6, 2), "block_shape": c([3]), "paddings": c([[0, 3]])})
    case("batchtospacend_block2", "BatchToSpaceND",
         {"input": f(8, 2, 3, 3), "block_shape": c([2, 2]), "crops": c([[0, 0], [0, 0]])})
    case("batchtospacend_cropped", "BatchToSpaceND",
         {"input": f(6, 4, 2, 2), "block_shape": c([2, 3]), "crops": c([[1, 2], [2, 1]])})
    case("spacetobatchnd_not_divisible", "SpaceToBatchND",
         {"input": f(1, 5, 4, 1), "block_shape": c([2, 2]), "paddings": c([[0, 0], [0, 0]])},
         error=True)

    case("identity", "Identity", {"input": f(2, 3)})
    case("identity_int32", "Identity", {"input": i(4)})
    case("identity_bool", "Identity", {"input": b(3)})
    case("identityn", "IdentityN", {"input": [f(2), i(3), b(1, 2)]})
    # Padding only outer dims: the unpadded inner dims are copied as one run per padded row.
    case("pad_outer_dims", "Pad", {"input": f(2, 3, 4, 5), "paddings": c([[0, 0], [1, 2], [2, 1], [0, 0]])})
    case("padv2_outer_dims", "PadV2", {"input": f(2, 3, 4), "paddings": c([[1, 1], [0, 0], [0, 0]]),
                                       "constant_values": c(1.5, F32)})


def gen_compare():
    family("compare")
    reseed(10)
    x = f(3, 4)
    xi = i(3, 4, lo=-2, hi=3)
    for op in ("Greater", "Less", "Equal", "GreaterEqual", "LessEqual"):
        n = op.lower()
        case(n, op, {"x": x, "y": f(3, 4)})
        case(n + "_bcast", op, {"x": x, "y": f(4)})
        case(n + "_int32_ties", op, {"x": xi, "y": i(1, 4, lo=-2, hi=3)})
        case(n + "_scalar", op, {"x": x, "y": c(0.0, F32)})
    case("equal_bool", "Equal", {"x": b(5), "y": b(5)})
    case("notequal_mismatch", "Greater", {"x": f(2, 3), "y": f(3, 2)}, error=True)
    case("select_same_shape", "Select", {"condition": b(3, 4), "x": f(3, 4), "y": f(3, 4)})
    case("select_vector_cond", "Select", {"condition": b(3), "x": f(3, 4), "y": f(3, 4)})
    case("select_int32", "Select", {"condition": b(5), "x": i(5), "y": i(5)})
    case("select_scalar_cond", "Select", {"condition": c(True, B), "x": f(2, 2), "y": f(2, 2)})
    case("select_bad_cond", "Select", {"condition": b(2), "x": f(3, 4), "y": f(3, 4)}, error=True)
    case("selectv2_bcast_cond", "SelectV2", {"condition": b(4), "t": f(3, 4), "e": f(3, 4)})
    case("selectv2_bcast_all", "SelectV2", {"condition": b(3, 1), "t": f(1, 4), "e": c(0.5, F32)})
    case("selectv2_same", "SelectV2", {"condition": b(2, 3), "t": f(2, 3), "e": f(2, 3)})
    case("selectv2_int32_rank3", "SelectV2", {"condition": b(2, 1, 3), "t": i(4, 1), "e": i(3)})


def gen_resize():
    family("resize")
    reseed(11)
    img = f(2, 4, 5, 3)
    combos = [(False, False), (True, False), (False, True)]
    for ac, hp in combos:
        tag = "ac%d_hp%d" % (ac, hp)
        for size in ([8, 10], [7, 3], [2, 2], [4, 5], [1, 1]):
            case("resize_bilinear_%s_%dx%d" % (tag, size[0], size[1]), "ResizeBilinear",
                 {"images": img, "size": c(size)}, {"align_corners": ac, "half_pixel_centers": hp})
    case("resize_bilinear_int32_input", "ResizeBilinear",
         {"images": i(1, 3, 3, 1), "size": c([5, 4])}, {"half_pixel_centers": True})
    case("resize_bilinear_1px_source", "ResizeBilinear", {"images": f(1, 1, 1, 2), "size": c([3, 2])},
         {"align_corners": True})
    case("resize_bilinear_ac_and_hp", "ResizeBilinear", {"images": img, "size": c([8, 10])},
         {"align_corners": True, "half_pixel_centers": True}, error=True)
    # The kernel's two paths: 4+ channels (a vectorized channel loop; 5 = one vector and a tail)
    # and 1-3 channels (one 4-lane step per pixel), each enlarging and shrinking.
    for ch in (1, 2, 5):
        wide = f(1, 6, 7, ch)
        for size in ([9, 11], [4, 3]):
            case("resize_bilinear_c%d_%dx%d" % (ch, size[0], size[1]), "ResizeBilinear",
                 {"images": wide, "size": c(size)}, {"half_pixel_centers": True})


# ---- op coverage for TF.js models (issue 16) ---------------------------------

def gen_math_extra():
    family("math_extra")
    reseed(20)
    fixture_io.NONFINITE_AS_STRINGS = True
    x = f(3, 5, scale=2.0)
    unit = f(3, 5, lo=-0.99, hi=0.99)
    big = f(2, 4, lo=1.01, hi=5.0)
    edge = c([0.0, -0.0, 1.0, -1.0, 0.5, 3.0, -3.0], F32)
    for op, arg in (("Acos", unit), ("Asin", unit), ("Atan", x), ("Atanh", unit),
                    ("Acosh", big), ("Asinh", x), ("Cosh", x), ("Sinh", x), ("Tan", unit),
                    ("Expm1", x)):
        n = op.lower()
        case(n, op, {"x": arg})
        case(n + "_edge", op, {"x": edge})
        case(n + "_empty", op, {"x": f(0, 3)})
    case("acos_out_of_domain_nan", "Acos", {"x": c([2.0, -1.5], F32)})
    case("acosh_below_one_nan", "Acosh", {"x": c([0.5, 1.0], F32)})
    case("atanh_one_inf", "Atanh", {"x": c([1.0, -1.0, 0.25], F32)})
    special = c([0.0, np.nan, np.inf, -np.inf, -1.5, 3.0, -0.0], F32)
    for op in ("IsNan", "IsInf", "IsFinite"):
        n = op.lower()
        case(n, op, {"x": special})
        case(n + "_2d", op, {"x": f(2, 3)})
        case(n + "_empty", op, {"x": f(0)})
    case("atan2_same_shape", "Atan2", {"y": f(2, 3), "x": f(2, 3)})
    case("atan2_bcast", "Atan2", {"y": f(3, 1), "x": f(4)})
    case("atan2_zeros", "Atan2", {"y": c([0.0, 0.0, -0.0, 1.0, -1.0], F32),
                                  "x": c([0.0, -1.0, -1.0, 0.0, 0.0], F32)})
    case("mod_float", "Mod", {"x": f(2, 4, scale=5.0), "y": f(4, lo=0.5, hi=2.0)})
    case("mod_float_neg", "Mod", {"x": c([-7.5, 7.5, -7.5, 7.5], F32), "y": c([2.0, -2.0, -2.0, 2.0], F32)})
    case("mod_int32", "Mod", {"x": c([-7, 7, -7, 7, 0]), "y": c([3, -3, -3, 3, 5])})
    case("mod_int64_bcast", "Mod", {"x": c([[-9, 9], [4, -4]], I64), "y": c([4], I64)})
    case("mod_int_zero", "Mod", {"x": c([1, 2]), "y": c([1, 0])}, error=True)
    case("divnonan_zero", "DivNoNan", {"x": c([1.0, -2.0, 0.0, 3.0], F32), "y": c([0.0, 4.0, 0.0, -0.5], F32)})
    case("divnonan_bcast", "DivNoNan", {"x": f(3, 4), "y": c([[0.0], [2.0], [-1.0]], F32)})
    case("divnonan_empty", "DivNoNan", {"x": f(0, 2), "y": f(2)})
    case("bitwiseand_int32", "BitwiseAnd", {"x": c([12, -1, 7, 0]), "y": c([10, 5, -8, 3])})
    case("bitwiseand_int64_bcast", "BitwiseAnd", {"x": c([[12, 255], [-16, 3]], I64), "y": c([6], I64)})
    case("bitwiseand_shape_mismatch", "BitwiseAnd", {"x": c([1, 2]), "y": c([1, 2, 3])}, error=True)
    case("clip_scalar_bounds", "ClipByValue", {"t": f(3, 4), "clip_value_min": c(-0.5, F32),
                                               "clip_value_max": c(0.5, F32)})
    case("clip_tensor_bounds", "ClipByValue", {"t": f(2, 3), "clip_value_min": f(2, 3, lo=-1, hi=0),
                                               "clip_value_max": f(2, 3, lo=0, hi=1)})
    case("clip_int32", "ClipByValue", {"t": i(7), "clip_value_min": c(-2), "clip_value_max": c(3)})
    case("clip_int64_empty", "ClipByValue", {"t": c(np.zeros((0, 2)), I64), "clip_value_min": c(0, I64),
                                             "clip_value_max": c(1, I64)})
    case("clip_bad_shape", "ClipByValue", {"t": f(2, 3), "clip_value_min": f(3),
                                           "clip_value_max": c(1.0, F32)}, error=True)
    for op in ("Cumsum", "Cumprod"):
        n = op.lower()
        xx = f(2, 3, 4, lo=0.5, hi=1.5)
        case(n + "_axis0", op, {"x": xx, "axis": c(0)})
        case(n + "_axis_neg1", op, {"x": xx, "axis": c(-1)})
        case(n + "_exclusive", op, {"x": xx, "axis": c(1)}, {"exclusive": True})
        case(n + "_reverse", op, {"x": xx, "axis": c(2)}, {"reverse": True})
        case(n + "_exclusive_reverse", op, {"x": xx, "axis": c(1, I64)},
             {"exclusive": True, "reverse": True})
        case(n + "_int32", op, {"x": i(2, 5, lo=-3, hi=4), "axis": c(1)})
        case(n + "_int64", op, {"x": c([[1, 2, 3], [4, 5, 6]], I64), "axis": c(0)})
        case(n + "_empty", op, {"x": f(0, 3), "axis": c(1)})
        case(n + "_axis_out_of_range", op, {"x": xx, "axis": c(3)}, error=True)
        case(n + "_axis_not_scalar", op, {"x": xx, "axis": c([0])}, error=True)
    fixture_io.NONFINITE_AS_STRINGS = False


def gen_gather_nd():
    family("gather_nd")
    reseed(21)
    p = f(3, 4, 2)
    case("gathernd_full_index", "GatherNd", {"params": p, "indices": c([[0, 1, 1], [2, 3, 0]])})
    case("gathernd_slices", "GatherNd", {"params": p, "indices": c([[1], [0], [2]])})
    case("gathernd_rows_batched", "GatherNd", {"params": p, "indices": c([[[0, 0], [2, 3]], [[1, 2], [1, 2]]], I64)})
    case("gathernd_int32_params", "GatherNd", {"params": i(4, 3), "indices": c([[3, 2], [0, 0]])})
    case("gathernd_bool_params", "GatherNd", {"params": b(2, 3), "indices": c([[1]])})
    case("gathernd_empty_indices", "GatherNd", {"params": p, "indices": c(np.zeros((0, 2)), I32)})
    case("gathernd_depth0", "GatherNd", {"params": f(2, 2), "indices": c(np.zeros((3, 0)), I32)})
    case("gathernd_out_of_range", "GatherNd", {"params": p, "indices": c([[0, 4]])}, error=True)
    case("gathernd_negative_index", "GatherNd", {"params": p, "indices": c([[-1]])}, error=True)
    case("gathernd_depth_too_big", "GatherNd", {"params": f(2, 2), "indices": c([[0, 0, 0]])}, error=True)
    case("scatternd_2d", "ScatterNd", {"indices": c([[0, 1], [2, 0]]), "updates": f(2), "shape": c([3, 2])})
    case("scatternd_slices_dup_add", "ScatterNd", {"indices": c([[1], [3], [1]]), "updates": f(3, 2),
                                                   "shape": c([4, 2])})
    case("scatternd_1d_int32", "ScatterNd", {"indices": c([[4], [3], [1], [7]]), "updates": c([9, 10, 11, 12]),
                                             "shape": c([8])})
    case("scatternd_rank1_indices", "ScatterNd", {"indices": c([2, 1]), "updates": c([5.0], F32),
                                                  "shape": c([3, 2])}, error=True)
    case("scatternd_scalar_updates", "ScatterNd", {"indices": c([[2, 1]]), "updates": c(5.0, F32),
                                                   "shape": c([3, 2])}, error=True)
    case("scatternd_int64", "ScatterNd", {"indices": c([[0], [0]], I64), "updates": c([[1, 2], [3, 4]], I64),
                                          "shape": c([2, 2], I64)})
    case("scatternd_empty_updates", "ScatterNd", {"indices": c(np.zeros((0, 1)), I32), "updates": f(0, 3),
                                                  "shape": c([2, 3])})
    case("scatternd_out_of_range", "ScatterNd", {"indices": c([[5]]), "updates": f(1), "shape": c([4])},
         error=True)
    case("scatternd_bad_updates_shape", "ScatterNd", {"indices": c([[1]]), "updates": f(2), "shape": c([4])},
         error=True)
    t = f(4, 3)
    case("tsu_rows", "TensorScatterUpdate", {"tensor": t, "indices": c([[1], [3]]), "updates": f(2, 3)})
    case("tsu_elements", "TensorScatterUpdate", {"tensor": t, "indices": c([[0, 0], [3, 2]], I64),
                                                  "updates": c([7.0, 8.0], F32)})
    case("tsu_bool", "TensorScatterUpdate", {"tensor": b(3), "indices": c([[2]]), "updates": c([True], B)})
    case("tsu_int32_empty", "TensorScatterUpdate", {"tensor": i(2, 2), "indices": c(np.zeros((0, 1)), I32),
                                                     "updates": c(np.zeros((0, 2)), I32)})
    case("tsu_out_of_range", "TensorScatterUpdate", {"tensor": t, "indices": c([[4]]), "updates": f(1, 3)},
         error=True)
    case("std_2d", "SparseToDense", {"sparse_indices": c([[0, 1], [1, 2], [2, 0]]), "output_shape": c([3, 4]),
                                     "sparse_values": f(3), "default_value": c(-1.0, F32)})
    case("std_1d_scalar_value", "SparseToDense", {"sparse_indices": c([1, 3], I64), "output_shape": c([5], I64),
                                                  "sparse_values": c(7), "default_value": c(0)})
    case("std_scalar_index", "SparseToDense", {"sparse_indices": c(2), "output_shape": c([4]),
                                               "sparse_values": c(True, B), "default_value": c(False, B)})
    case("std_unordered_novalidate", "SparseToDense", {"sparse_indices": c([3, 0]), "output_shape": c([4]),
                                                       "sparse_values": f(2), "default_value": c(0.0, F32)},
         {"validate_indices": False})
    case("std_unordered", "SparseToDense", {"sparse_indices": c([3, 0]), "output_shape": c([4]),
                                            "sparse_values": f(2), "default_value": c(0.0, F32)}, error=True)
    case("std_repeated", "SparseToDense", {"sparse_indices": c([1, 1]), "output_shape": c([4]),
                                           "sparse_values": f(2), "default_value": c(0.0, F32)}, error=True)
    case("std_out_of_bounds", "SparseToDense", {"sparse_indices": c([1, 4]), "output_shape": c([4]),
                                                "sparse_values": f(2), "default_value": c(0.0, F32)}, error=True)
    case("std_strings", "SparseToDense", {"sparse_indices": c([[0, 1], [2, 0]]), "output_shape": c([3, 2]),
                                          "sparse_values": s(["a", "bc"]), "default_value": s("")})


def gen_dynamic():
    family("dynamic")
    reseed(22)
    case("where_bool_2d", "Where", {"condition": b(3, 4)})
    case("where_float_3d", "Where", {"condition": c([[[0.0, 1.5], [0.0, 0.0]], [[-2.0, 0.0], [0.0, 3.0]]], F32)})
    case("where_int32_1d", "Where", {"condition": c([0, 3, 0, -1, 5])})
    case("where_none_true", "Where", {"condition": c([False, False], B)})
    case("where_empty", "Where", {"condition": b(0, 3)})
    case("where_scalar_error", "Where", {"condition": c(True, B)}, error=True)
    case("topk_sorted", "TopKV2", {"input": f(3, 8), "k": c(3)})
    case("topk_ties_lower_index_first", "TopKV2", {"input": c([[1, 3, 2, 3, 3], [5, 5, 5, 1, 0]], F32), "k": c(4)})
    case("topk_1d_int32", "TopKV2", {"input": c([4, -1, 9, 9, 2]), "k": c(2)})
    case("topk_int64_index_type", "TopKV2", {"input": c([[4, 8, 1]], I64), "k": c(3, I64)},
         {"index_type": tf.int64})
    case("topk_k0", "TopKV2", {"input": f(2, 3), "k": c(0)})
    case("topk_all_unsorted", "TopKV2", {"input": c([[3, 1, 2]], F32), "k": c(3)}, {"sorted": False})
    case("topk_k_too_big", "TopKV2", {"input": f(2, 3), "k": c(4)}, error=True)
    case("topk_k_negative", "TopKV2", {"input": f(2, 3), "k": c(-1)}, error=True)
    case("topk_scalar_input", "TopKV2", {"input": c(1.0, F32), "k": c(1)}, error=True)
    case("unique_int32", "Unique", {"x": c([1, 1, 2, 4, 4, 4, 7, 8, 8])})
    case("unique_float_out_idx64", "Unique", {"x": c([2.5, -1.0, 2.5, 0.0, -0.0], F32)}, {"out_idx": tf.int64})
    case("unique_bool", "Unique", {"x": c([True, False, True], B)})
    case("unique_empty", "Unique", {"x": c([], I64)})
    case("unique_2d_error", "Unique", {"x": c([[1, 2]])}, error=True)
    m = c([[1, 0, 0], [1, 0, 0], [2, 0, 0]])
    case("uniquev2_axis0", "UniqueV2", {"x": m, "axis": c([0], I64)})
    case("uniquev2_axis1", "UniqueV2", {"x": m, "axis": c([1])})
    case("uniquev2_axis_neg", "UniqueV2", {"x": m, "axis": c([-2], I64)})
    case("uniquev2_no_axis_1d", "UniqueV2", {"x": c([3.0, 1.0, 3.0], F32), "axis": c([], I64)})
    case("uniquev2_axis_out_of_range", "UniqueV2", {"x": m, "axis": c([2], I64)}, error=True)
    case("listdiff_int32", "ListDiff", {"x": c([1, 2, 3, 4, 5, 6]), "y": c([1, 3, 5])})
    case("listdiff_float_dups", "ListDiff", {"x": c([1.5, 2.0, 1.5, 3.0], F32), "y": c([2.0], F32)},
         {"out_idx": tf.int64})
    case("listdiff_all_removed", "ListDiff", {"x": c([1, 1], I64), "y": c([1, 2], I64)})
    case("listdiff_2d_error", "ListDiff", {"x": c([[1]]), "y": c([1])}, error=True)
    # sorted=False: TF's CPU kernel returns gtl::TopN's heap order (k == 1 and k == n: sorted).
    case("topk_unsorted_heap", "TopKV2", {"input": f(4, 20), "k": c(5)}, {"sorted": False})
    case("topk_unsorted_ties", "TopKV2", {"input": i(3, 15, lo=0, hi=4), "k": c(6)}, {"sorted": False})
    case("topk_unsorted_long", "TopKV2", {"input": f(2, 64), "k": c(9)}, {"sorted": False})
    case("topk_unsorted_k1", "TopKV2", {"input": c([[2, 7, 7, 1]], F32), "k": c(1)}, {"sorted": False})
    case("topk_unsorted_even_k", "TopKV2", {"input": i(2, 11), "k": c(4)}, {"sorted": False})
    # Small k over long rows (the selection's candidate buffer fills and is cut many times), with
    # many ties; -0.0 ties 0.0; a NaN compares equal to everything inside TF's heap (1 < k < n).
    case("topk_long_rows_ties", "TopKV2", {"input": i(2, 5000, lo=0, hi=50), "k": c(100)})
    case("topk_long_rows_float", "TopKV2", {"input": f(2, 3000), "k": c(100)})
    case("topk_long_rows_k1", "TopKV2", {"input": i(2, 3000, lo=0, hi=9), "k": c(1)})
    case("topk_signed_zero_ties", "TopKV2", {"input": c([[-0.0, 0.0, -1.0, 0.0, -0.0]], F32), "k": c(3)})
    case("topk_signed_zero_all", "TopKV2", {"input": c([[0.0, -0.0, 2.0, -0.0]], F32), "k": c(4)})
    case("topk_signed_zero_unsorted", "TopKV2", {"input": c([[-0.0, 0.0, -0.0, 0.0, 1.0]], F32), "k": c(3)},
         {"sorted": False})
    nans = c([[1.0, np.nan, 3.0, 2.0, np.nan, 0.0, 5.0, 4.0], [np.nan, 1.0, 2.0, np.nan, 7.0, 0.5, 6.0, 3.0]], F32)
    fixture_io.NONFINITE_AS_STRINGS = True
    case("topk_nan_sorted", "TopKV2", {"input": nans, "k": c(4)})
    case("topk_nan_unsorted", "TopKV2", {"input": nans, "k": c(3)}, {"sorted": False})
    fixture_io.NONFINITE_AS_STRINGS = False
    # ToBool: how a non-bool If predicate is read (scalar: non-zero; else: non-empty).
    case("tobool_float_zero", "ToBool", {"input": c(-0.0, F32)})
    case("tobool_int_scalar", "ToBool", {"input": c(-3)})
    case("tobool_zeros_vector", "ToBool", {"input": c([0, 0])})
    case("tobool_empty", "ToBool", {"input": f(0, 3)})
    case("tobool_bool_false", "ToBool", {"input": c(False, B)})


def gen_array_extra():
    family("array_extra")
    reseed(23)
    case("broadcastto_rank_up", "BroadcastTo", {"input": f(3), "shape": c([2, 3])})
    case("broadcastto_stretch_middle", "BroadcastTo", {"input": f(2, 1, 3), "shape": c([2, 4, 3], I64)})
    case("broadcastto_scalar_int32", "BroadcastTo", {"input": c(5), "shape": c([2, 2])})
    case("broadcastto_bool_same", "BroadcastTo", {"input": b(2, 2), "shape": c([2, 2])})
    case("broadcastto_zero_dim", "BroadcastTo", {"input": f(1, 3), "shape": c([0, 3])})
    case("broadcastto_incompatible", "BroadcastTo", {"input": f(2, 3), "shape": c([3, 3])}, error=True)
    case("broadcastargs_basic", "BroadcastArgs", {"s0": c([2, 1, 3]), "s1": c([4, 1])})
    case("broadcastargs_int64_empty", "BroadcastArgs", {"s0": c([], I64), "s1": c([5, 2], I64)})
    case("broadcastargs_zero", "BroadcastArgs", {"s0": c([0, 1]), "s1": c([1, 4])})
    case("broadcastargs_incompatible", "BroadcastArgs", {"s0": c([2, 3]), "s1": c([4])}, error=True)
    case("broadcastargs_negative", "BroadcastArgs", {"s0": c([1, 6, -1]), "s1": c([3, 1, 1, 1])})
    case("broadcastargs_negative_one", "BroadcastArgs", {"s0": c([-2, 1], I64), "s1": c([1, -3], I64)})
    case("broadcastargs_negative_bad", "BroadcastArgs", {"s0": c([-1]), "s1": c([3])}, error=True)
    x = f(2, 3, 4)
    case("reversev2_last", "ReverseV2", {"tensor": x, "axis": c([-1])})
    case("reversev2_two_axes", "ReverseV2", {"tensor": x, "axis": c([0, 2], I64)})
    case("reversev2_none", "ReverseV2", {"tensor": i(3, 2), "axis": c([], I32)})
    case("reversev2_bool_empty", "ReverseV2", {"tensor": b(0, 2), "axis": c([1])})
    case("reversev2_axis_out_of_range", "ReverseV2", {"tensor": x, "axis": c([3])}, error=True)
    case("reversev2_axis_repeated", "ReverseV2", {"tensor": x, "axis": c([1, -2])}, error=True)
    case("reverse_v1", "Reverse", {"tensor": x, "dims": c([True, False, True], B)})
    case("reverse_v1_int32", "Reverse", {"tensor": i(4), "dims": c([True], B)})
    case("reverse_v1_none", "Reverse", {"tensor": f(2, 2), "dims": c([False, False], B)})
    case("reverse_v1_bad_dims", "Reverse", {"tensor": f(2, 2), "dims": c([True], B)}, error=True)
    case("onehot_last_axis", "OneHot", {"indices": c([0, 2, -1, 1], I64), "depth": c(3),
                                        "on_value": c(1.0, F32), "off_value": c(0.0, F32)})
    case("onehot_axis0_int32", "OneHot", {"indices": c([[0, 1], [3, 2]]), "depth": c(4),
                                          "on_value": c(5), "off_value": c(-1)}, {"axis": 0})
    case("onehot_axis1", "OneHot", {"indices": c([[0, 1], [2, 9]]), "depth": c(3),
                                    "on_value": c(True, B), "off_value": c(False, B)}, {"axis": 1})
    case("onehot_depth0", "OneHot", {"indices": c([1, 2]), "depth": c(0),
                                     "on_value": c(1.0, F32), "off_value": c(0.0, F32)})
    case("onehot_negative_depth", "OneHot", {"indices": c([1]), "depth": c(-1),
                                             "on_value": c(1.0, F32), "off_value": c(0.0, F32)}, error=True)
    case("linspace_basic", "LinSpace", {"start": c(0.0, F32), "stop": c(1.0, F32), "num": c(5)})
    case("linspace_descending", "LinSpace", {"start": c(3.5, F32), "stop": c(-2.0, F32), "num": c(7, I64)})
    case("linspace_one", "LinSpace", {"start": c(2.0, F32), "stop": c(9.0, F32), "num": c(1)})
    case("linspace_zero_num", "LinSpace", {"start": c(2.0, F32), "stop": c(9.0, F32), "num": c(0)}, error=True)
    case("shapen_two", "ShapeN", {"input": [f(2, 3), f(4)]})
    case("shapen_int64", "ShapeN", {"input": [f(), f(0, 1), f(1, 2, 3)]}, {"out_type": tf.int64})
    case("shapen_one", "ShapeN", {"input": [f(5, 1)]})
    img = f(2, 2, 3, 8)
    case("depthtospace_bs2", "DepthToSpace", {"input": img}, {"block_size": 2})
    case("depthtospace_int32_bs3", "DepthToSpace", {"input": i(1, 2, 2, 9)}, {"block_size": 3})
    case("depthtospace_empty_batch", "DepthToSpace", {"input": f(0, 2, 2, 4)}, {"block_size": 2})
    case("depthtospace_bad_depth", "DepthToSpace", {"input": f(1, 2, 2, 6)}, {"block_size": 2}, error=True)
    case("depthtospace_rank3", "DepthToSpace", {"input": f(2, 2, 4)}, {"block_size": 2}, error=True)
    case("spacetodepth_bs2", "SpaceToDepth", {"input": f(2, 4, 6, 3)}, {"block_size": 2})
    case("spacetodepth_bool_bs3", "SpaceToDepth", {"input": b(1, 3, 3, 1)}, {"block_size": 3})
    case("spacetodepth_roundtrip_shape", "SpaceToDepth", {"input": f(1, 2, 2, 5)}, {"block_size": 2})
    case("spacetodepth_not_divisible", "SpaceToDepth", {"input": f(1, 3, 4, 1)}, {"block_size": 2},
         error=True)
    case("concat_v1_axis1", "Concat", {"concat_dim": c(1), "values": [f(2, 1), f(2, 3)]})
    case("concat_v1_neg_axis_int32", "Concat", {"concat_dim": c(-1), "values": [i(1, 2), i(1, 1), i(1, 3)]})
    case("concat_v1_axis0_bool", "Concat", {"concat_dim": c(0), "values": [b(1, 2), b(0, 2)]})
    case("concat_v1_mismatch", "Concat", {"concat_dim": c(0), "values": [f(2, 1), f(2, 3)]}, error=True)
    case("gather_v1", "Gather", {"params": f(5, 3), "indices": c([4, 0, 2])})
    case("gather_v1_2d_indices", "Gather", {"params": i(4), "indices": c([[1, 1], [3, 0]], I64)})
    case("gather_v1_empty", "Gather", {"params": f(3, 2), "indices": c([], I32)})
    case("gather_v1_out_of_range", "Gather", {"params": f(3, 2), "indices": c([3])}, error=True)
    case("ensureshape_ok", "EnsureShape", {"input": f(2, 3)}, {"shape": [2, 3]})
    case("ensureshape_unknown_dim", "EnsureShape", {"input": i(4, 1)}, {"shape": [None, 1]})
    case("ensureshape_unknown_rank", "EnsureShape", {"input": f(1)}, {"shape": None})
    case("ensureshape_mismatch", "EnsureShape", {"input": f(2, 3)}, {"shape": [3, 2]}, error=True)
    case("print_pass_through", "Print", {"input": f(2, 2), "data": [f(1), i(2)]}, {"message": "x: "})
    case("print_int32_no_data", "Print", {"input": i(3), "data": []})
    case("print_bool", "Print", {"input": b(2), "data": [b(1)]}, {"first_n": 1, "summarize": 2})
    case("pwd_float", "PlaceholderWithDefault", {"input": f(2, 2)}, {"shape": [2, 2]})
    case("pwd_int32_unknown", "PlaceholderWithDefault", {"input": i(3)}, {"shape": [None]})
    case("pwd_bool_scalar", "PlaceholderWithDefault", {"input": c(True, B)}, {"shape": []})


def _same_pads(n, k, s, d):
    eff = (k - 1) * d + 1
    out = -(-n // s)
    need = max((out - 1) * s + eff - n, 0)
    return need // 2


def _conv_bp_composed(sizes, filt, dy, strides, padding, dilations, explicit):
    """Conv2DBackpropInput from TF ops: every filter tap's contribution (an einsum) added at its
    strided, dilated place (tensor_scatter_nd_add) on a padded canvas, then cropped. TF's CPU
    kernel refuses dilations > 1; this is the same sum, and matches the kernel without them."""
    n, h, w, ci = sizes
    kh, kw = filt.shape[:2]
    _, oh, ow, _ = dy.shape
    s, d = strides[1:3], dilations[1:3]
    if padding == "SAME":
        pt, pl = _same_pads(h, kh, s[0], d[0]), _same_pads(w, kw, s[1], d[1])
    elif padding == "VALID":
        pt, pl = 0, 0
    else:
        pt, pl = explicit[2], explicit[4]
    hc = pt + (oh - 1) * s[0] + (kh - 1) * d[0] + 1 + h
    wc = pl + (ow - 1) * s[1] + (kw - 1) * d[1] + 1 + w
    canvas = tf.zeros([n, hc, wc, ci])
    bi, yi, xi = np.meshgrid(np.arange(n), np.arange(oh), np.arange(ow), indexing="ij")
    for ky in range(kh):
        for kx in range(kw):
            contrib = tf.einsum("nyxo,io->nyxi", dy, filt[ky, kx])
            idx = np.stack([bi, yi * s[0] + ky * d[0], xi * s[1] + kx * d[1]], -1)
            canvas = tf.tensor_scatter_nd_add(canvas, idx, contrib)
    return [canvas[:, pt:pt + h, pl:pl + w, :].numpy()]


def gen_conv_transpose():
    family("conv_transpose")
    reseed(24)
    op = "Conv2DBackpropInput"

    def bp(name, sizes, kshape, strides=(1, 1), padding="SAME", dil=(1, 1), explicit=(), error=False):
        filt = f(*kshape)
        n, h, w, ci = sizes
        st, dl = [1, strides[0], strides[1], 1], [1, dil[0], dil[1], 1]
        oh = _out_size(h, kshape[0], strides[0], dil[0], padding, explicit[2:4] if explicit else None)
        ow = _out_size(w, kshape[1], strides[1], dil[1], padding, explicit[4:6] if explicit else None)
        dy = f(n, oh, ow, kshape[3])
        attrs = {"strides": st, "padding": padding, "dilations": dl}
        if explicit:
            attrs["explicit_paddings"] = list(explicit)
        inputs = {"input_sizes": c(list(sizes)), "filter": filt, "out_backprop": dy}
        if error or dil == (1, 1):
            case(name, op, inputs, attrs, error=error)
            if not error:
                # The composition used for dilated cases must agree with TF's kernel here.
                native = getattr(tf.raw_ops, op)(**inputs, **attrs).numpy()
                comp = _conv_bp_composed(sizes, filt, dy, st, padding, dl, explicit)[0]
                np.testing.assert_allclose(comp, native, rtol=1e-4, atol=1e-5)
        else:
            case(name, op, inputs, attrs,
                 ref=lambda: _conv_bp_composed(sizes, filt, dy, st, padding, dl, explicit))

    bp("bpi_same_s1", (2, 5, 5, 3), (3, 3, 3, 4))
    bp("bpi_same_s2", (1, 8, 8, 2), (3, 3, 2, 5), strides=(2, 2))
    bp("bpi_same_s2_odd", (1, 7, 9, 2), (3, 3, 2, 3), strides=(2, 2))
    bp("bpi_valid_s2_k2", (2, 6, 6, 4), (2, 2, 4, 3), strides=(2, 2), padding="VALID")
    bp("bpi_valid_s3_k3_leftover", (1, 10, 8, 1), (3, 3, 1, 2), strides=(3, 2), padding="VALID")
    bp("bpi_same_k4_s2", (1, 6, 6, 3), (4, 4, 3, 2), strides=(2, 2))
    bp("bpi_explicit", (1, 5, 6, 2), (3, 2, 2, 3), strides=(2, 1), padding="EXPLICIT",
       explicit=(0, 0, 1, 2, 0, 1, 0, 0))
    bp("bpi_dilated_same", (1, 7, 7, 2), (3, 3, 2, 3), dil=(2, 2))
    bp("bpi_dilated_valid_rect", (1, 9, 8, 1), (2, 3, 1, 2), dil=(3, 2), padding="VALID")
    bp("bpi_1x1_many_channels", (1, 3, 3, 40), (1, 1, 40, 33))
    case("bpi_wrong_out_size", op, {"input_sizes": c([1, 5, 5, 2]), "filter": f(3, 3, 2, 2),
                                     "out_backprop": f(1, 4, 5, 2)}, {"strides": [1, 1, 1, 1], "padding": "SAME"},
         error=True)
    case("bpi_depth_mismatch", op, {"input_sizes": c([1, 4, 4, 3]), "filter": f(3, 3, 2, 2),
                                     "out_backprop": f(1, 4, 4, 2)}, {"strides": [1, 1, 1, 1], "padding": "SAME"},
         error=True)
    case("bpi_batch_stride", op, {"input_sizes": c([1, 4, 4, 2]), "filter": f(3, 3, 2, 2),
                                   "out_backprop": f(1, 4, 4, 2)}, {"strides": [2, 1, 1, 1], "padding": "SAME"},
         error=True)
    case("bpi_zero_batch", op, {"input_sizes": c([0, 4, 4, 2]), "filter": f(3, 3, 2, 2),
                                 "out_backprop": f(0, 4, 4, 2)}, {"strides": [1, 1, 1, 1], "padding": "SAME"})


def _out_size(n, k, s, d, padding, explicit):
    eff = (k - 1) * d + 1
    if padding == "SAME":
        return -(-n // s)
    if padding == "VALID":
        return (n - eff + s) // s
    return (n + explicit[0] + explicit[1] - eff + s) // s


def gen_image_extra():
    family("image_extra")
    reseed(25)
    img = f(2, 4, 5, 3)
    for ac, hp in ((False, False), (True, False), (False, True)):
        tag = ("_ac" if ac else "") + ("_hp" if hp else "")
        case("rnn_up" + tag, "ResizeNearestNeighbor", {"images": img, "size": c([7, 9])},
             {"align_corners": ac, "half_pixel_centers": hp})
        case("rnn_down" + tag, "ResizeNearestNeighbor", {"images": img, "size": c([3, 2])},
             {"align_corners": ac, "half_pixel_centers": hp})
    case("rnn_int32", "ResizeNearestNeighbor", {"images": i(1, 3, 3, 1), "size": c([6, 6])})
    case("rnn_int64_hp", "ResizeNearestNeighbor", {"images": c(np.arange(12).reshape(1, 2, 3, 2), I64),
                                                   "size": c([5, 4])}, {"half_pixel_centers": True})
    case("rnn_ac_and_hp", "ResizeNearestNeighbor", {"images": img, "size": c([3, 3])},
         {"align_corners": True, "half_pixel_centers": True}, error=True)
    case("rnn_zero_size", "ResizeNearestNeighbor", {"images": img, "size": c([0, 3])}, error=True)
    # NMS: boxes overlapping in clusters, scores with ties.
    boxes = c([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
               [0, 10.1, 1, 11.1], [0, 100, 1, 101], [1, 1, 0, 0], [0.5, 0.5, 0.5, 0.9]], F32)
    scores = c([0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.75, 0.99], F32)
    base = {"boxes": boxes, "scores": scores, "max_output_size": c(6), "iou_threshold": c(0.5, F32)}
    case("nmsv2_basic", "NonMaxSuppressionV2", base)
    case("nmsv2_max2", "NonMaxSuppressionV2", dict(base, max_output_size=c(2)))
    case("nmsv2_iou0", "NonMaxSuppressionV2", dict(base, iou_threshold=c(0.0, F32)))
    v3 = dict(base, score_threshold=c(0.55, F32))
    case("nmsv3_score_threshold", "NonMaxSuppressionV3", v3)
    case("nmsv3_iou1", "NonMaxSuppressionV3", dict(v3, iou_threshold=c(1.0, F32)))
    case("nmsv3_empty", "NonMaxSuppressionV3", dict(v3, boxes=f(0, 4), scores=f(0)))
    case("nmsv3_max0", "NonMaxSuppressionV3", dict(v3, max_output_size=c(0)))
    case("nmsv3_random", "NonMaxSuppressionV3",
         {"boxes": f(30, 4, lo=0, hi=1), "scores": f(30, lo=0, hi=1), "max_output_size": c(10),
          "iou_threshold": c(0.3, F32), "score_threshold": c(0.1, F32)})
    case("nmsv3_bad_iou", "NonMaxSuppressionV3", dict(v3, iou_threshold=c(1.5, F32)), error=True)
    case("nmsv3_bad_boxes", "NonMaxSuppressionV3", dict(v3, boxes=f(8, 3)), error=True)
    case("nmsv3_scores_mismatch", "NonMaxSuppressionV3", dict(v3, scores=f(7)), error=True)
    case("nmsv3_negative_max", "NonMaxSuppressionV3", dict(v3, max_output_size=c(-1)), error=True)
    case("nmsv4_padded", "NonMaxSuppressionV4", dict(v3, max_output_size=c(7)), {"pad_to_max_output_size": True})
    case("nmsv4_unpadded", "NonMaxSuppressionV4", v3)
    case("nmsv4_padded_empty", "NonMaxSuppressionV4", dict(v3, boxes=f(0, 4), scores=f(0)),
         {"pad_to_max_output_size": True})
    v5 = dict(v3, soft_nms_sigma=c(0.0, F32))
    case("nmsv5_hard", "NonMaxSuppressionV5", v5)
    case("nmsv5_soft", "NonMaxSuppressionV5", dict(v5, soft_nms_sigma=c(0.5, F32), max_output_size=c(8),
                                                    score_threshold=c(0.1, F32)))
    case("nmsv5_soft_padded", "NonMaxSuppressionV5",
         {"boxes": f(20, 4, lo=0, hi=1), "scores": f(20, lo=0, hi=1), "max_output_size": c(25),
          "iou_threshold": c(0.4, F32), "score_threshold": c(0.2, F32), "soft_nms_sigma": c(0.3, F32)},
         {"pad_to_max_output_size": True})
    case("nmsv5_negative_sigma", "NonMaxSuppressionV5", dict(v5, soft_nms_sigma=c(-0.5, F32)), error=True)


def gen_uint8():
    family("uint8")
    reseed(26)
    U8 = np.uint8
    px = _rng.integers(0, 256, (1, 4, 5, 3)).astype(U8)
    case("cast_u8_to_f32", "Cast", {"x": px}, {"DstT": tf.float32})
    case("cast_u8_to_i32", "Cast", {"x": px}, {"DstT": tf.int32})
    case("cast_u8_to_bool", "Cast", {"x": c([0, 1, 255], U8)}, {"DstT": tf.bool})
    case("cast_f32_to_u8", "Cast", {"x": c([0.0, 1.7, 254.9, 255.0, 12.5], F32)}, {"DstT": tf.uint8})
    case("cast_i32_to_u8_wraps", "Cast", {"x": c([0, 255, 256, -1, 1000])}, {"DstT": tf.uint8})
    case("cast_bool_to_u8", "Cast", {"x": c([True, False], B)}, {"DstT": tf.uint8})
    case("resize_bilinear_u8", "ResizeBilinear", {"images": px, "size": c([7, 3])}, {"half_pixel_centers": True})
    case("resize_nearest_u8", "ResizeNearestNeighbor", {"images": px, "size": c([8, 10])})
    case("reshape_u8", "Reshape", {"tensor": px, "shape": c([4, -1])})
    case("expanddims_u8", "ExpandDims", {"input": c([1, 2], U8), "axis": c(0)})
    case("concat_u8", "ConcatV2", {"values": [px, px], "axis": c(-1)})
    case("transpose_u8", "Transpose", {"x": px, "perm": c([0, 3, 1, 2])})
    case("stridedslice_u8_reverse_channels", "StridedSlice",
         {"input": px, "begin": c([0, 0, 0, -1]), "end": c([0, 0, 0, -4]), "strides": c([1, 1, 1, -1])},
         {"begin_mask": 7, "end_mask": 7})
    case("gatherv2_u8", "GatherV2", {"params": px, "indices": c([2, 0]), "axis": c(2)})
    case("pad_u8", "Pad", {"input": c([[1, 2], [3, 4]], U8), "paddings": c([[1, 0], [0, 2]])})
    case("identity_u8", "Identity", {"input": px})
    case("equal_u8", "Equal", {"x": c([0, 5, 255], U8), "y": c([0, 4, 255], U8)})
    case("where_u8", "Where", {"condition": c([[0, 3], [7, 0]], U8)})
    case("topk_u8", "TopKV2", {"input": c([[3, 200, 7, 200]], U8), "k": c(2)})
    case("clip_u8", "ClipByValue", {"t": c([0, 10, 200, 255], U8), "clip_value_min": c(5, U8),
                                     "clip_value_max": c(199, U8)})
    case("onehot_u8_indices", "OneHot", {"indices": c([0, 2, 1], U8), "depth": c(3),
                                         "on_value": c(1.0, F32), "off_value": c(0.0, F32)})
    case("reversev2_u8", "ReverseV2", {"tensor": px, "axis": c([2])})
    case("depthtospace_u8", "DepthToSpace", {"input": _rng.integers(0, 256, (1, 2, 2, 4)).astype(U8)},
         {"block_size": 2})
    case("unique_u8", "Unique", {"x": c([3, 3, 9, 0, 9], U8)})


def _cx(*shape, scale=1.0):
    return (_rng.normal(size=shape) * scale + 1j * _rng.normal(size=shape) * scale).astype(np.complex64)


def dtype_error_case(name, op, inputs):
    """A case TF refuses for an input's dtype (its attr check runs before any graph exists, so
    the attrs are left for the runtime to infer): checked to fail eagerly, recorded with no attrs."""
    try:
        getattr(tf.raw_ops, op)(**{k: tf.constant(v) for k, v in inputs.items()})
    except (tf.errors.OpError, TypeError, ValueError) as e:
        cls = type(e).__name__
        CASES[_family].append({"name": name, "op": op, "attrs": {},
                               "inputs": [fixture_io.tensor(v) for v in inputs.values()],
                               "error": cls[:-5] if cls.endswith("Error") else cls})
        return
    raise SystemExit("%s: expected an error" % name)


def gen_complex():
    family("complex")
    reseed(31)
    CX = np.complex64
    # Lengths: trivial, radix-2, mixed (12), primes (5, 17: Bluestein here), long (64).
    lengths = (1, 2, 5, 8, 12, 17, 64)
    for n in lengths:
        x = _cx(3, n)
        case("fft_%d" % n, "FFT", {"input": x})
        case("ifft_%d" % n, "IFFT", {"input": x})
        case("rfft_%d" % n, "RFFT", {"input": f(2, n), "fft_length": c([n])})
        case("irfft_%d" % n, "IRFFT", {"input": _cx(2, n // 2 + 1), "fft_length": c([n])})
    case("fft_batch_dims", "FFT", {"input": _cx(2, 3, 12)})
    case("fft_rank1", "FFT", {"input": _cx(17)})
    case("ifft_batch_dims", "IFFT", {"input": _cx(2, 1, 3, 5)})
    case("fft_large_scale", "FFT", {"input": _cx(2, 64, scale=1000.0)})
    case("fft_empty_batch", "FFT", {"input": np.zeros((0, 4), CX)})
    case("fft_empty_inner", "FFT", {"input": np.zeros((3, 0), CX)})
    case("rfft_crops_input", "RFFT", {"input": f(2, 3, 10), "fft_length": c([7])})
    case("rfft_batch_dims", "RFFT", {"input": f(2, 2, 17), "fft_length": c([17])})
    # (An empty RFFT/IRFFT input gives TF's output buffer uninitialized: no reference; zeros here.)
    # IRFFT reads only the first n/2+1 bins; the imaginary parts of DC (and Nyquist) drop out.
    case("irfft_extra_bins_ignored", "IRFFT", {"input": _cx(2, 9), "fft_length": c([8])})
    case("irfft_odd_extra_bins", "IRFFT", {"input": _cx(3, 6), "fft_length": c([5])})
    case("irfft_batch_dims", "IRFFT", {"input": _cx(2, 2, 7), "fft_length": c([12])})
    case("rfft_irfft_roundtrip_17", "IRFFT",
         {"input": tf.signal.rfft(f(2, 17)).numpy(), "fft_length": c([17])})
    # 2-D and 3-D.
    case("fft2d", "FFT2D", {"input": _cx(2, 5, 8)})
    case("ifft2d", "IFFT2D", {"input": _cx(3, 6)})
    case("fft3d", "FFT3D", {"input": _cx(2, 3, 4, 5)})
    case("ifft3d", "IFFT3D", {"input": _cx(3, 2, 4)})
    case("rfft2d", "RFFT2D", {"input": f(2, 5, 6), "fft_length": c([5, 6])})
    case("rfft2d_crop", "RFFT2D", {"input": f(4, 7), "fft_length": c([3, 5])})
    case("irfft2d", "IRFFT2D", {"input": _cx(2, 4, 5), "fft_length": c([4, 8])})
    case("irfft2d_crop_odd", "IRFFT2D", {"input": _cx(5, 6), "fft_length": c([3, 9])})
    case("rfft3d", "RFFT3D", {"input": f(2, 3, 4), "fft_length": c([2, 3, 4])})
    case("irfft3d", "IRFFT3D", {"input": _cx(2, 3, 3), "fft_length": c([2, 3, 4])})
    # Errors.
    case("rfft_length_over_input", "RFFT", {"input": f(2, 3), "fft_length": c([5])}, error=True)
    case("rfft_length_shape", "RFFT", {"input": f(2, 3), "fft_length": c([2, 2])}, error=True)
    case("rfft_negative_length", "RFFT", {"input": f(2, 3), "fft_length": c([-2])}, error=True)
    case("irfft_too_few_bins", "IRFFT", {"input": _cx(2, 3), "fft_length": c([6])}, error=True)
    case("rfft2d_length_over_input", "RFFT2D", {"input": f(2, 3), "fft_length": c([3, 3])}, error=True)
    case("irfft2d_outer_over_input", "IRFFT2D", {"input": _cx(2, 3), "fft_length": c([3, 4])}, error=True)
    case("fft_scalar", "FFT", {"input": c(1 + 2j, CX)}, error=True)
    case("fft2d_rank1", "FFT2D", {"input": _cx(4)}, error=True)
    dtype_error_case("fft_float_input", "FFT", {"input": f(4)})
    dtype_error_case("rfft_int_input", "RFFT", {"input": i(4), "fft_length": c([4])})
    dtype_error_case("rfft_complex_input", "RFFT", {"input": _cx(4), "fft_length": c([4])})
    dtype_error_case("irfft_float_input", "IRFFT", {"input": f(3), "fft_length": c([4])})
    # Building and taking apart.
    re, im = f(2, 3), f(2, 3)
    case("complex", "Complex", {"real": re, "imag": im})
    case("complex_broadcast", "Complex", {"real": f(3), "imag": f(2, 1)})
    case("complex_incompatible", "Complex", {"real": f(2), "imag": f(3)}, error=True)
    dtype_error_case("complex_int_parts", "Complex", {"real": i(2), "imag": i(2)})
    z = _cx(2, 3)
    z[0, 0] = 0
    z[1, 1] = -2.5 + 0j
    z[1, 2] = 0 - 1.5j
    case("real", "Real", {"input": z})
    case("imag", "Imag", {"input": z})
    case("complex_abs", "ComplexAbs", {"x": z})
    case("complex_abs_no_overflow", "ComplexAbs", {"x": c([3e30 + 4e30j, 3e-30 + 4e-30j, -0.0 - 2j], CX)})
    case("conj", "Conj", {"input": z})
    case("angle", "Angle", {"input": z})
    dtype_error_case("real_of_float", "Real", {"input": f(2)})
    dtype_error_case("complex_abs_of_float", "ComplexAbs", {"x": f(2)})
    # Arithmetic TF's CPU kernels define on complex64.
    a, b = _cx(2, 3), _cx(3)
    for op in ("AddV2", "Add", "Sub", "Mul", "RealDiv", "Div"):
        case(op.lower() + "_c64", op, {"x": a, "y": b})
    # |y|^2 would overflow or underflow in float32.
    case("div_c64_wide_range", "Div", {"x": c([1 + 1j, 1e30 + 0j, 3 - 4j], CX),
                                        "y": c([1e-30 + 1e-30j, 1e30 + 1e30j, 1e30 + 0j], CX)})
    case("addn_c64", "AddN", {"inputs": [a, a, _cx(2, 3)]})
    case("neg_c64", "Neg", {"x": a})
    case("square_c64", "Square", {"x": a})
    case("sum_c64", "Sum", {"input": _cx(2, 3, 4), "axis": c([-1, 0])})
    case("sum_c64_keep_dims", "Sum", {"input": _cx(2, 3), "axis": c(1)}, {"keep_dims": True})
    case("mean_c64", "Mean", {"input": _cx(4, 3), "axis": c(0)})
    case("equal_c64", "Equal", {"x": c([1 + 1j, 2 + 0j, 3j], CX), "y": c([1 + 1j, 2 + 1j, 3j], CX)})
    dtype_error_case("maximum_c64", "Maximum", {"x": a, "y": a})
    case("cast_c64_to_f32", "Cast", {"x": z}, {"DstT": tf.float32})
    case("cast_c64_to_i32", "Cast", {"x": c([1.7 + 5j, -2.7 + 1j, 0.5j], CX)}, {"DstT": tf.int32})
    case("cast_c64_to_bool", "Cast", {"x": c([1j, 1.5 + 0j, 0j], CX)}, {"DstT": tf.bool})
    case("cast_f32_to_c64", "Cast", {"x": f(4)}, {"DstT": tf.complex64})
    case("cast_i32_to_c64", "Cast", {"x": i(4)}, {"DstT": tf.complex64})
    case("cast_i64_to_c64", "Cast", {"x": c([2 ** 40 + 1, -3], I64)}, {"DstT": tf.complex64})
    case("cast_bool_to_c64", "Cast", {"x": c([True, False], B)}, {"DstT": tf.complex64})
    # Data movement: dtype-agnostic by element size.
    case("reshape_c64", "Reshape", {"tensor": z, "shape": c([3, 2])})
    case("identity_c64", "Identity", {"input": z})
    case("transpose_c64", "Transpose", {"x": _cx(2, 3, 4), "perm": c([2, 0, 1])})
    case("concat_c64", "ConcatV2", {"values": [z, a], "axis": c(0)})
    case("pack_c64", "Pack", {"values": [b, b]}, {"axis": 1})
    case("unpack_c64", "Unpack", {"value": z}, {"num": 3, "axis": 1})
    case("gatherv2_c64", "GatherV2", {"params": z, "indices": c([2, 0, 2]), "axis": c(1)})
    case("slice_c64", "Slice", {"input": z, "begin": c([0, 1]), "size": c([2, 2])})
    case("stridedslice_c64", "StridedSlice", {"input": _cx(4, 5), "begin": c([3, 0]), "end": c([0, 5]),
                                               "strides": c([-1, 2])})
    case("tile_c64", "Tile", {"input": z, "multiples": c([2, 1])})
    case("expanddims_c64", "ExpandDims", {"input": z, "axis": c(-1)})
    case("squeeze_c64", "Squeeze", {"input": _cx(1, 3, 1)})
    case("zeroslike_c64", "ZerosLike", {"x": z})
    case("oneslike_c64", "OnesLike", {"x": z})
    case("fill_c64", "Fill", {"dims": c([2, 2]), "value": c(1 - 2j, CX)})
    case("reversev2_c64", "ReverseV2", {"tensor": z, "axis": c([1])})
    case("pad_c64", "Pad", {"input": z, "paddings": c([[1, 0], [0, 2]])})
    case("padv2_c64", "PadV2", {"input": z, "paddings": c([[0, 1], [1, 0]]), "constant_values": c(3 + 4j, CX)})
    case("selectv2_c64", "SelectV2", {"condition": c([True, False, True], B), "t": z, "e": c(1j, CX)})


def gen_einsum():
    family("einsum")
    reseed(27)
    for name, eq, shapes in [
        ("matmul", "ab,bc->ac", [(3, 4), (4, 5)]),
        ("dense_3d", "abc,cd->abd", [(2, 3, 4), (4, 5)]),
        ("mha_query", "abc,cde->abde", [(2, 5, 8), (8, 2, 4)]),
        ("mha_scores", "aecd,abcd->acbe", [(2, 5, 2, 4), (2, 6, 2, 4)]),
        ("mha_context", "acbe,aecd->abcd", [(2, 2, 6, 5), (2, 5, 2, 4)]),
        ("mha_output", "abcd,cde->abe", [(2, 5, 2, 4), (2, 4, 8)]),
        ("batch_matmul", "bij,bjk->bik", [(3, 2, 4), (3, 4, 5)]),
        ("ellipsis_bcast", "...ij,...jk->...ik", [(2, 1, 3, 4), (3, 4, 2)]),
        ("transpose", "ij->ji", [(3, 5)]),
        ("sum_all", "ij->", [(3, 5)]),
        ("row_sum", "abc->ac", [(2, 3, 4)]),
        ("dot", "i,i->", [(7,), (7,)]),
        ("outer", "i,j->ij", [(3,), (4,)]),
        ("sum_only_in_a", "abc,cd->ad", [(2, 3, 4), (4, 5)]),
        ("empty_batch", "bij,bjk->bik", [(0, 2, 3), (0, 3, 4)]),
        ("empty_contraction", "ij,jk->ik", [(2, 0), (0, 3)]),
    ]:
        case("einsum_" + name, "Einsum", {"inputs": [f(*s) for s in shapes]}, {"equation": eq})
    case("einsum_dim_mismatch", "Einsum", {"inputs": [f(2, 3), f(4, 2)]}, {"equation": "ij,jk->ik"},
         error=True)
    case("einsum_rank_mismatch", "Einsum", {"inputs": [f(2, 3, 1), f(3, 2)]}, {"equation": "ij,jk->ik"},
         error=True)
    # Repeated labels: diagonals of an operand (traces when contracted). A label repeated in the
    # output (TF writes the output's diagonal) is Unimplemented (src/kernels/nn/einsum.rs tests it).
    for name, eq, shapes in [
        ("diag", "ii->i", [(3, 3)]),
        ("trace", "ii->", [(4, 4)]),
        ("batch_diag", "bii->bi", [(2, 3, 3)]),
        ("triple_diag", "iii->i", [(2, 2, 2)]),
        ("ellipsis_diag", "...ii->...i", [(2, 1, 3, 3)]),
        ("diag_then_matmul", "iij,jk->ik", [(2, 2, 3), (3, 4)]),
        ("diag_in_second", "ij,jj->ij", [(2, 3), (3, 3)]),
        ("diag_transposed", "bij,jbj->ib", [(2, 3, 4), (4, 2, 4)]),
        ("diag_empty", "bii->bi", [(0, 3, 3)]),
    ]:
        case("einsum_" + name, "Einsum", {"inputs": [f(*s) for s in shapes]}, {"equation": eq})
    case("einsum_diag_mismatch", "Einsum", {"inputs": [f(3, 4)]}, {"equation": "ii->i"}, error=True)
    # Three operands: TF's graph construction rejects them (src/kernels/nn/einsum.rs tests it).


def tfjs_case(name, op, inputs, attrs, outputs):
    """A TF.js-only op (no TF kernel): attrs as a model.json node has them, outputs from the TF
    computation the op stands for."""
    CASES[_family].append({"name": name, "op": op, "attrs": attrs,
                           "inputs": [fixture_io.tensor(x) for x in inputs],
                           "outputs": [fixture_io.tensor(np.asarray(o)) for o in outputs]})


def gen_math_more():
    family("math_more")
    reseed(28)
    srt = np.sort(f(2, 6), axis=1)
    vals = np.concatenate([srt[:, :2], f(2, 3)], axis=1).astype(F32)
    for op in ("LowerBound", "UpperBound"):
        n = op.lower()
        case(n + "_float", op, {"sorted_inputs": srt, "values": vals})
        case(n + "_int32_ties", op, {"sorted_inputs": c([[1, 2, 2, 2, 5]]), "values": c([[2, 0, 6, 5]])},
             {"out_type": tf.int64})
        case(n + "_empty_values", op, {"sorted_inputs": srt, "values": f(2, 0)})
        case(n + "_batch_mismatch", op, {"sorted_inputs": srt, "values": f(3, 2)}, error=True)
    m = f(2, 4, 5)
    case("bandpart_lower1_upper2", "MatrixBandPart", {"input": m, "num_lower": c(1, I64), "num_upper": c(2, I64)})
    case("bandpart_lower_only", "MatrixBandPart", {"input": m, "num_lower": c(-1, I64), "num_upper": c(0, I64)})
    case("bandpart_int32_idx32", "MatrixBandPart", {"input": i(3, 3), "num_lower": c(0), "num_upper": c(-1)})
    case("bandpart_too_big", "MatrixBandPart", {"input": m, "num_lower": c(5, I64), "num_upper": c(0, I64)},
         error=True)
    case("euclidean_axis1", "EuclideanNorm", {"input": f(3, 4, 2), "axis": c(1)})
    case("euclidean_keep_neg", "EuclideanNorm", {"input": f(3, 4), "axis": c([-1])},
         {"keep_dims": True})
    case("euclidean_all", "EuclideanNorm", {"input": f(2, 3), "axis": c([0, 1], I64)})
    case("euclidean_empty_axes", "EuclideanNorm", {"input": f(2, 3), "axis": c([], I32)})
    arr = c([1, 1, 3, 0, 7, 2, 3])
    case("bincount_counts", "Bincount", {"arr": arr, "size": c(5), "weights": c([], F32)})
    case("bincount_weights", "Bincount", {"arr": arr, "size": c(4), "weights": f(7)})
    case("bincount_int32_weights", "Bincount", {"arr": c([[0, 1], [1, 1]]), "size": c(3), "weights": c([[1, 2], [3, 4]])})
    case("bincount_negative", "Bincount", {"arr": c([1, -1]), "size": c(3), "weights": c([], F32)}, error=True)
    case("densebincount_1d", "DenseBincount", {"input": c([0, 2, 2, 9]), "size": c(4), "weights": c([], F32)})
    case("densebincount_2d_binary", "DenseBincount", {"input": c([[0, 2, 2], [1, 1, 3]], I64), "size": c(4, I64),
                                                      "weights": c([], I32)}, {"binary_output": True})
    case("densebincount_2d_weights", "DenseBincount", {"input": c([[0, 2, 2], [1, 1, 3]]), "size": c(3),
                                                       "weights": f(2, 3)})
    x = f(3, 5, scale=3.0)
    case("fakequant_default", "FakeQuantWithMinMaxVars", {"inputs": x, "min": c(-2.0, F32), "max": c(3.0, F32)})
    case("fakequant_4bit_narrow", "FakeQuantWithMinMaxVars", {"inputs": x, "min": c(-1.0, F32), "max": c(1.5, F32)},
         {"num_bits": 4, "narrow_range": True})
    case("fakequant_positive_range", "FakeQuantWithMinMaxVars", {"inputs": x, "min": c(0.5, F32), "max": c(4.0, F32)})
    case("fakequant_bad_bits", "FakeQuantWithMinMaxVars", {"inputs": x, "min": c(-1.0, F32), "max": c(1.0, F32)},
         {"num_bits": 1}, error=True)
    img = f(2, 3, 4, 7)
    case("lrn_default", "LRN", {"input": img})
    case("lrn_radius2", "LRN", {"input": img}, {"depth_radius": 2, "bias": 2.0, "alpha": 0.1, "beta": 0.75})
    case("lrn_radius0", "LRN", {"input": f(1, 2, 2, 3)}, {"depth_radius": 0})
    case("lrn_rank3", "LRN", {"input": f(2, 3, 4)}, error=True)


def gen_sparse():
    family("sparse")
    reseed(29)
    data = f(5, 3)
    case("sss_basic", "SparseSegmentSum", {"data": data, "indices": c([0, 1, 4, 2]), "segment_ids": c([0, 0, 1, 3])})
    case("sss_int32_idx64", "SparseSegmentSum", {"data": i(4, 2), "indices": c([3, 3, 0], I64),
                                                 "segment_ids": c([0, 1, 1], I64)})
    case("sss_empty", "SparseSegmentSum", {"data": data, "indices": c([], I32), "segment_ids": c([], I32)})
    case("sss_unsorted", "SparseSegmentSum", {"data": data, "indices": c([0, 1]), "segment_ids": c([1, 0])}, error=True)
    case("sss_bad_index", "SparseSegmentSum", {"data": data, "indices": c([0, 5]), "segment_ids": c([0, 0])}, error=True)
    case("sss_id_past_last", "SparseSegmentSum", {"data": data, "indices": c([0, 1, 2, 3]),
                                                  "segment_ids": c([0, 1, 2, 0])}, error=True)
    case("sss_negative_first", "SparseSegmentSum", {"data": data, "indices": c([0, 1, 2]),
                                                    "segment_ids": c([-1, 0, 1])}, error=True)
    case("sss_negative_last", "SparseSegmentSum", {"data": data, "indices": c([0, 1]),
                                                   "segment_ids": c([0, -1])}, error=True)
    case("ssm_basic", "SparseSegmentMean", {"data": data, "indices": c([0, 1, 4, 2, 3]), "segment_ids": c([0, 0, 0, 2, 2])})
    case("ssm_1d", "SparseSegmentMean", {"data": f(6), "indices": c([5, 0]), "segment_ids": c([1, 1])})
    case("ssm_3d", "SparseSegmentMean", {"data": f(3, 2, 2), "indices": c([2, 1]), "segment_ids": c([0, 1])})
    ind = c([[0, 0, 1], [0, 1, 0], [1, 2, 3]], I64)
    case("sparsereshape_flatten", "SparseReshape", {"input_indices": ind, "input_shape": c([2, 3, 4], I64),
                                                    "new_shape": c([2, -1], I64)})
    case("sparsereshape_split", "SparseReshape", {"input_indices": ind, "input_shape": c([2, 3, 4], I64),
                                                  "new_shape": c([4, 3, 2], I64)})
    case("sparsereshape_empty", "SparseReshape", {"input_indices": c(np.zeros((0, 2)), I64),
                                                  "input_shape": c([3, 4], I64), "new_shape": c([-1], I64)})
    case("sparsereshape_bad", "SparseReshape", {"input_indices": ind, "input_shape": c([2, 3, 4], I64),
                                                "new_shape": c([5, -1], I64)}, error=True)
    case("sparsereshape_infer_with_zero", "SparseReshape", {"input_indices": ind, "input_shape": c([2, 3, 4], I64),
                                                            "new_shape": c([-1, 0], I64)}, error=True)
    sind = c([[1, 0], [1, 3], [3, 1], [0, 2]], I64)
    case("sfer_float", "SparseFillEmptyRows", {"indices": sind, "values": f(4), "dense_shape": c([5, 4], I64),
                                               "default_value": c(-1.0, F32)})
    case("sfer_int32_none_empty", "SparseFillEmptyRows", {"indices": c([[0, 0], [1, 1]], I64), "values": c([3, 4]),
                                                          "dense_shape": c([2, 2], I64), "default_value": c(0)})
    case("sfer_all_empty", "SparseFillEmptyRows", {"indices": c(np.zeros((0, 2)), I64), "values": c([], F32),
                                                   "dense_shape": c([3, 2], I64), "default_value": c(7.0, F32)})
    case("sfer_bad_row", "SparseFillEmptyRows", {"indices": c([[4, 0]], I64), "values": c([1.0], F32),
                                                 "dense_shape": c([3, 2], I64), "default_value": c(0.0, F32)},
         error=True)


def gen_ragged():
    family("ragged")
    reseed(31)
    sp = lambda v, dt=I64: c(v, dt)  # noqa: E731
    # RaggedGather: int32/int64 splits and indices, 1-D/2-D/scalar indices, nested splits.
    vals = f(5)
    case("rg_basic", "RaggedGather", {"params_nested_splits": [sp([0, 2, 2, 5])], "params_dense_values": vals,
                                      "indices": c([2, 0, 1, 2])}, {"OUTPUT_RAGGED_RANK": 1})
    case("rg_idx2d_split32", "RaggedGather", {"params_nested_splits": [sp([0, 2, 2, 5], I32)],
                                              "params_dense_values": i(5), "indices": c([[2, 0], [1, 2]], I64)},
         {"OUTPUT_RAGGED_RANK": 2})
    case("rg_scalar_idx", "RaggedGather", {"params_nested_splits": [sp([0, 2, 2, 5])], "params_dense_values": vals,
                                           "indices": c(2)}, {"OUTPUT_RAGGED_RANK": 0})
    nested = [sp([0, 2, 3, 3]), sp([0, 1, 1, 6])]
    case("rg_nested", "RaggedGather", {"params_nested_splits": nested, "params_dense_values": f(6, 2),
                                       "indices": c([2, 0, 1, 0])}, {"OUTPUT_RAGGED_RANK": 2})
    case("rg_nested_scalar_idx", "RaggedGather", {"params_nested_splits": nested,
                                                  "params_dense_values": b(6), "indices": c(0)},
         {"OUTPUT_RAGGED_RANK": 1})
    case("rg_empty_idx", "RaggedGather", {"params_nested_splits": [sp([0, 2, 5])], "params_dense_values": f(5, 3),
                                          "indices": c([], I32)}, {"OUTPUT_RAGGED_RANK": 1})
    case("rg_idx_oob", "RaggedGather", {"params_nested_splits": [sp([0, 2, 2, 5])], "params_dense_values": vals,
                                        "indices": c([1, 3])}, {"OUTPUT_RAGGED_RANK": 1}, error=True)
    case("rg_idx_neg", "RaggedGather", {"params_nested_splits": [sp([0, 2, 2, 5])], "params_dense_values": vals,
                                        "indices": c([-1])}, {"OUTPUT_RAGGED_RANK": 1}, error=True)
    case("rg_unsorted", "RaggedGather", {"params_nested_splits": [sp([0, 3, 2, 5])], "params_dense_values": vals,
                                         "indices": c([1])}, {"OUTPUT_RAGGED_RANK": 1}, error=True)
    case("rg_past_values", "RaggedGather", {"params_nested_splits": [sp([0, 2, 2, 6])],
                                            "params_dense_values": vals, "indices": c([1])},
         {"OUTPUT_RAGGED_RANK": 1}, error=True)
    case("rg_negative_split", "RaggedGather", {"params_nested_splits": [sp([-1, 2, 5])],
                                               "params_dense_values": vals, "indices": c([1])},
         {"OUTPUT_RAGGED_RANK": 1}, error=True)
    case("rg_empty_splits", "RaggedGather", {"params_nested_splits": [sp([])], "params_dense_values": vals,
                                             "indices": c([], I32)}, {"OUTPUT_RAGGED_RANK": 1}, error=True)
    case("rg_scalar_values", "RaggedGather", {"params_nested_splits": [sp([0, 0])],
                                              "params_dense_values": c(1.0, F32), "indices": c([0])},
         {"OUTPUT_RAGGED_RANK": 1}, error=True)
    # RaggedRange: scalar/vector broadcasting, negative deltas, every T, both Tsplits.
    case("rr_int32", "RaggedRange", {"starts": c([0, 5, 8]), "limits": c([3, 3, 12]), "deltas": c(1)})
    case("rr_neg_delta_split32", "RaggedRange", {"starts": c([0, 5, 8]), "limits": c([3, 0, 12]),
                                                 "deltas": c([1, -2, 3])}, {"Tsplits": tf.int32})
    case("rr_float", "RaggedRange", {"starts": c(0.0, F32), "limits": c([1.0, 2.5, -1.0], F32),
                                     "deltas": c(0.1, F32)})
    case("rr_float_neg", "RaggedRange", {"starts": c([3.0, -1.5], F32), "limits": c(-2.0, F32),
                                         "deltas": c([-0.7, -0.25], F32)})
    case("rr_int64", "RaggedRange", {"starts": c([2**40, -3], I64), "limits": c([2**40 + 3, 4], I64),
                                     "deltas": c([2, 3], I64)})
    case("rr_all_scalars", "RaggedRange", {"starts": c(4), "limits": c(-4), "deltas": c(-3)})
    case("rr_empty", "RaggedRange", {"starts": c([], I32), "limits": c(3), "deltas": c(1)})
    case("rr_int32_wraps", "RaggedRange", {"starts": c(-2**31 + 1), "limits": c(2**31 - 1), "deltas": c(2**30)})
    case("rr_delta_zero", "RaggedRange", {"starts": c(0), "limits": c(3), "deltas": c([1, 0])}, error=True)
    case("rr_shape_mismatch", "RaggedRange", {"starts": c([0, 1]), "limits": c([3, 4, 5]), "deltas": c(1)},
         error=True)
    case("rr_rank2", "RaggedRange", {"starts": c([[0]]), "limits": c(3), "deltas": c(1)}, error=True)
    case("rr_float_too_many", "RaggedRange", {"starts": c(0.0, F32), "limits": c(1e30, F32),
                                               "deltas": c(1e-30, F32)}, error=True)
    case("rr_split32_overflow", "RaggedRange", {"starts": c([0, 0], I64), "limits": c(2**31 - 10, I64),
                                                "deltas": c(1, I64)}, {"Tsplits": tf.int32}, error=True)
    # RaggedTensorToTensor: every partition type, shape -1/unknown/truncating/padding,
    # default_value broadcasting, int32/int64 index and shape types.
    def rt(name, shape, values, default, parts, types, error=False):
        case(name, "RaggedTensorToTensor", {"shape": shape, "values": values, "default_value": default,
                                            "row_partition_tensors": parts},
             {"row_partition_types": types}, error=error)
    v5 = f(5)
    rt("rt_splits", c(-1), v5, c(0.0, F32), [sp([0, 2, 2, 5])], ["ROW_SPLITS"])
    rt("rt_splits32_shape64", c([-1, -1], I64), v5, c(9.0, F32), [sp([0, 2, 2, 5], I32)], ["ROW_SPLITS"])
    rt("rt_truncate", c([2, 2]), v5, c(9.0, F32), [sp([0, 2, 2, 5])], ["ROW_SPLITS"])
    rt("rt_pad", c([4, 4]), v5, c(9.0, F32), [sp([0, 2, 2, 5])], ["ROW_SPLITS"])
    rt("rt_first_dim_rowids", c([-1, -1]), v5, c(-1.0, F32), [c(4, I64), sp([0, 0, 2, 2, 2])],
       ["FIRST_DIM_SIZE", "VALUE_ROWIDS"])
    rt("rt_rowids_truncate", c([3, 2]), i(5), c(7), [c(4, I32), sp([0, 0, 0, 2, 3], I32)],
       ["FIRST_DIM_SIZE", "VALUE_ROWIDS"])
    rt("rt_default_bcast", c([-1, -1, -1]), f(3, 2), f(2), [sp([0, 2, 2, 3], I32)], ["ROW_SPLITS"])
    rt("rt_default_bcast_1", c([-1, 3, 2]), f(3, 2), f(1), [sp([0, 2, 2, 3], I32)], ["ROW_SPLITS"])
    rt("rt_inner_pad", c([3, 5, -1]), i(3, 2), c([4, 5]), [sp([0, 2, 2, 3])], ["ROW_SPLITS"])
    rt("rt_two_ragged", c(-1), i(6), c(0), [sp([0, 2, 3]), sp([0, 1, 1, 6])], ["ROW_SPLITS", "ROW_SPLITS"])
    rt("rt_two_ragged_trunc", c([3, 1, 2]), i(6), c(0), [sp([0, 2, 3]), sp([0, 1, 1, 6])],
       ["ROW_SPLITS", "ROW_SPLITS"])
    rt("rt_mixed", c([-1, -1, -1]), f(6), c(0.5, F32), [c(3, I64), sp([0, 0, 2]), sp([0, 3, 6])],
       ["FIRST_DIM_SIZE", "VALUE_ROWIDS", "ROW_SPLITS"])
    rt("rt_bool", c(-1), b(3), c(False, B), [sp([0, 2, 3])], ["ROW_SPLITS"])
    rt("rt_empty_rows", c(-1), c([], F32), c(1.0, F32), [sp([0, 0, 0])], ["ROW_SPLITS"])
    rt("rt_zero_rows", c(-1), c([], F32), c(1.0, F32), [sp([0])], ["ROW_SPLITS"])
    rt("rt_fewer_splits_than_values", c(-1), f(3), c(0.0, F32), [sp([0, 1, 2])], ["ROW_SPLITS"])
    rt("rt_zero_size_skips_checks", c([0, 3]), f(3), c(0.0, F32), [sp([0, 2, 1, 3])], ["ROW_SPLITS"])
    rt("rt_bad_splits", c(-1), f(3), c(0.0, F32), [sp([0, 2, 1, 3])], ["ROW_SPLITS"], error=True)
    rt("rt_splits_nonzero_start", c(-1), f(3), c(0.0, F32), [sp([1, 2, 3])], ["ROW_SPLITS"], error=True)
    rt("rt_rowid_oob", c([-1, -1]), f(3), c(0.0, F32), [c(2, I64), sp([0, 1, 5])],
       ["FIRST_DIM_SIZE", "VALUE_ROWIDS"], error=True)
    rt("rt_rowid_negative", c([-1, -1]), f(3), c(0.0, F32), [c(2, I64), sp([-1, 0, 1])],
       ["FIRST_DIM_SIZE", "VALUE_ROWIDS"], error=True)
    rt("rt_default_mismatch", c([-1, -1, -1]), f(3, 2), f(3), [sp([0, 2, 2, 3])], ["ROW_SPLITS"], error=True)
    rt("rt_default_rank", c([-1, -1, -1]), f(3, 2), f(1, 2), [sp([0, 2, 2, 3])], ["ROW_SPLITS"], error=True)
    rt("rt_shape_rank", c([-1, -1]), f(3, 2), c(0.0, F32), [sp([0, 2, 2, 3])], ["ROW_SPLITS"], error=True)
    rt("rt_shape_inner", c([-1, -1, 3]), f(3, 2), c(0.0, F32), [sp([0, 2, 2, 3])], ["ROW_SPLITS"], error=True)
    rt("rt_shape_below_minus1", c([-2, -1]), f(3), c(0.0, F32), [sp([0, 2, 3])], ["ROW_SPLITS"], error=True)
    rt("rt_shape_scalar", c(3), f(3), c(0.0, F32), [sp([0, 2, 3])], ["ROW_SPLITS"], error=True)
    # A VALUE_ROWIDS first partition and unknown partition types fail graph construction, so they
    # are checked by the unit tests in src/kernels/array/ragged.rs.
    rt("rt_first_dim_negative", c(-1), f(3), c(0.0, F32), [c(-3, I64), sp([0, 0, 0])],
       ["FIRST_DIM_SIZE", "VALUE_ROWIDS"], error=True)


def gen_image_more():
    family("image_more")
    reseed(30)
    img = f(2, 6, 7, 3)
    boxes = c([[0.1, 0.2, 0.8, 0.9], [0.5, 0.5, 0.2, 0.1], [-0.2, 0.3, 1.3, 0.7], [0.3, 0.3, 0.3, 0.3]], F32)
    bi = c([0, 1, 1, 0])
    case("crop_bilinear", "CropAndResize", {"image": img, "boxes": boxes, "box_ind": bi, "crop_size": c([4, 5])})
    case("crop_nearest_extrap", "CropAndResize", {"image": img, "boxes": boxes, "box_ind": bi, "crop_size": c([3, 3])},
         {"method": "nearest", "extrapolation_value": -1.0})
    case("crop_1x1", "CropAndResize", {"image": img, "boxes": boxes, "box_ind": bi, "crop_size": c([1, 1])})
    case("crop_int32_image", "CropAndResize", {"image": i(1, 4, 4, 2), "boxes": boxes[:2], "box_ind": c([0, 0]),
                                               "crop_size": c([2, 3])})
    case("crop_bad_box_index", "CropAndResize", {"image": img, "boxes": boxes, "box_ind": c([0, 2, 0, 0]),
                                                 "crop_size": c([2, 2])}, error=True)
    x = f(2, 5, 6, 3)
    for pad in ("SAME", "VALID"):
        case("maxpoolargmax_%s" % pad.lower(), "MaxPoolWithArgmax", {"input": x},
             {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": pad})
    case("maxpoolargmax_batch_index_int32", "MaxPoolWithArgmax", {"input": x},
         {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID", "include_batch_in_index": True,
          "Targmax": tf.int32})
    case("maxpoolargmax_ties", "MaxPoolWithArgmax", {"input": c(np.ones((1, 2, 2, 1)), F32)},
         {"ksize": [1, 2, 2, 1], "strides": [1, 1, 1, 1], "padding": "VALID"})
    filt = f(2, 3, 3, scale=0.5)
    case("dilation_same", "Dilation2D", {"input": x, "filter": filt},
         {"strides": [1, 1, 1, 1], "rates": [1, 1, 1, 1], "padding": "SAME"})
    case("dilation_valid_rate2_stride2", "Dilation2D", {"input": x, "filter": filt},
         {"strides": [1, 2, 2, 1], "rates": [1, 2, 1, 1], "padding": "VALID"})
    case("dilation_int32", "Dilation2D", {"input": i(1, 4, 4, 2), "filter": i(2, 2, 2)},
         {"strides": [1, 1, 1, 1], "rates": [1, 1, 1, 1], "padding": "VALID"})
    case("dilation_depth_mismatch", "Dilation2D", {"input": x, "filter": f(2, 2, 2)},
         {"strides": [1, 1, 1, 1], "rates": [1, 1, 1, 1], "padding": "SAME"}, error=True)
    img = f(2, 5, 6, 2)
    rot = c([[0.9, -0.3, 1.0, 0.3, 0.9, -0.5, 0.0, 0.0]], F32)
    persp = c([[1.0, 0.1, 0.5, 0.05, 1.1, -0.3, 0.02, -0.01], [0.8, 0.0, 2.0, 0.0, 0.8, 1.0, 0.0, 0.0]], F32)
    for mode in ("CONSTANT", "REFLECT", "WRAP", "NEAREST"):
        for interp in ("NEAREST", "BILINEAR"):
            case("ipt_%s_%s" % (mode.lower(), interp.lower()), "ImageProjectiveTransformV3",
                 {"images": img, "transforms": persp if mode == "REFLECT" else rot, "output_shape": c([7, 4]),
                  "fill_value": c(0.5, F32)}, {"interpolation": interp, "fill_mode": mode})
    case("ipt_shift_far_wrap", "ImageProjectiveTransformV3",
         {"images": img, "transforms": c([[1, 0, -13.5, 0, 1, 9.25, 0, 0]], F32), "output_shape": c([5, 6]),
          "fill_value": c(0.0, F32)}, {"interpolation": "BILINEAR", "fill_mode": "WRAP"})
    case("ipt_shift_far_reflect", "ImageProjectiveTransformV3",
         {"images": img, "transforms": c([[1, 0, 17.5, 0, 1, -11.0, 0, 0]], F32), "output_shape": c([5, 6]),
          "fill_value": c(0.0, F32)}, {"interpolation": "NEAREST", "fill_mode": "REFLECT"})
    case("ipt_int32", "ImageProjectiveTransformV3",
         {"images": i(1, 4, 4, 1), "transforms": rot, "output_shape": c([4, 4]), "fill_value": c(2.7, F32)},
         {"interpolation": "BILINEAR", "fill_mode": "CONSTANT"})
    case("ipt_bad_transform", "ImageProjectiveTransformV3",
         {"images": img, "transforms": f(3, 8), "output_shape": c([4, 4]), "fill_value": c(0.0, F32)},
         {"interpolation": "NEAREST", "fill_mode": "CONSTANT"}, error=True)


def gen_tfjs_only():
    family("tfjs_only")
    reseed(31)
    T = lambda t: {"type": t}  # noqa: E731
    for dt, np_dt, name in (("DT_FLOAT", F32, "float"), ("DT_INT32", I32, "int32"), ("DT_BOOL", B, "bool")):
        tfjs_case("ones_" + name, "Ones", [c([2, 3])], {"T": T(dt)},
                  [tf.ones([2, 3], tf.as_dtype(np_dt)).numpy()])
        tfjs_case("zeros_" + name, "Zeros", [c([3, 1])], {"T": T(dt)},
                  [tf.zeros([3, 1], tf.as_dtype(np_dt)).numpy()])
    tfjs_case("ones_empty", "Ones", [c([0, 4])], {"T": T("DT_FLOAT")}, [np.ones((0, 4), F32)])
    x, k = f(2, 9, 3), f(3, 3, 4)
    for stride, pad, dil in ((1, "SAME", 1), (2, "VALID", 1), (1, "SAME", 2), (3, "SAME", 1)):
        tfjs_case("conv1d_s%d_%s_d%d" % (stride, pad.lower(), dil), "Conv1D", [x, k],
                  {"T": T("DT_FLOAT"), "stride": {"i": str(stride)}, "padding": {"s": _s(pad)},
                   "data_format": {"s": _s("NWC")}, "dilation": {"i": str(dil)}},
                  [tf.nn.conv1d(x, k, stride, pad, dilations=dil).numpy()])
    xi, w = f(1, 6, 6, 3), f(3, 3, 3, 2)
    for s, pad in ((1, "SAME"), (2, "VALID")):
        tfjs_case("depthwiseconv2d_s%d_%s" % (s, pad.lower()), "DepthwiseConv2d", [xi, w],
                  {"T": T("DT_FLOAT"), "strides": _ilist([1, s, s, 1]), "padding": {"s": _s(pad)},
                   "data_format": {"s": _s("NHWC")}, "dilations": _ilist([1, 1, 1, 1])},
                  [tf.raw_ops.DepthwiseConv2dNative(input=xi, filter=w, strides=[1, s, s, 1],
                                                    padding=pad).numpy()])
    tfjs_case("depthwiseconv2d_explicit", "DepthwiseConv2d", [xi, w],
              {"T": T("DT_FLOAT"), "strides": _ilist([1, 1, 1, 1]), "padding": {"s": _s("EXPLICIT")},
               "explicit_paddings": _ilist([0, 0, 1, 0, 2, 1, 0, 0]), "data_format": {"s": _s("NHWC")},
               "dilations": _ilist([1, 1, 1, 1])},
              [tf.raw_ops.DepthwiseConv2dNative(input=xi, filter=w, strides=[1, 1, 1, 1], padding="EXPLICIT",
                                                explicit_paddings=[0, 0, 1, 0, 2, 1, 0, 0]).numpy()])


def gen_volume():
    family("volume")
    reseed(32)
    x = f(1, 4, 5, 4, 3)
    for pad in ("SAME", "VALID"):
        for s in (1, 2):
            case("conv3d_k3_s%d_%s" % (s, pad.lower()), "Conv3D", {"input": x, "filter": f(3, 3, 2, 3, 4)},
                 {"strides": [1, s, s, s, 1], "padding": pad})
    case("conv3d_rect_stride", "Conv3D", {"input": x, "filter": f(2, 1, 3, 3, 2)},
         {"strides": [1, 1, 2, 3, 1], "padding": "SAME"})
    case("conv3d_dilated", "Conv3D", {"input": x, "filter": f(2, 2, 2, 3, 2)},
         {"strides": [1, 1, 1, 1, 1], "padding": "VALID", "dilations": [1, 2, 2, 1, 1]}, error=True)
    case("conv3d_empty_batch", "Conv3D", {"input": f(0, 3, 3, 3, 2), "filter": f(2, 2, 2, 2, 2)},
         {"strides": [1, 1, 1, 1, 1], "padding": "SAME"})
    case("conv3d_depth_mismatch", "Conv3D", {"input": x, "filter": f(2, 2, 2, 2, 2)},
         {"strides": [1, 1, 1, 1, 1], "padding": "SAME"}, error=True)
    for op in ("MaxPool3D", "AvgPool3D"):
        n = op.lower()
        case(n + "_same_s2", op, {"input": x}, {"ksize": [1, 3, 3, 3, 1], "strides": [1, 2, 2, 2, 1], "padding": "SAME"})
        case(n + "_valid", op, {"input": x}, {"ksize": [1, 2, 3, 2, 1], "strides": [1, 1, 2, 1, 1], "padding": "VALID"})
        case(n + "_1x1x1", op, {"input": f(1, 2, 2, 2, 5)}, {"ksize": [1, 1, 1, 1, 1], "strides": [1, 1, 1, 1, 1],
                                                            "padding": "VALID"})
        case(n + "_rank4", op, {"input": f(2, 3, 3, 3)}, {"ksize": [1, 1, 1, 1, 1], "strides": [1, 1, 1, 1, 1],
                                                         "padding": "VALID"}, error=True)


def _pads_before(n, k, s, d, padding, explicit):
    if padding == "SAME":
        return _same_pads(n, k, s, d)
    return explicit[0] if padding == "EXPLICIT" else 0


def _filter_grad_composed(x, fshape, dy, strides, padding, dilations, explicit, depthwise):
    """Conv2DBackpropFilter / DepthwiseConv2dNativeBackpropFilter from TF ops: per filter tap, the
    strided, dilated slice of the padded input contracted with out_backprop (tf.einsum). TF's CPU
    kernels refuse dilations > 1 (Conv2D) or ignore them (depthwise); this is the same sum."""
    n, h, w, ci = x.shape
    kh, kw = fshape[:2]
    _, oh, ow, co = dy.shape
    s, d = strides[1:3], dilations[1:3]
    pt = _pads_before(h, kh, s[0], d[0], padding, explicit[2:4])
    pl = _pads_before(w, kw, s[1], d[1], padding, explicit[4:6])
    ph = max(0, (oh - 1) * s[0] + (kh - 1) * d[0] + 1 - h - pt)
    pw = max(0, (ow - 1) * s[1] + (kw - 1) * d[1] + 1 - w - pl)
    xp = tf.pad(x, [[0, 0], [pt, ph], [pl, pw], [0, 0]])
    g = tf.reshape(dy, [n, oh, ow, ci, fshape[3]]) if depthwise else dy
    taps = []
    for ky in range(kh):
        for kx in range(kw):
            y0, x0 = ky * d[0], kx * d[1]
            patch = xp[:, y0:y0 + (oh - 1) * s[0] + 1:s[0], x0:x0 + (ow - 1) * s[1] + 1:s[1], :]
            taps.append(tf.einsum("nyxi,nyxim->im" if depthwise else "nyxi,nyxo->io", patch, g))
    return [tf.reshape(tf.stack(taps), fshape).numpy()]


def _dw_tape(x, w, dy, padding, dil, wrt_filter):
    """Depthwise gradients with dilations from tf.GradientTape on tf.nn.depthwise_conv2d (its
    SpaceToBatchND route, whose gradient TF's CPU kernels can run)."""
    x, w = tf.constant(x), tf.constant(w)
    with tf.GradientTape() as tape:
        tape.watch([x, w])
        y = tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], padding, dilations=list(dil))
    return [tape.gradient(y, w if wrt_filter else x, output_gradients=tf.constant(dy)).numpy()]


def _ties(*shape):
    """Values on a coarse grid (halves in [-2, 2]): pooling windows with tied maxima."""
    return (_rng.integers(-4, 5, shape) / 2).astype(F32)


def gen_grads():
    family("grads")
    reseed(41)

    def conv2d(name, op, xshape, kshape, strides=(1, 1), padding="SAME", dil=(1, 1), explicit=()):
        """Conv2DBackpropFilter / DepthwiseConv2dNativeBackpropInput / ...Filter for x * filter."""
        depthwise = op.startswith("Depthwise")
        x, filt = f(*xshape), f(*kshape)
        n, h, w, _ = xshape
        co = kshape[2] * kshape[3] if depthwise else kshape[3]
        oh = _out_size(h, kshape[0], strides[0], dil[0], padding, explicit[2:4])
        ow = _out_size(w, kshape[1], strides[1], dil[1], padding, explicit[4:6])
        dy = f(n, oh, ow, co)
        st, dl = [1, strides[0], strides[1], 1], [1, dil[0], dil[1], 1]
        attrs = {"strides": st, "padding": padding, "dilations": dl}
        if explicit:
            attrs["explicit_paddings"] = list(explicit)
        wrt_filter = op.endswith("Filter")
        if wrt_filter:
            inputs = {"input": x, "filter_sizes": c(list(kshape)), "out_backprop": dy}
        else:
            inputs = {"input_sizes": c(list(xshape)), "filter": filt, "out_backprop": dy}

        def composed():
            if wrt_filter:
                return _filter_grad_composed(x, kshape, dy, st, padding, dl, explicit, depthwise)
            return _dw_tape(x, filt, dy, padding, dil, False)
        if dil == (1, 1):
            case(name, op, inputs, attrs)
            # The compositions used for dilated cases must agree with TF's kernels here.
            if wrt_filter or (depthwise and padding != "EXPLICIT" and strides == (1, 1)):
                native = getattr(tf.raw_ops, op)(**inputs, **attrs).numpy()
                np.testing.assert_allclose(composed()[0], native, rtol=1e-4, atol=1e-5)
        else:
            case(name, op, inputs, attrs, ref=composed)

    for op, tag in (("Conv2DBackpropFilter", "bpf"), ("DepthwiseConv2dNativeBackpropInput", "dwbpi"),
                    ("DepthwiseConv2dNativeBackpropFilter", "dwbpf")):
        dw = op.startswith("Depthwise")
        m = (lambda k: k) if not dw else (lambda k: k[:2] + (k[2], k[3] % 3 + 1))
        conv2d(tag + "_same_s1", op, (2, 5, 6, 3), m((3, 3, 3, 4)))
        conv2d(tag + "_same_s2", op, (1, 8, 7, 2), m((3, 3, 2, 5)), strides=(2, 2))
        conv2d(tag + "_valid_s2_k2", op, (2, 6, 6, 4), m((2, 2, 4, 3)), strides=(2, 2), padding="VALID")
        conv2d(tag + "_valid_s1_k3", op, (2, 7, 5, 3), m((3, 3, 3, 2)), padding="VALID")
        conv2d(tag + "_same_k4_s2", op, (1, 6, 6, 3), m((4, 4, 3, 2)), strides=(2, 2))
        conv2d(tag + "_explicit", op, (1, 5, 6, 2), m((3, 2, 2, 3)), padding="EXPLICIT",
               explicit=(0, 0, 1, 2, 0, 1, 0, 0))
        conv2d(tag + "_filter_larger_same", op, (1, 2, 2, 1), m((3, 3, 1, 2)))
        conv2d(tag + "_dilated_same", op, (2, 7, 7, 2), m((3, 3, 2, 3)), dil=(2, 2))
        conv2d(tag + "_dilated_valid", op, (1, 9, 8, 3), m((2, 3, 3, 2)), dil=(2, 2), padding="VALID")
        if not dw:
            conv2d(tag + "_valid_s3x2_leftover", op, (1, 10, 8, 1), (3, 3, 1, 2), strides=(3, 2),
                   padding="VALID")
            conv2d(tag + "_dilated_rect_s1", op, (1, 9, 8, 2), (2, 3, 2, 2), dil=(3, 2), padding="VALID")
            conv2d(tag + "_1x1_c17", op, (1, 3, 3, 17), (1, 1, 17, 9))
            conv2d(tag + "_explicit_s2_dilated", op, (1, 7, 6, 2), (3, 2, 2, 3), strides=(2, 1),
                   padding="EXPLICIT", dil=(2, 2), explicit=(0, 0, 2, 1, 1, 0, 0, 0))
    # Zero-sized outputs.
    case("bpf_zero_out_depth", "Conv2DBackpropFilter",
         {"input": f(1, 4, 4, 2), "filter_sizes": c([2, 2, 2, 0]), "out_backprop": f(1, 3, 3, 0)},
         {"strides": [1, 1, 1, 1], "padding": "VALID"})
    case("bpf_zero_batch", "Conv2DBackpropFilter",
         {"input": f(0, 4, 4, 2), "filter_sizes": c([2, 2, 2, 3]), "out_backprop": f(0, 4, 4, 3)},
         {"strides": [1, 1, 1, 1], "padding": "SAME"})
    case("dwbpi_zero_batch", "DepthwiseConv2dNativeBackpropInput",
         {"input_sizes": c([0, 4, 4, 3]), "filter": f(2, 2, 3, 2), "out_backprop": f(0, 3, 3, 6)},
         {"strides": [1, 1, 1, 1], "padding": "VALID"})

    # Errors of the 2-D convolution gradients.
    s1 = {"strides": [1, 1, 1, 1], "padding": "VALID"}
    bpf = "Conv2DBackpropFilter"
    for name, inputs, attrs in (
            ("rank3_input", {"input": f(4, 4, 2), "filter_sizes": c([2, 2, 2, 3]), "out_backprop": f(1, 3, 3, 3)}, s1),
            ("sizes_3_elements", {"input": f(1, 4, 4, 2), "filter_sizes": c([2, 2, 2]), "out_backprop": f(1, 3, 3, 3)}, s1),
            ("sizes_negative", {"input": f(1, 4, 4, 2), "filter_sizes": c([2, -2, 2, 3]), "out_backprop": f(1, 3, 3, 3)}, s1),
            ("sizes_2d", {"input": f(1, 4, 4, 2), "filter_sizes": c([[2, 2], [2, 3]]), "out_backprop": f(1, 3, 3, 3)}, s1),
            ("out_size_mismatch", {"input": f(1, 4, 4, 2), "filter_sizes": c([2, 2, 2, 3]), "out_backprop": f(1, 3, 4, 3)}, s1),
            ("depth_mismatch", {"input": f(1, 4, 4, 2), "filter_sizes": c([2, 2, 3, 3]), "out_backprop": f(1, 3, 3, 3)}, s1),
            ("out_depth_mismatch", {"input": f(1, 4, 4, 2), "filter_sizes": c([2, 2, 2, 4]), "out_backprop": f(1, 3, 3, 3)}, s1),
            ("batch_mismatch", {"input": f(2, 4, 4, 2), "filter_sizes": c([2, 2, 2, 3]), "out_backprop": f(1, 3, 3, 3)}, s1),
            ("batch_stride", {"input": f(1, 4, 4, 2), "filter_sizes": c([2, 2, 2, 3]), "out_backprop": f(1, 3, 3, 3)},
             {"strides": [2, 1, 1, 1], "padding": "VALID"}),
            ("dilation_batch", {"input": f(1, 4, 4, 2), "filter_sizes": c([2, 2, 2, 3]), "out_backprop": f(1, 3, 3, 3)},
             {"strides": [1, 1, 1, 1], "dilations": [2, 1, 1, 1], "padding": "VALID"}),
            ("nchw", {"input": f(1, 2, 4, 4), "filter_sizes": c([2, 2, 2, 3]), "out_backprop": f(1, 3, 3, 3)},
             {"strides": [1, 1, 1, 1], "padding": "VALID", "data_format": "NCHW"})):
        case("bpf_err_" + name, bpf, inputs, attrs, error=True)
    dwi = "DepthwiseConv2dNativeBackpropInput"
    for name, inputs, attrs in (
            ("sizes_2_elements", {"input_sizes": c([4, 4]), "filter": f(2, 2, 3, 1), "out_backprop": f(1, 3, 3, 3)}, s1),
            ("sizes_negative", {"input_sizes": c([1, -4, 4, 3]), "filter": f(2, 2, 3, 1), "out_backprop": f(1, 3, 3, 3)}, s1),
            ("out_depth_mismatch", {"input_sizes": c([1, 4, 4, 3]), "filter": f(2, 2, 3, 2), "out_backprop": f(1, 3, 3, 3)}, s1),
            ("depth_mismatch", {"input_sizes": c([1, 4, 4, 2]), "filter": f(2, 2, 3, 1), "out_backprop": f(1, 3, 3, 3)}, s1),
            ("out_size_mismatch", {"input_sizes": c([1, 4, 4, 3]), "filter": f(2, 2, 3, 1), "out_backprop": f(1, 4, 3, 3)}, s1),
            ("filter_rank3", {"input_sizes": c([1, 4, 4, 3]), "filter": f(2, 2, 3), "out_backprop": f(1, 3, 3, 3)}, s1),
            ("unequal_strides", {"input_sizes": c([1, 4, 4, 3]), "filter": f(2, 2, 3, 1), "out_backprop": f(1, 3, 2, 3)},
             {"strides": [1, 1, 2, 1], "padding": "VALID"}),
            ("nchw", {"input_sizes": c([1, 3, 4, 4]), "filter": f(2, 2, 3, 1), "out_backprop": f(1, 3, 3, 3)},
             {"strides": [1, 1, 1, 1], "padding": "VALID", "data_format": "NCHW"})):
        case("dwbpi_err_" + name, dwi, inputs, attrs, error=True)
    dwf = "DepthwiseConv2dNativeBackpropFilter"
    for name, inputs in (
            ("sizes_5_elements", {"input": f(1, 4, 4, 3), "filter_sizes": c([2, 2, 3, 1, 1]), "out_backprop": f(1, 3, 3, 3)}),
            ("sizes_zero_negative", {"input": f(1, 4, 4, 3), "filter_sizes": c([0, 2, 3, -1]), "out_backprop": f(1, 3, 3, 3)}),
            ("input_rank5", {"input": f(1, 1, 4, 4, 3), "filter_sizes": c([2, 2, 3, 1]), "out_backprop": f(1, 3, 3, 3)}),
            ("batch_mismatch", {"input": f(2, 4, 4, 3), "filter_sizes": c([2, 2, 3, 1]), "out_backprop": f(1, 3, 3, 3)}),
            ("out_depth_mismatch", {"input": f(1, 4, 4, 3), "filter_sizes": c([2, 2, 3, 2]), "out_backprop": f(1, 3, 3, 3)})):
        case("dwbpf_err_" + name, dwf, inputs, s1, error=True)
    case("dwbpf_err_batch_stride", dwf,
         {"input": f(1, 4, 4, 3), "filter_sizes": c([2, 2, 3, 1]), "out_backprop": f(1, 3, 3, 3)},
         {"strides": [2, 1, 1, 1], "padding": "VALID"}, error=True)

    # Pool gradients: inputs on a coarse grid so that windows hold tied maxima.
    reseed(42)
    x4 = _ties(2, 7, 9, 3)
    for name, k, s, pad, extra in (
            ("k2_s2_same", (2, 2), (2, 2), "SAME", {}),
            ("k2_s2_valid", (2, 2), (2, 2), "VALID", {}),
            ("k3_s2_same", (3, 3), (2, 2), "SAME", {}),
            ("k3_s2_valid", (3, 3), (2, 2), "VALID", {}),
            ("k3_s1_same", (3, 3), (1, 1), "SAME", {}),
            ("k2x3_s1x2_same", (2, 3), (1, 2), "SAME", {}),
            ("global_valid", (7, 9), (1, 1), "VALID", {}),
            ("explicit", (3, 2), (2, 1), "EXPLICIT", {"explicit_paddings": [0, 0, 1, 2, 0, 1, 0, 0]})):
        attrs = {"ksize": [1, k[0], k[1], 1], "strides": [1, s[0], s[1], 1], "padding": pad, **extra}
        y = tf.raw_ops.MaxPool(input=x4, **attrs).numpy()
        g = f(*y.shape)
        case("maxpoolgrad_" + name, "MaxPoolGrad", {"orig_input": x4, "orig_output": y, "grad": g}, attrs)
        if pad != "EXPLICIT":
            case("avgpoolgrad_" + name, "AvgPoolGrad", {"orig_input_shape": c(list(x4.shape)), "grad": g}, attrs)
    # Every window of a constant input is one tie; and real-valued inputs.
    for name, x_ in (("all_tied", np.full((1, 4, 5, 2), 1.5, F32)), ("random", f(1, 5, 5, 10))):
        attrs = {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": "SAME"}
        y = tf.raw_ops.MaxPool(input=x_, **attrs).numpy()
        case("maxpoolgrad_" + name, "MaxPoolGrad", {"orig_input": x_, "orig_output": y, "grad": f(*y.shape)}, attrs)
    # NaN and -inf: MaxPoolGrad's argmax keeps a NaN only where it comes first in its window;
    # MaxPool3DGrad's mask never matches NaN.
    fixture_io.NONFINITE_AS_STRINGS = True
    xn = _ties(1, 4, 5, 2)
    xn[0, 0, 0, 0] = xn[0, 1, 3, 1] = xn[0, 2, 2, 0] = np.nan
    xn[0, 3, 4, 1] = xn[0, 0, 1, 1] = -np.inf
    for name, k, s, pad in (("k2_s1_valid", 2, 1, "VALID"), ("k3_s2_same", 3, 2, "SAME")):
        attrs = {"ksize": [1, k, k, 1], "strides": [1, s, s, 1], "padding": pad}
        y = tf.raw_ops.MaxPool(input=xn, **attrs).numpy()
        case("maxpoolgrad_nonfinite_" + name, "MaxPoolGrad",
             {"orig_input": xn, "orig_output": y, "grad": f(*y.shape)}, attrs)
        attrs3 = {"ksize": [1, 1, k, k, 1], "strides": [1, 1, s, s, 1], "padding": pad}
        y = tf.raw_ops.MaxPool3D(input=xn[None], **attrs3).numpy()
        case("maxpool3dgrad_nonfinite_" + name, "MaxPool3DGrad",
             {"orig_input": xn[None], "orig_output": y, "grad": f(*y.shape)}, attrs3)
    fixture_io.NONFINITE_AS_STRINGS = False
    k2 = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"}
    y4 = tf.raw_ops.MaxPool(input=x4, **k2).numpy()
    for name, inputs, attrs in (
            ("grad_shape", {"orig_input": x4, "orig_output": y4, "grad": f(2, 3, 3, 3)}, k2),
            ("orig_output_shape", {"orig_input": x4, "orig_output": f(2, 3, 5, 3), "grad": y4}, k2),
            ("rank3", {"orig_input": x4[0], "orig_output": y4[0], "grad": y4[0]}, k2),
            ("depth_window", {"orig_input": x4, "orig_output": y4, "grad": y4},
             {"ksize": [1, 2, 2, 3], "strides": [1, 2, 2, 3], "padding": "VALID"}),
            ("nchw", {"orig_input": x4, "orig_output": y4, "grad": y4},
             {"ksize": [1, 1, 2, 2], "strides": [1, 1, 2, 2], "padding": "VALID", "data_format": "NCHW"})):
        case("maxpoolgrad_err_" + name, "MaxPoolGrad", inputs, attrs, error=True)
    for name, shape, grad, attrs in (
            ("shape_2_elements", [7, 9], y4, k2),
            ("shape_negative", [2, -7, 9, 3], y4, k2),
            ("grad_rank3", [2, 7, 9, 3], y4[0], k2),
            ("batch_window", [2, 7, 9, 3], y4, {"ksize": [2, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"}),
            ("nchw", [2, 3, 7, 9], y4, {"ksize": [1, 1, 2, 2], "strides": [1, 1, 2, 2], "padding": "VALID",
                                        "data_format": "NCHW"})):
        case("avgpoolgrad_err_" + name, "AvgPoolGrad", {"orig_input_shape": c(shape), "grad": grad}, attrs,
             error=True)

    x5 = _ties(2, 4, 5, 4, 3)
    for name, k, s, pad in (("k3_s2_same", (3, 3, 3), (2, 2, 2), "SAME"),
                            ("k2_s1_valid", (2, 2, 2), (1, 1, 1), "VALID"),
                            ("k2x3x2_s1x2x1_valid", (2, 3, 2), (1, 2, 1), "VALID"),
                            ("k2_s2_same", (2, 2, 2), (2, 2, 2), "SAME")):
        attrs = {"ksize": [1, *k, 1], "strides": [1, *s, 1], "padding": pad}
        y = tf.raw_ops.MaxPool3D(input=x5, **attrs).numpy()
        g = f(*y.shape)
        case("maxpool3dgrad_" + name, "MaxPool3DGrad", {"orig_input": x5, "orig_output": y, "grad": g}, attrs)
        case("avgpool3dgrad_" + name, "AvgPool3DGrad", {"orig_input_shape": c(list(x5.shape)), "grad": g}, attrs)
    k3 = {"ksize": [1, 2, 2, 2, 1], "strides": [1, 2, 2, 2, 1], "padding": "VALID"}
    y5 = tf.raw_ops.MaxPool3D(input=x5, **k3).numpy()
    for name, inputs, attrs in (
            ("grad_shape", {"orig_input": x5, "orig_output": y5, "grad": f(2, 2, 3, 2, 3)}, k3),
            ("orig_output_shape", {"orig_input": x5, "orig_output": f(2, 1, 2, 2, 3), "grad": y5}, k3),
            ("rank4", {"orig_input": x5[0], "orig_output": y5[0], "grad": y5[0]}, k3),
            ("ncdhw", {"orig_input": x5, "orig_output": y5, "grad": y5},
             {"ksize": [1, 1, 2, 2, 2], "strides": [1, 1, 2, 2, 2], "padding": "VALID", "data_format": "NCDHW"})):
        case("maxpool3dgrad_err_" + name, "MaxPool3DGrad", inputs, attrs, error=True)
    for name, shape, grad in (("shape_3_elements", [4, 5, 4], y5), ("shape_negative", [2, 4, -5, 4, 3], y5),
                              ("grad_rank4", [2, 4, 5, 4, 3], y5[0])):
        case("avgpool3dgrad_err_" + name, "AvgPool3DGrad", {"orig_input_shape": c(shape), "grad": grad}, k3,
             error=True)
    case("avgpool3dgrad_err_batch_window", "AvgPool3DGrad", {"orig_input_shape": c(list(x5.shape)), "grad": y5},
         {**k3, "ksize": [2, 2, 2, 2, 1]}, error=True)

    # 3-D convolution gradients.
    reseed(43)
    for name, xs_, ks_, s, pad in (("s1_same", (2, 4, 5, 4, 3), (3, 3, 2, 3, 4), (1, 1, 1), "SAME"),
                                   ("s2_same", (1, 5, 4, 6, 2), (3, 2, 3, 2, 3), (2, 2, 2), "SAME"),
                                   ("s1_valid", (2, 4, 4, 5, 2), (2, 3, 2, 2, 3), (1, 1, 1), "VALID"),
                                   ("s2_valid_rect", (1, 6, 5, 7, 3), (2, 2, 3, 3, 2), (2, 1, 3), "VALID")):
        x, w = f(*xs_), f(*ks_)
        out = [_out_size(xs_[1 + k], ks_[k], s[k], 1, pad, None) for k in range(3)]
        dy = f(xs_[0], *out, ks_[4])
        attrs = {"strides": [1, *s, 1], "padding": pad}
        case("conv3dbpi_" + name, "Conv3DBackpropInputV2",
             {"input_sizes": c(list(xs_)), "filter": w, "out_backprop": dy}, attrs)
        case("conv3dbpf_" + name, "Conv3DBackpropFilterV2",
             {"input": x, "filter_sizes": c(list(ks_)), "out_backprop": dy}, attrs)
    case("conv3dbpi_int64_sizes", "Conv3DBackpropInputV2",
         {"input_sizes": c([1, 3, 3, 3, 2], I64), "filter": f(2, 2, 2, 2, 2), "out_backprop": f(1, 2, 2, 2, 2)},
         {"strides": [1, 1, 1, 1, 1], "padding": "VALID"})
    v3 = {"strides": [1, 1, 1, 1, 1], "padding": "VALID"}
    for name, op, inputs, attrs in (
            ("bpi_dilated", "Conv3DBackpropInputV2",
             {"input_sizes": c([1, 4, 4, 4, 2]), "filter": f(2, 2, 2, 2, 1), "out_backprop": f(1, 2, 2, 2, 1)},
             {**v3, "dilations": [1, 2, 2, 2, 1]}),
            ("bpf_dilated", "Conv3DBackpropFilterV2",
             {"input": f(1, 4, 4, 4, 2), "filter_sizes": c([2, 2, 2, 2, 1]), "out_backprop": f(1, 2, 2, 2, 1)},
             {**v3, "dilations": [1, 2, 2, 2, 1]}),
            ("bpi_sizes_3_elements", "Conv3DBackpropInputV2",
             {"input_sizes": c([4, 4, 4]), "filter": f(2, 2, 2, 2, 1), "out_backprop": f(1, 3, 3, 3, 1)}, v3),
            ("bpi_depth_mismatch", "Conv3DBackpropInputV2",
             {"input_sizes": c([1, 4, 4, 4, 4]), "filter": f(2, 2, 2, 2, 1), "out_backprop": f(1, 3, 3, 3, 1)}, v3),
            ("bpf_depth_mismatch", "Conv3DBackpropFilterV2",
             {"input": f(1, 4, 4, 4, 4), "filter_sizes": c([2, 2, 2, 2, 1]), "out_backprop": f(1, 3, 3, 3, 1)}, v3),
            ("bpf_negative_sizes", "Conv3DBackpropFilterV2",
             {"input": f(1, 4, 4, 4, 2), "filter_sizes": c([2, 2, -2, 2, 1]), "out_backprop": f(1, 3, 3, 3, 1)}, v3),
            ("bpf_out_size_mismatch", "Conv3DBackpropFilterV2",
             {"input": f(1, 4, 4, 4, 2), "filter_sizes": c([2, 2, 2, 2, 1]), "out_backprop": f(1, 3, 2, 3, 1)}, v3),
            ("bpi_batch_stride", "Conv3DBackpropInputV2",
             {"input_sizes": c([1, 4, 4, 4, 2]), "filter": f(2, 2, 2, 2, 1), "out_backprop": f(1, 3, 3, 3, 1)},
             {"strides": [2, 1, 1, 1, 1], "padding": "VALID"}),
            ("bpi_ncdhw", "Conv3DBackpropInputV2",
             {"input_sizes": c([1, 2, 4, 4, 4]), "filter": f(2, 2, 2, 2, 1), "out_backprop": f(1, 1, 3, 3, 3)},
             {**v3, "data_format": "NCDHW"})):
        case("conv3d" + name, op, inputs, attrs, error=True)


def gen_tfjs_grads():
    """The gradient and misc ops a TF.js backend needs: activation gradients, resize / LRN /
    Dilation2D gradients, UnsortedSegment*, Diag / DiagPart, and edge cases of Lower/UpperBound
    and ImageProjectiveTransformV3."""
    family("tfjs_grads")
    reseed(33)
    fixture_io.NONFINITE_AS_STRINGS = True
    nan, inf = np.nan, np.inf
    # Activation gradients: features with exact 0 and 6, NaN and infinities.
    feat = np.concatenate([f(20, scale=4.0), c([0, 6, -0.0, nan, inf, -inf, 5.99, 1e-8, -40, 40], F32)])
    grads = np.concatenate([f(20), c([1, 2, 3, 4, 5, 6, inf, nan, 0, -1], F32)])
    for op in ("ReluGrad", "Relu6Grad", "LeakyReluGrad", "SoftplusGrad", "SoftsignGrad"):
        case(op.lower() + "_edges", op, {"gradients": grads, "features": feat})
        case(op.lower() + "_3d", op, {"gradients": f(2, 3, 4), "features": f(2, 3, 4, scale=4.0)})
        case(op.lower() + "_shape_mismatch", op, {"gradients": f(2, 3), "features": f(3, 2)}, error=True)
    case("leakyrelugrad_alpha", "LeakyReluGrad", {"gradients": grads, "features": feat}, {"alpha": -1.5})
    case("relugrad_empty", "ReluGrad", {"gradients": f(0, 3), "features": f(0, 3)})
    case("relugrad_int32", "ReluGrad", {"gradients": i(3, 4), "features": i(3, 4)})
    case("relu6grad_int64", "Relu6Grad", {"gradients": i(12).astype(I64), "features": c(range(-3, 9), I64)})
    elu_out = tf.nn.elu(feat).numpy()
    selu_out = tf.nn.selu(feat).numpy()
    case("elugrad_edges", "EluGrad", {"gradients": grads, "outputs": elu_out})
    case("selugrad_edges", "SeluGrad", {"gradients": grads, "outputs": selu_out})
    case("elugrad_shape_mismatch", "EluGrad", {"gradients": f(4), "outputs": f(2, 2)}, error=True)
    y = np.concatenate([f(20, lo=-1.0, hi=2.0), c([0, 0, 1, inf, -inf, nan, 0, 1e-20, -0.0, 3], F32)])
    dy = np.concatenate([f(20), c([0, 1, 0, 0, 2, 1, nan, 1, -2, 0], F32)])
    for op in ("SigmoidGrad", "TanhGrad", "RsqrtGrad", "SqrtGrad", "ReciprocalGrad", "InvGrad"):
        case(op.lower() + "_edges", op, {"y": y, "dy": dy})
        # TF's cwise gradients need equal element counts only; the output has y's shape.
        case(op.lower() + "_same_count", op, {"y": f(2, 3, lo=0.1, hi=2.0), "dy": f(3, 2)})
        case(op.lower() + "_count_mismatch", op, {"y": f(2, 3), "dy": f(3)}, error=True)
    # ResizeBilinearGrad: up and down, every legal corner / centre combination.
    combos = ((False, False), (True, False), (False, True))
    for up, gshape, oshape in ((True, (2, 5, 7, 3), (2, 3, 4, 3)), (False, (1, 2, 3, 2), (1, 5, 7, 2)),
                               (True, (1, 4, 4, 1), (1, 1, 1, 1))):
        for al, hp in combos:
            n = "resizebilineargrad_%s_%s_%dx%d" % ("up" if up else "down", "align" if al else "half" if hp else
                                                   "legacy", oshape[1], oshape[2])
            case(n, "ResizeBilinearGrad", {"grads": f(*gshape), "original_image": f(*oshape)},
                 {"align_corners": al, "half_pixel_centers": hp})
    # Batch and depth come from the gradient, not the original image.
    case("resizebilineargrad_batch_from_grads", "ResizeBilinearGrad",
         {"grads": f(2, 3, 3, 2), "original_image": f(1, 2, 5, 4)})
    case("resizebilineargrad_both_flags", "ResizeBilinearGrad", {"grads": f(1, 3, 3, 1), "original_image": f(1, 2, 2, 1)},
         {"align_corners": True, "half_pixel_centers": True}, error=True)
    case("resizebilineargrad_rank3", "ResizeBilinearGrad", {"grads": f(3, 3, 1), "original_image": f(1, 2, 2, 1)},
         error=True)
    case("resizebilineargrad_empty_original", "ResizeBilinearGrad",
         {"grads": f(1, 3, 3, 1), "original_image": f(1, 0, 2, 1)}, error=True)
    case("resizebilineargrad_empty_grads", "ResizeBilinearGrad",
         {"grads": f(1, 3, 0, 1), "original_image": f(1, 2, 2, 1)}, error=True)
    # ResizeNearestNeighborGrad: TF allows both flags here.
    for up, gshape, size in ((True, (2, 6, 9, 3), (4, 5)), (False, (1, 3, 2, 2), (7, 5)), (True, (1, 5, 5, 1), (1, 1))):
        for al, hp in combos + ((True, True),):
            n = "resizenngrad_%s_%s%s_%dx%d" % ("up" if up else "down", "align" if al else "", "half" if hp else "",
                                                 size[0], size[1])
            case(n, "ResizeNearestNeighborGrad", {"grads": f(*gshape), "size": c(size)},
                 {"align_corners": al, "half_pixel_centers": hp})
    case("resizenngrad_int32", "ResizeNearestNeighborGrad", {"grads": i(1, 4, 4, 2), "size": c([3, 2])})
    case("resizenngrad_uint8_wraps", "ResizeNearestNeighborGrad",
         {"grads": np.full((1, 4, 4, 1), 100, np.uint8), "size": c([2, 2])})
    case("resizenngrad_empty_grads", "ResizeNearestNeighborGrad", {"grads": f(1, 0, 3, 2), "size": c([2, 2])})
    case("resizenngrad_zero_size", "ResizeNearestNeighborGrad", {"grads": f(1, 3, 3, 1), "size": c([0, 2])},
         error=True)
    case("resizenngrad_three_sizes", "ResizeNearestNeighborGrad", {"grads": f(1, 3, 3, 1), "size": c([2, 2, 2])},
         error=True)
    case("resizenngrad_rank3", "ResizeNearestNeighborGrad", {"grads": f(3, 3, 1), "size": c([2, 2])}, error=True)
    # LRNGrad, with LRN's own output; some zero gradients (TF skips them).
    for n, shape, attrs in (("default", (2, 3, 4, 7), {}),
                            ("radius2", (1, 2, 3, 6), {"depth_radius": 2, "bias": 2.0, "alpha": 0.1, "beta": 0.75}),
                            ("radius0", (1, 2, 2, 3), {"depth_radius": 0, "alpha": 0.5}),
                            ("radius_past_depth", (1, 1, 2, 4), {"depth_radius": 9, "beta": 1.5})):
        x = f(*shape)
        g = f(*shape)
        g.ravel()[::5] = 0
        out = tf.raw_ops.LRN(input=x, **attrs).numpy()
        case("lrngrad_" + n, "LRNGrad", {"input_grads": g, "input_image": x, "output_image": out}, attrs)
    x = f(1, 2, 2, 3)
    case("lrngrad_rank3", "LRNGrad", {"input_grads": x[0], "input_image": x[0], "output_image": x[0]}, error=True)
    case("lrngrad_shape_mismatch", "LRNGrad", {"input_grads": x, "input_image": x, "output_image": f(1, 2, 2, 4)},
         error=True)
    case("lrngrad_negative_radius", "LRNGrad", {"input_grads": x, "input_image": x, "output_image": x},
         {"depth_radius": -1}, error=True)
    # Dilation2D backprops: geometry, ties (the first tap in scan order wins), no tap in the image.
    x, filt = f(2, 5, 6, 3), f(2, 3, 3, scale=0.5)
    for n, s, r, pad in (("same", 1, 1, "SAME"), ("valid_stride2_rate2", 2, 2, "VALID"), ("same_rate2", 1, 2, "SAME"),
                         ("valid", 1, 1, "VALID")):
        attrs = {"strides": [1, s, s, 1], "rates": [1, r, 1, 1], "padding": pad}
        out_shape = tf.raw_ops.Dilation2D(input=x, filter=filt, **attrs).shape
        for op in ("Dilation2DBackpropInput", "Dilation2DBackpropFilter"):
            case("%s_%s" % (op.lower(), n), op, {"input": x, "filter": filt, "out_backprop": f(*out_shape)}, attrs)
    ones, zf = c(np.ones((1, 3, 3, 1)), F32), c(np.zeros((2, 2, 1)), F32)
    unit = {"strides": [1, 1, 1, 1], "rates": [1, 1, 1, 1], "padding": "VALID"}
    notap = {"strides": [1, 1, 1, 1], "rates": [1, 3, 1, 1], "padding": "SAME"}
    for op in ("Dilation2DBackpropInput", "Dilation2DBackpropFilter"):
        n = op.lower()
        case(n + "_ties", op, {"input": ones, "filter": zf, "out_backprop": f(1, 2, 2, 1)}, unit)
        case(n + "_no_tap", op, {"input": c(np.ones((1, 1, 2, 1)), F32), "filter": c(np.zeros((2, 1, 1)), F32),
                                 "out_backprop": f(1, 1, 2, 1)}, notap)
        case(n + "_minus_inf", op, {"input": c(np.full((1, 2, 2, 1), -inf), F32), "filter": c(np.zeros((2, 1, 1)), F32),
                                    "out_backprop": f(1, 2, 2, 1)}, dict(unit, padding="SAME"))
        case(n + "_int32", op, {"input": i(1, 4, 4, 2), "filter": i(2, 2, 2), "out_backprop": i(1, 3, 3, 2)}, unit)
        case(n + "_bad_backprop", op, {"input": x, "filter": filt, "out_backprop": f(2, 5, 6, 2)},
             dict(unit, padding="SAME"), error=True)
        case(n + "_batch_stride", op, {"input": x, "filter": filt, "out_backprop": f(2, 5, 6, 3)},
             dict(unit, strides=[2, 1, 1, 1], padding="SAME"), error=True)
    # The forward op's initial value is TF's lowest (not -inf, and int32's own lowest).
    case("dilation2d_no_tap_int32", "Dilation2D", {"input": c(np.ones((1, 1, 1, 1)), I32),
                                                   "filter": c(np.zeros((2, 1, 1)), I32)}, notap)
    case("dilation2d_minus_inf", "Dilation2D", {"input": c(np.full((1, 2, 2, 1), -inf), F32),
                                                "filter": c(np.zeros((2, 1, 1)), F32)}, dict(unit, padding="SAME"))
    case("dilation2d_batch_stride", "Dilation2D", {"input": x, "filter": filt},
         dict(unit, strides=[2, 1, 1, 1], padding="SAME"), error=True)
    # UnsortedSegment*: empty segments (the fold's initial value), negative ids dropped, NaN.
    data = f(6, 3)
    data[2, 1] = nan
    ids = c([3, 0, 3, -1, 0, 1])
    for op in ("UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"):
        n = op.lower()
        case(n + "_2d", op, {"data": data, "segment_ids": ids, "num_segments": c(5)})
        case(n + "_ids_2d_int64", op, {"data": f(2, 3, 4), "segment_ids": c([[0, 2, 2], [-5, 1, 0]], I64),
                                       "num_segments": c(3, I64)})
        case(n + "_int32", op, {"data": i(5, 2), "segment_ids": c([1, 1, 0, 3, 1]), "num_segments": c(4)})
        case(n + "_uint8", op, {"data": _rng.integers(0, 255, (4, 2)).astype(np.uint8), "segment_ids": c([0, 0, 1, 0]),
                                "num_segments": c(3)})
        case(n + "_scalar_id", op, {"data": f(2, 2), "segment_ids": c(1), "num_segments": c(2)})
        case(n + "_out_of_range", op, {"data": data, "segment_ids": c([0, 5, 0, 0, 0, 0]), "num_segments": c(5)},
             error=True)
    case("unsortedsegmentmax_nan_1d", "UnsortedSegmentMax", {"data": c([1, 5, nan, 2, nan, 3, nan], F32),
                                                             "segment_ids": c([0, 0, 0, 0, 1, 1, 2]),
                                                             "num_segments": c(3)})
    case("unsortedsegmentmin_nan_1d", "UnsortedSegmentMin", {"data": c([1, 5, nan, 2, nan, 3, nan], F32),
                                                             "segment_ids": c([0, 0, 0, 0, 1, 1, 2]),
                                                             "num_segments": c(3)})
    case("unsortedsegmentsum_zero_segments", "UnsortedSegmentSum",
         {"data": f(3, 2), "segment_ids": c([-1, -1, -2]), "num_segments": c(0)})
    case("unsortedsegmentsum_empty_data_bad_id", "UnsortedSegmentSum",
         {"data": f(2, 0), "segment_ids": c([0, 7]), "num_segments": c(2)})
    case("unsortedsegmentsum_negative_count", "UnsortedSegmentSum",
         {"data": data, "segment_ids": ids, "num_segments": c(-1)}, error=True)
    case("unsortedsegmentsum_count_not_scalar", "UnsortedSegmentSum",
         {"data": data, "segment_ids": ids, "num_segments": c([5])}, error=True)
    case("unsortedsegmentsum_not_prefix", "UnsortedSegmentSum",
         {"data": data, "segment_ids": c([0, 1, 2]), "num_segments": c(5)}, error=True)
    # LowerBound / UpperBound (TF.js's SearchSorted): values past both ends, infinities, NaN.
    srt = np.sort(f(2, 5), axis=1)
    vals = c([[nan, -inf, inf, -9, 9, 0], [nan, 0, 0, 0, 0, 0]], F32)
    vals[1, 1:] = srt[1, [0, 1, 4, 2, 2]]
    for op in ("LowerBound", "UpperBound"):
        case(op.lower() + "_outside_nan", op, {"sorted_inputs": srt, "values": vals})
        case(op.lower() + "_empty_sorted", op, {"sorted_inputs": f(2, 0), "values": vals}, {"out_type": tf.int64})
    # ImageProjectiveTransformV3 (TF.js's Transform): a NaN coordinate is the fill value (nearest)
    # or NaN (bilinear) in every fill mode; an infinite projection term.
    img = c(np.arange(1, 17).reshape(1, 4, 4, 1), F32)
    for mode in ("CONSTANT", "NEAREST", "REFLECT", "WRAP"):
        for interp in ("NEAREST", "BILINEAR"):
            for n, t in (("nan", [nan, 0, 0, 0, 1, 0, 0, 0]), ("inf", [1, 0, 0, 0, 1, 0, inf, 0])):
                case("ipt_%s_%s_%s" % (n, mode.lower(), interp.lower()), "ImageProjectiveTransformV3",
                     {"images": img, "transforms": c([t], F32), "output_shape": c([2, 3]),
                      "fill_value": c(-1.0, F32)}, {"interpolation": interp, "fill_mode": mode})
    # Diag / DiagPart.
    case("diag_1d", "Diag", {"diagonal": f(4)})
    case("diag_2d", "Diag", {"diagonal": f(2, 3)})
    case("diag_int64", "Diag", {"diagonal": i(3).astype(I64)})
    case("diag_empty", "Diag", {"diagonal": f(0, 2)})
    case("diag_scalar", "Diag", {"diagonal": c(1.0, F32)}, error=True)
    case("diagpart_2d", "DiagPart", {"input": f(4, 4)})
    case("diagpart_4d", "DiagPart", {"input": f(2, 3, 2, 3)})
    case("diagpart_int32", "DiagPart", {"input": i(3, 3)})
    case("diagpart_scalar", "DiagPart", {"input": c(2.5, F32)})
    case("diagpart_odd_rank", "DiagPart", {"input": f(2, 3, 2)}, error=True)
    case("diagpart_mismatch", "DiagPart", {"input": f(2, 3)}, error=True)
    fixture_io.NONFINITE_AS_STRINGS = False


def gen_strings():
    family("strings")
    w = s([["a", "bc", ""], ["d\u00e9", b"\xff\x00", "fgh"]])
    case("identity_str", "Identity", {"input": w})
    case("reshape_str", "Reshape", {"tensor": w, "shape": c([3, -1])})
    case("expanddims_str", "ExpandDims", {"input": w, "axis": c(1)})
    case("squeeze_str", "Squeeze", {"input": s([["x"], ["y"]])}, {"axis": [1]})
    case("gatherv2_str", "GatherV2", {"params": w, "indices": c([2, 0, 2]), "axis": c(1)})
    case("gatherv2_str_out_of_range", "GatherV2", {"params": w, "indices": c([3]), "axis": c(1)}, error=True)
    case("concat_str", "ConcatV2", {"values": [w, s([["q", "r", "s"]])], "axis": c(0)})
    case("concat_str_bad_shape", "ConcatV2", {"values": [w, s([["q", "r"]])], "axis": c(0)}, error=True)
    case("pack_str", "Pack", {"values": [s(["a", "b"]), s(["c", "d"])]}, {"axis": 1})
    case("unpack_str", "Unpack", {"value": w}, {"num": 3, "axis": 1})
    case("slice_str", "Slice", {"input": w, "begin": c([0, 1]), "size": c([2, -1])})
    case("stridedslice_str", "StridedSlice",
         {"input": w, "begin": c([1, 2]), "end": c([-3, -4]), "strides": c([-1, -1])})
    case("tile_str", "Tile", {"input": w, "multiples": c([2, 2])})
    case("transpose_str", "Transpose", {"x": w, "perm": c([1, 0])})
    case("fill_str", "Fill", {"dims": c([2, 3]), "value": s(b"ab\x00")})
    case("fill_str_not_scalar", "Fill", {"dims": c([2]), "value": s(["a", "b"])}, error=True)
    case("equal_str", "Equal", {"x": w, "y": s(["a", "x", ""])})
    case("notequal_str", "NotEqual", {"x": w, "y": s("fgh")})
    case("equal_str_bad_shape", "Equal", {"x": w, "y": s(["a", "b"])}, error=True)
    case("selectv2_str", "SelectV2", {"condition": c([True, False, True], B), "t": w, "e": s("-")})
    case("select_str", "Select", {"condition": c([True, False], B), "x": w, "y": s([["1", "2", "3"], ["4", "5", "6"]])})
    case("reversev2_str", "ReverseV2", {"tensor": w, "axis": c([1])})
    case("split_str", "Split", {"axis": c(1), "value": w}, {"num_split": 3})
    case("gathernd_str", "GatherNd", {"params": w, "indices": c([[1, 0], [0, 2]])})
    case("broadcastto_str", "BroadcastTo", {"input": s(["u", "v"]), "shape": c([3, 2])})

    lines = s(["hello world  foo", "", "a,b;;c", " lead", "x"])
    case("split_space", "StringSplit", {"input": lines, "delimiter": s(" ")})
    case("split_keep_empty", "StringSplit", {"input": lines, "delimiter": s(" ,;")}, {"skip_empty": False})
    case("split_any_of", "StringSplit", {"input": lines, "delimiter": s(",;")})
    case("split_bytes", "StringSplit", {"input": s(["ab", "", "\u00e9"]), "delimiter": s("")})
    case("split_empty_batch", "StringSplit", {"input": s([]).astype(object).reshape(0), "delimiter": s(" ")})
    case("split_not_vector", "StringSplit", {"input": s([["a"]]), "delimiter": s(" ")}, error=True)
    case("split_delim_not_scalar", "StringSplit", {"input": s(["a"]), "delimiter": s([" "])}, error=True)

    toks = s(["a", "b", "c", "d", "e", "f"])
    ng = dict(separator=" ", left_pad="<", right_pad=">", pad_width=0, preserve_short_sequences=False)
    case("ngrams_bigram", "StringNGrams", {"data": toks, "data_splits": c([0, 4, 4, 6], I64)},
         dict(ng, ngram_widths=[2]))
    case("ngrams_multi_pad_auto", "StringNGrams", {"data": toks, "data_splits": c([0, 1, 6], I64)},
         dict(ng, ngram_widths=[1, 2, 3], pad_width=-1, separator="|"))
    case("ngrams_pad_1", "StringNGrams", {"data": toks, "data_splits": c([0, 3, 6])},
         dict(ng, ngram_widths=[3], pad_width=1))
    case("ngrams_pad_wide", "StringNGrams", {"data": toks, "data_splits": c([0, 2, 6], I64)},
         dict(ng, ngram_widths=[4], pad_width=3))
    case("ngrams_preserve_short", "StringNGrams", {"data": toks, "data_splits": c([0, 2, 2, 6], I64)},
         dict(ng, ngram_widths=[3, 5], preserve_short_sequences=True))
    case("ngrams_preserve_short_padded", "StringNGrams", {"data": toks, "data_splits": c([0, 1, 6], I64)},
         dict(ng, ngram_widths=[5], pad_width=1, preserve_short_sequences=True))
    case("ngrams_preserve_short_auto_pad", "StringNGrams", {"data": toks, "data_splits": c([0, 1, 6], I64)},
         dict(ng, ngram_widths=[9], pad_width=-1, preserve_short_sequences=True))
    case("ngrams_bad_first_split", "StringNGrams", {"data": toks, "data_splits": c([1, 6], I64)},
         dict(ng, ngram_widths=[2]), error=True)
    case("ngrams_bad_last_split", "StringNGrams", {"data": toks, "data_splits": c([0, 5], I64)},
         dict(ng, ngram_widths=[2]), error=True)
    case("ngrams_decreasing_split", "StringNGrams", {"data": toks, "data_splits": c([0, 4, 3, 6], I64)},
         dict(ng, ngram_widths=[2]), error=True)
    case("ngrams_zero_width", "StringNGrams", {"data": toks, "data_splits": c([0, 6], I64)},
         dict(ng, ngram_widths=[0]), error=True)

    # Lengths across every FarmHash branch (0-16, 17-32, 33-64, over 64 with 1 or more 64-byte blocks).
    words = [bytes((7 * k + 3 * j) % 256 for j in range(n)) for k, n in
             enumerate([0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 50, 64, 65, 100, 128, 129, 200, 300])]
    words += [b"hello", "caf\u00e9".encode(), b"the quick brown fox jumps over the lazy dog"]
    case("hash_bucket_big", "StringToHashBucketFast", {"input": s(words)}, {"num_buckets": 2 ** 63 - 1})
    case("hash_bucket_small", "StringToHashBucketFast", {"input": s([["a", "b"], ["c", ""]])}, {"num_buckets": 10})
    case("hash_bucket_odd", "StringToHashBucketFast", {"input": s(words)}, {"num_buckets": 1000003})

    txt = s([["Hello World", "aaa bbb"], ["", "caf\u00e9 au lait"]])
    case("regex_global", "StaticRegexReplace", {"input": txt}, {"pattern": "[aeiou]", "rewrite": "_"})
    case("regex_first", "StaticRegexReplace", {"input": txt}, {"pattern": "[aeiou]", "rewrite": "_",
                                                              "replace_global": False})
    case("regex_groups", "StaticRegexReplace", {"input": txt}, {"pattern": "(\\w+) (\\w+)",
                                                               "rewrite": "\\2-\\1 [\\0] \\\\"})
    case("regex_empty_matches", "StaticRegexReplace", {"input": s(["baaac", "", "xyz"])}, {"pattern": "a*", "rewrite": "-"})
    case("regex_anchor", "StaticRegexReplace", {"input": s(["  pad  ", "x"])}, {"pattern": "^\\s+|\\s+$", "rewrite": ""})
    case("regex_bad_pattern", "StaticRegexReplace", {"input": s(["a"])}, {"pattern": "(a", "rewrite": ""}, error=True)
    case("regex_bad_group", "StaticRegexReplace", {"input": s(["a"])}, {"pattern": "(a)", "rewrite": "\\2"})
    case("regex_bad_escape", "StaticRegexReplace", {"input": s(["a"])}, {"pattern": "(a)", "rewrite": "\\q"})


GENERATORS = [gen_matmul, gen_conv, gen_pool, gen_batchnorm, gen_binary, gen_unary,
              gen_softmax, gen_reduce, gen_array, gen_compare, gen_resize, gen_math_extra,
              gen_gather_nd, gen_dynamic, gen_array_extra, gen_conv_transpose, gen_image_extra,
              gen_uint8, gen_einsum, gen_math_more, gen_sparse, gen_image_more, gen_tfjs_only,
              gen_volume, gen_ragged, gen_grads, gen_tfjs_grads, gen_complex,
              gen_strings]


def main():
    os.makedirs(OUT, exist_ok=True)
    # Optional family names (gen_op_cases.py dynamic nms ...) regenerate only those files.
    only = set(sys.argv[1:])
    for g in GENERATORS:
        if not only or g.__name__[4:] in only:
            g()
    total = 0
    for fam, cases in CASES.items():
        names = [cs["name"] for cs in cases]
        assert len(names) == len(set(names)), fam
        path = os.path.join(OUT, fam + ".json")
        text = "[\n" + ",\n".join(fixture_io.dumps(cs) for cs in cases) + "\n]\n"
        json.loads(text)
        with open(path, "w") as fh:
            fh.write(text)
        total += len(text)
        ops = sorted({cs["op"] for cs in cases})
        nerr = sum("error" in cs for cs in cases)
        print("%-10s %3d cases (%d errors), %7d bytes: %s" % (fam, len(cases), nerr, len(text),
                                                               " ".join(ops)))
    print("total %d bytes" % total)


if __name__ == "__main__":
    main()
