#!/usr/bin/python3
"""Multiply-adds of one inference of an ONNX model, from its shapes.

    /usr/bin/python3 bench/model_flops.py MODEL.onnx   ->  {"gmacs": X, "by_op": {...}}

Counts the ops that dominate: Conv (per output element, C_in/group x kernel
volume), ConvTranspose, MatMul (batched, broadcast), Gemm. Everything else
(elementwise, pooling, normalisation) is memory-bound and left out, as
GFLOP/s figures conventionally do. Shapes come from ONNX shape inference
(the exports have static shapes).
"""
import json
import sys

import numpy as np
import onnx
from onnx import shape_inference


def shapes_of(model):
    g = model.graph
    shapes = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        dims = [d.dim_value if d.HasField("dim_value") else None
                for d in vi.type.tensor_type.shape.dim]
        shapes[vi.name] = dims
    for init in g.initializer:
        shapes[init.name] = list(init.dims)
    return shapes


def node_macs(node, shapes):
    def shape(i):
        return shapes.get(node.input[i]) if i < len(node.input) else None
    out = shapes.get(node.output[0])
    if node.op_type in ("Conv", "ConvTranspose"):
        w = shape(1)
        if not w or not out or None in w or None in out:
            return 0
        x = shape(0)
        if node.op_type == "Conv":  # W is [C_out, C_in/group, k...]
            return int(np.prod(out)) * w[1] * int(np.prod(w[2:]))
        return int(np.prod(x)) * w[1] * int(np.prod(w[2:]))  # W is [C_in, C_out/group, k...]
    if node.op_type in ("MatMul", "Gemm"):
        a, b = shape(0), shape(1)
        if not a or not b or not out or None in a or None in b or None in out:
            return 0
        if node.op_type == "Gemm":
            trans_a = next((x.i for x in node.attribute if x.name == "transA"), 0)
            k = a[0] if trans_a else a[1]
        else:
            k = a[-1]
        return int(np.prod(out)) * k
    return 0


def main(path):
    model = shape_inference.infer_shapes(onnx.load(path, load_external_data=False))
    shapes = shapes_of(model)
    by_op = {}
    for node in model.graph.node:
        by_op[node.op_type] = by_op.get(node.op_type, 0) + node_macs(node, shapes)
    total = sum(by_op.values())
    print(json.dumps({"gmacs": total / 1e9,
                      "by_op": {k: v / 1e9 for k, v in by_op.items() if v}}))


if __name__ == "__main__":
    main(sys.argv[1])
