#!/usr/bin/python3
"""Writes tests/data/models/matmul_chain.onnx: a model whose run is long
(hundreds of milliseconds) but whose file is tiny, for the tests that need a
run in flight: cancel from another thread, destroy while running, threads
sharing one runtime (tests/test_bad_input.c).

    Y = X @ W @ W @ ... @ W      (LAYERS MatMul nodes, X and W N x N float)

W is ConstantOfShape([N, N], 1/N), folded once when a session is created,
so every product maps each row to its mean: values stay finite and normal
(no denormal slowdowns), and the expected output is easy to state: every
element of row r equals the mean of row r of X.

Run with Debian's python3 (python3-onnx); the output file is committed:
    /usr/bin/python3 tests/hostile/make_long_model.py"""
import os

from onnx import TensorProto, helper, save

N = 384
LAYERS = 96
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "models",
                   "matmul_chain.onnx")


def main():
    nodes = [helper.make_node("ConstantOfShape", ["shape"], ["W"], name="weights",
                              value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0 / N]))]
    prev = "X"
    for i in range(LAYERS):
        out = "Y" if i == LAYERS - 1 else "h%d" % i
        nodes.append(helper.make_node("MatMul", [prev, "W"], [out], name="matmul%d" % i))
        prev = out
    graph = helper.make_graph(
        nodes, "matmul_chain",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [N, N])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [N, N])],
        [helper.make_tensor("shape", TensorProto.INT64, [2], [N, N])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="kiln-tests")
    model.ir_version = 8
    save(model, OUT)
    print("wrote %s (%d MatMul nodes of %dx%d)" % (os.path.normpath(OUT), LAYERS, N, N))


if __name__ == "__main__":
    main()
