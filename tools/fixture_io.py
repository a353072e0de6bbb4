"""Shared JSON writing for the fixture generators.

Tensors are written as {"dtype", "shape", "data"} with `data` flat in row-major
order; a complex64 tensor's `data` holds (real, imaginary) float pairs, interleaved (2 numbers
per element; `shape` is the logical shape).  float32 values are written with the shortest decimal that round-trips
to the same float32 (numpy's str of an np.float32), so parsing the number as
f32 (or as f64 then casting to f32) gives back the exact value.  Non-finite
values are refused (JSON has no NaN/Infinity).  string tensors (numpy bytes or
object arrays) are written with dtype "string" and each element's bytes in base64.
"""

import base64
import json

import numpy as np

DTYPE_NAMES = {
    np.dtype(np.float32): "float32",
    np.dtype(np.int32): "int32",
    np.dtype(np.int64): "int64",
    np.dtype(np.bool_): "bool",
    np.dtype(np.uint8): "uint8",
    np.dtype(np.complex64): "complex64",
}


# The op cases may set this: NaN and infinities are then written as the strings "NaN",
# "Infinity", "-Infinity" (which the Rust fixture reader accepts).
NONFINITE_AS_STRINGS = False


def _float(v):
    if np.isfinite(v):
        return str(v)
    return '"NaN"' if np.isnan(v) else ('"Infinity"' if v > 0 else '"-Infinity"')


def _fmt(arr):
    dt = arr.dtype
    flat = arr.reshape(-1)
    if dt == np.float32:
        if not np.all(np.isfinite(flat)):
            if not NONFINITE_AS_STRINGS:
                raise ValueError("non-finite float in fixture")
            return ",".join(_float(v) for v in flat)
        return ",".join(str(v) for v in flat)
    if dt == np.complex64:
        # Interleaved (re, im): numpy's complex64 memory viewed as float32.
        return _fmt(np.ascontiguousarray(flat).view(np.float32))
    if dt == np.bool_:
        return ",".join("true" if v else "false" for v in flat)
    if dt in (np.int32, np.int64, np.uint8):
        return ",".join(str(int(v)) for v in flat)
    raise TypeError("unsupported dtype %s" % dt)


class _Raw:
    def __init__(self, text):
        self.text = text


def tensor(arr):
    arr = np.asarray(arr)
    if arr.dtype.kind in "OSU":
        elems = [x.encode() if isinstance(x, str) else bytes(x) for x in arr.reshape(-1)]
        return {"dtype": "string", "shape": [int(d) for d in arr.shape],
                "data": [base64.b64encode(x).decode() for x in elems]}
    if arr.dtype == np.float64:
        raise TypeError("float64 tensor in fixture; cast explicitly")
    return {
        "dtype": DTYPE_NAMES[arr.dtype],
        "shape": [int(d) for d in arr.shape],
        "data": _Raw("[" + _fmt(arr) + "]"),
    }


def dumps(obj, indent=None):
    """json.dumps that writes tensor() data arrays verbatim."""
    raws = []

    def default(o):
        if isinstance(o, _Raw):
            raws.append(o.text)
            return "\x00RAW%d\x00" % (len(raws) - 1)
        raise TypeError(type(o))

    text = json.dumps(obj, default=default, indent=indent)
    for i, r in enumerate(raws):
        text = text.replace('"\\u0000RAW%d\\u0000"' % i, r, 1)
    return text
