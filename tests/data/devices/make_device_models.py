#!/usr/bin/python3
"""Writes the device tests' models (tests/test_host_test_device.c).

mlp_split.onnx:

A small MLP whose middle node (Sigmoid) the test device does not serve, so a
session on it splits into device -> cpu -> device partitions:

    x[N,16] -Gemm(W1,b1)-> a -Relu-> h -MatMul(W2)-> m -Sigmoid-> gate (output)
    gate -MatMul(W3)-> t -Add(b3)-> u -Relu-> y (output)

N is free, so a test can make the device-only tensors (a, h: N x 64) large
while the host side stays small (m, gate: N x 8).

if_outer.onnx: an If whose branches read a value the graph computes from
the enclosing graph by name (not as an input of the If node), which makes a
session plan every run eagerly, on the host:

    x[4,20] -Relu-> r;  If(c): then y = r + r (Add), else y = Neg(r)

shared_input.onnx: one input read by a node the test device serves and by
one it does not, so an input bound to device memory must also be copied to
the host for the CPU's node:

    x[N,8] -Relu-> r (device);  x -Sigmoid-> s (cpu);  y = Add(r, s) (device)

mlp_device.onnx: an MLP made only of ops the test device serves, so a
session on it runs every node on the device (captured device graphs,
tests/test_device_graph.c):

    x[N,16] -Gemm(W1,b1)-> a -Relu-> h -MatMul(W2)-> m -Add(b2)-> y (output)

Fixed seed; run with /usr/bin/python3 (Debian's python3-onnx).
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def save(model, name):
    model.ir_version = 8
    onnx.checker.check_model(model)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    onnx.save(model, out)
    print(out)


def if_outer():
    then_g = helper.make_graph(
        [helper.make_node("Add", ["r", "r"], ["t"], name="twice")], "then", [],
        [helper.make_tensor_value_info("t", TensorProto.FLOAT, [4, 20])])
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["r"], ["e"], name="negate")], "else", [],
        [helper.make_tensor_value_info("e", TensorProto.FLOAT, [4, 20])])
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"], name="relu"),
         helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then_g,
                          else_branch=else_g)],
        "if_outer",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 20]),
         helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 20])])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                           producer_name="kiln-tests"), "if_outer.onnx")


def shared_input():
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"], name="relu"),
         helper.make_node("Sigmoid", ["x"], ["s"], name="squash"),
         helper.make_node("Add", ["r", "s"], ["y"], name="sum")],
        "shared_input",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 8])])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                           producer_name="kiln-tests"), "shared_input.onnx")


def mlp_device():
    rng = np.random.default_rng(20261204)
    w1 = rng.standard_normal((16, 32)).astype(np.float32) * 0.25
    b1 = rng.standard_normal(32).astype(np.float32) * 0.1
    w2 = rng.standard_normal((32, 8)).astype(np.float32) * 0.25
    b2 = rng.standard_normal(8).astype(np.float32) * 0.1
    inits = [numpy_helper.from_array(a, name) for a, name in
             ((w1, "W1"), (b1, "b1"), (w2, "W2"), (b2, "b2"))]
    nodes = [
        helper.make_node("Gemm", ["x", "W1", "b1"], ["a"], name="fc1"),
        helper.make_node("Relu", ["a"], ["h"], name="relu1"),
        helper.make_node("MatMul", ["h", "W2"], ["m"], name="fc2"),
        helper.make_node("Add", ["m", "b2"], ["y"], name="bias2"),
    ]
    graph = helper.make_graph(
        nodes, "mlp_device",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 8])],
        inits)
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                           producer_name="kiln-tests"), "mlp_device.onnx")


def main():
    rng = np.random.default_rng(20261203)
    w1 = rng.standard_normal((16, 64)).astype(np.float32) * 0.25
    b1 = rng.standard_normal(64).astype(np.float32) * 0.1
    w2 = rng.standard_normal((64, 8)).astype(np.float32) * 0.25
    w3 = rng.standard_normal((8, 8)).astype(np.float32) * 0.5
    b3 = rng.standard_normal(8).astype(np.float32) * 0.1
    inits = [numpy_helper.from_array(a, name) for a, name in
             ((w1, "W1"), (b1, "b1"), (w2, "W2"), (w3, "W3"), (b3, "b3"))]
    nodes = [
        helper.make_node("Gemm", ["x", "W1", "b1"], ["a"], name="fc1"),
        helper.make_node("Relu", ["a"], ["h"], name="relu1"),
        helper.make_node("MatMul", ["h", "W2"], ["m"], name="fc2"),
        helper.make_node("Sigmoid", ["m"], ["gate"], name="gate"),
        helper.make_node("MatMul", ["gate", "W3"], ["t"], name="fc3"),
        helper.make_node("Add", ["t", "b3"], ["u"], name="bias3"),
        helper.make_node("Relu", ["u"], ["y"], name="relu3"),
    ]
    graph = helper.make_graph(
        nodes, "mlp_split",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 8]),
         helper.make_tensor_value_info("gate", TensorProto.FLOAT, ["N", 8])],
        inits)
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                           producer_name="kiln-tests"), "mlp_split.onnx")
    if_outer()
    shared_input()
    mlp_device()


if __name__ == "__main__":
    main()
