#!/usr/bin/python3
"""Writes a float model's dynamically quantized form, the graph ONNX
Runtime's `quantize_dynamic` produces (int8 weights, uint8 activations
quantized at run time):

    DynamicQuantizeLinear(X) -> X_q, X_scale, X_zp
    MatMulInteger(X_q, W_q, X_zp, W_zp) -> int32
    Cast(to float) -> Mul(., Mul(X_scale, W_scale)) [-> Add(bias)]

for every MatMul whose B is a 2-D float initializer, and every Gemm with
such a B (alpha = beta = 1, transA 0; transB weights are transposed here,
C becomes the Add). W is quantized symmetrically to int8 per tensor
(scale max|W| / 127, zero point 0), as ONNX Runtime's default QInt8
weights are. Activations that several products read are quantized once.

    /usr/bin/python3 tools/make_dynamic_quant.py MODEL.onnx OUT.onnx

Used to measure Kiln on transformers after dynamic quantization and to
check it against ONNX Runtime on the same file (docs/quantization.md).
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def attr(node, name, default):
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    model = onnx.load(sys.argv[1])
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    new_nodes, new_inits, quantized = [], [], {}
    count = 0

    def quantized_input(x):
        """X's DynamicQuantizeLinear outputs, added once per activation."""
        if x not in quantized:
            outs = [f"{x}_dq", f"{x}_dq_scale", f"{x}_dq_zp"]
            new_nodes.append(helper.make_node("DynamicQuantizeLinear", [x], outs,
                                              name=f"{x}_DynamicQuantizeLinear"))
            quantized[x] = outs
        return quantized[x]

    for node in graph.node:
        gemm = node.op_type == "Gemm"
        b = node.input[1] if len(node.input) > 1 else ""
        w = inits.get(b)
        usable = (node.op_type in ("MatMul", "Gemm") and w is not None and len(w.dims) == 2
                  and w.data_type == TensorProto.FLOAT)
        if gemm and usable:
            usable = (attr(node, "alpha", 1.0) == 1.0 and attr(node, "beta", 1.0) == 1.0
                      and attr(node, "transA", 0) == 0
                      and (len(node.input) < 3 or node.input[2] in inits))
        if not usable:
            new_nodes.append(node)
            continue
        weights = numpy_helper.to_array(w).astype(np.float32)
        if gemm and attr(node, "transB", 0):
            weights = weights.T
        scale = max(float(np.abs(weights).max()), 1e-8) / 127.0
        wq = np.clip(np.round(weights / scale), -127, 127).astype(np.int8)
        name = node.name or f"product_{count}"
        count += 1
        new_inits += [numpy_helper.from_array(wq, f"{name}_W_q"),
                      numpy_helper.from_array(np.float32(scale), f"{name}_W_scale"),
                      numpy_helper.from_array(np.int8(0), f"{name}_W_zp")]
        xq, xs, xz = quantized_input(node.input[0])
        y = node.output[0]
        product = f"{y}_product" if gemm and len(node.input) > 2 else y
        new_nodes += [
            helper.make_node("MatMulInteger", [xq, f"{name}_W_q", xz, f"{name}_W_zp"],
                             [f"{name}_int32"], name=f"{name}_MatMulInteger"),
            helper.make_node("Cast", [f"{name}_int32"], [f"{name}_float"], to=TensorProto.FLOAT,
                             name=f"{name}_Cast"),
            helper.make_node("Mul", [xs, f"{name}_W_scale"], [f"{name}_scales"],
                             name=f"{name}_scales_mul"),
            helper.make_node("Mul", [f"{name}_float", f"{name}_scales"], [product],
                             name=f"{name}_output_scale_mul"),
        ]
        if product != y:
            new_nodes.append(helper.make_node("Add", [product, node.input[2]], [y],
                                              name=f"{name}_bias_add"))
    used = {i for n in new_nodes for i in n.input}
    kept = [t for t in graph.initializer if t.name in used]
    del graph.node[:]
    graph.node.extend(new_nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept + new_inits)
    onnx.save(model, sys.argv[2])
    print(f"{count} products quantized dynamically, {len(quantized)} DynamicQuantizeLinear")


if __name__ == "__main__":
    main()
