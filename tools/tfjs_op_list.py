#!/usr/bin/env python3
"""Writes tests/fixtures/tfjs_converter_ops.txt: every tfOpName in the installed tensorflowjs
converter's op list (tensorflowjs/op_list/*.json), one '<file> <name>' per line, sorted.

    /tmp/tfenv/bin/python tools/tfjs_op_list.py
"""

import glob
import json
import os

import tensorflowjs

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
src = os.path.join(os.path.dirname(tensorflowjs.__file__), "op_list")
names = set()
for path in glob.glob(os.path.join(src, "*.json")):
    fam = os.path.basename(path)[:-5]
    for op in json.load(open(path)):
        names.add((fam, op["tfOpName"]))
with open(os.path.join(REPO, "tests", "fixtures", "tfjs_converter_ops.txt"), "w") as f:
    f.write("# tfOpName of every op in tfjs-converter %s's op list (tensorflowjs/op_list/*.json), as\n"
            % tensorflowjs.__version__)
    f.write("# '<file> <name>'; regenerate: /tmp/tfenv/bin/python tools/tfjs_op_list.py\n")
    for fam, name in sorted(names):
        f.write("%s %s\n" % (fam, name))
