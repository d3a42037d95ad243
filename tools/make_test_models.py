#!/usr/bin/python3
"""Writes the small hand-built ONNX models the unit tests use into
tests/data/models/. Run with Debian's python3 (python3-onnx):
    /usr/bin/python3 tools/make_test_models.py
The files are committed; rerun only to change them."""
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "models")


def model(nodes, inputs, outputs, inits=(), opset=17, name="g"):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="kiln-tests")
    m.ir_version = 8
    return m


def write(name, m):
    save(m, os.path.join(OUT, name))


def main():
    os.makedirs(OUT, exist_ok=True)
    f = TensorProto.FLOAT
    # Z = Relu(X + Y), static shapes.
    write("add_relu.onnx", model(
        [helper.make_node("Add", ["X", "Y"], ["S"], name="add"),
         helper.make_node("Relu", ["S"], ["Z"], name="relu")],
        [helper.make_tensor_value_info("X", f, [2, 3]),
         helper.make_tensor_value_info("Y", f, [2, 3])],
        [helper.make_tensor_value_info("Z", f, [2, 3])]))
    # Y = Relu(X @ W + b) with a dynamic batch dim.
    rng = np.random.default_rng(7)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal((3,)).astype(np.float32)
    write("dynamic_mlp.onnx", model(
        [helper.make_node("MatMul", ["X", "W"], ["H"], name="matmul"),
         helper.make_node("Add", ["H", "B"], ["P"], name="bias"),
         helper.make_node("Relu", ["P"], ["Y"], name="relu")],
        [helper.make_tensor_value_info("X", f, ["batch", 4])],
        [helper.make_tensor_value_info("Y", f, ["batch", 3])],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B")]))
    # A chain that exercises in-place reuse and aliasing in the planner.
    shape = numpy_helper.from_array(np.array([1, 1024], dtype=np.int64), "shape")
    write("chain.onnx", model(
        [helper.make_node("Relu", ["X"], ["A"], name="relu"),
         helper.make_node("Sigmoid", ["A"], ["B"], name="sigmoid"),
         helper.make_node("Reshape", ["B", "shape"], ["C"], name="reshape"),
         helper.make_node("Tanh", ["C"], ["D"], name="tanh"),
         helper.make_node("Add", ["D", "C"], ["Y"], name="add")],
        [helper.make_tensor_value_info("X", f, [1, 16, 8, 8])],
        [helper.make_tensor_value_info("Y", f, [1, 1024])], [shape]))
    # The output shape depends on an input's value: runs eagerly.
    write("reshape_by_input.onnx", model(
        [helper.make_node("Reshape", ["X", "S"], ["R"], name="reshape"),
         helper.make_node("Relu", ["R"], ["Y"], name="relu")],
        [helper.make_tensor_value_info("X", f, [6]),
         helper.make_tensor_value_info("S", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("Y", f, None)]))
    # An op no runtime knows, to check the load-time error.
    write("unsupported_op.onnx", model(
        [helper.make_node("Relu", ["X"], ["A"], name="relu"),
         helper.make_node("FrobnicateTensor", ["A"], ["Y"], name="frob")],
        [helper.make_tensor_value_info("X", f, [2])],
        [helper.make_tensor_value_info("Y", f, [2])]))
    # One float input cast to a double and an int32 output, for the bindings'
    # typed output getters.
    write("cast_outputs.onnx", model(
        [helper.make_node("Cast", ["X"], ["D"], name="to_double", to=TensorProto.DOUBLE),
         helper.make_node("Cast", ["X"], ["I"], name="to_int32", to=TensorProto.INT32)],
        [helper.make_tensor_value_info("X", f, [2, 3])],
        [helper.make_tensor_value_info("D", TensorProto.DOUBLE, [2, 3]),
         helper.make_tensor_value_info("I", TensorProto.INT32, [2, 3])]))


if __name__ == "__main__":
    main()
