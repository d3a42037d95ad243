#!/usr/bin/python3
"""Writes the small ONNX models the NHWC layout pass's tests
(tests/test_layout_nhwc.c) use into tests/data/models/layout_*.onnx: conv
stacks with pools, elementwise ops, constants to permute, Concat, residuals,
an output read from the middle of an NHWC region, and ops that stop the
region. Static shapes, random weights. Run with Debian's python3:
    /usr/bin/python3 tools/make_layout_models.py
The files are committed; rerun only to change them."""
import os

import numpy as np
from onnx import TensorProto, checker, helper, numpy_helper, save

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "models")
F = TensorProto.FLOAT
RNG = np.random.default_rng(7)


def init(name, shape, scale=0.3):
    return numpy_helper.from_array((RNG.standard_normal(shape) * scale).astype(np.float32), name)


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, **attrs)


def write(name, nodes, inits, inputs, outputs):
    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], producer_name="kiln-tests")
    checker.check_model(m)
    save(m, os.path.join(OUT, name + ".onnx"))


def stack():
    """Conv stack: every layout-agnostic kind the pass moves through."""
    n = [
        node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        node("Relu", ["c1"], ["r1"]),
        node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        node("Conv", ["p1", "w2"], ["c2"], pads=[1, 0, 3, 2], group=2, dilations=[2, 1]),
        node("Conv", ["p1", "w3", "b3"], ["c3"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
             group=8),
        node("Add", ["c2", "c3"], ["res"]),
        node("Concat", ["res", "p1"], ["cat"], axis=1),
        node("Mul", ["cat", "scale"], ["scaled"]),
        node("Add", ["scaled", "half"], ["shifted"]),
        node("Sigmoid", ["shifted"], ["sig"]),
        node("Clip", ["sig", "lo", "hi"], ["clipped"]),
        node("AveragePool", ["clipped"], ["ap"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
             count_include_pad=1, ceil_mode=0),
        node("Conv", ["ap", "w4", "b4"], ["c4"], strides=[2, 2]),
        node("MaxPool", ["c4"], ["p2"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
        node("GlobalAveragePool", ["p2"], ["gap"]),
        node("Flatten", ["gap"], ["flat"]),
        node("Gemm", ["flat", "wf", "bf"], ["y"], transB=1),
    ]
    inits = [init("w1", [8, 3, 3, 3]), init("b1", [8]), init("w2", [8, 4, 3, 3]),
             init("w3", [8, 1, 3, 3]), init("b3", [8]),
             init("scale", [16, 1, 1]), numpy_helper.from_array(np.float32(0.5), "half"),
             numpy_helper.from_array(np.float32(0.1), "lo"),
             numpy_helper.from_array(np.float32(0.9), "hi"),
             init("w4", [12, 16, 1, 1]), init("b4", [12]), init("wf", [5, 12]), init("bf", [5])]
    write("layout_stack", n, inits, [helper.make_tensor_value_info("x", F, [2, 3, 64, 64])],
          [helper.make_tensor_value_info("y", F, [2, 5]),
           helper.make_tensor_value_info("sig", F, [2, 16, 32, 32])])


def stops():
    """NHWC stops at a Reshape (layout-dependent) and at a non-constant
    operand that has no NHWC form; both read the NCHW value back."""
    n = [
        node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
        node("Add", ["c1", "x2"], ["sum"]),
        node("Reshape", ["c1", "shape"], ["flat"]),
        node("Conv", ["sum", "w2"], ["y"]),
    ]
    inits = [init("w1", [4, 2, 3, 3]), init("w2", [4, 4, 1, 1]),
             numpy_helper.from_array(np.array([1, -1], dtype=np.int64), "shape")]
    write("layout_stops", n, inits,
          [helper.make_tensor_value_info("x", F, [2, 2, 6, 7]),
           helper.make_tensor_value_info("x2", F, [2, 4, 6, 7])],
          [helper.make_tensor_value_info("y", F, [2, 4, 6, 7]),
           helper.make_tensor_value_info("flat", F, [1, 336])])


def keras():
    """An NHWC graph as tf2onnx writes a Keras model: every Conv between a
    Transpose to NCHW and one back, the activation and the residual Add in
    NHWC. The pass reads the model's transposes as the borders they are; the
    first Conv's NCHW output is also a graph output, so that one comes back."""
    n = [
        node("Transpose", ["x"], ["x_nchw"], perm=[0, 3, 1, 2]),
        node("Conv", ["x_nchw", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        node("Transpose", ["c1"], ["c1_nhwc"], perm=[0, 2, 3, 1]),
        node("Clip", ["c1_nhwc", "lo", "hi"], ["a1"]),
        node("Transpose", ["a1"], ["a1_nchw"], perm=[0, 3, 1, 2]),
        node("Conv", ["a1_nchw", "w2"], ["c2"]),
        node("Transpose", ["c2"], ["c2_nhwc"], perm=[0, 2, 3, 1]),
        node("Add", ["c2_nhwc", "a1"], ["y"]),
    ]
    inits = [init("w1", [8, 3, 3, 3]), init("b1", [8]), init("w2", [8, 8, 1, 1]),
             numpy_helper.from_array(np.float32(0.0), "lo"),
             numpy_helper.from_array(np.float32(6.0), "hi")]
    write("layout_keras", n, inits, [helper.make_tensor_value_info("x", F, [1, 16, 16, 3])],
          [helper.make_tensor_value_info("y", F, [1, 16, 16, 8]),
           helper.make_tensor_value_info("c1", F, [1, 8, 16, 16])])


def dense():
    """DenseNet's pattern: Concat, then a BatchNormalization no Conv can
    absorb, ReLU, Conv. The BN becomes Mul and Add in NHWC."""
    n = [
        node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
        node("Concat", ["c1", "c1b"], ["cat"], axis=1),
        node("BatchNormalization", ["cat", "s", "b", "m", "v"], ["bn"], epsilon=1e-5),
        node("Relu", ["bn"], ["r"]),
        node("Conv", ["r", "w2"], ["y"]),
    ]
    n.insert(1, node("Conv", ["x", "w1b"], ["c1b"]))
    inits = [init("w1", [4, 3, 3, 3]), init("w1b", [4, 3, 1, 1]), init("w2", [6, 8, 1, 1]),
             init("s", [8]), init("b", [8]), init("m", [8]),
             numpy_helper.from_array((np.abs(RNG.standard_normal(8)) + 0.5).astype(np.float32),
                                     "v")]
    write("layout_dense", n, inits, [helper.make_tensor_value_info("x", F, [1, 3, 12, 12])],
          [helper.make_tensor_value_info("y", F, [1, 6, 12, 12])])


if __name__ == "__main__":
    stack()
    stops()
    keras()
    dense()
