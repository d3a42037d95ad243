#!/usr/bin/python3
"""Writes tests/data/models/bf16_mlp.onnx, the model tests/test_precision.c
runs in float32 and in bfloat16 (KILN_OPT_PRECISION): X [64, 128] -> MatMul
[128, 128] -> Add -> Relu -> MatMul [128, 64], products big enough for
oneDNN to serve them. Seeded weights; the file is committed, rerun only to
change it:
    /usr/bin/python3 tools/make_precision_model.py
"""
import os

import numpy as np
from onnx import TensorProto, checker, helper, numpy_helper, save

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "models", "bf16_mlp.onnx")


def main():
    rng = np.random.default_rng(7)
    w1 = (rng.standard_normal((128, 128)) / np.sqrt(128)).astype(np.float32)
    b1 = (rng.standard_normal(128) * 0.1).astype(np.float32)
    w2 = (rng.standard_normal((128, 64)) / np.sqrt(128)).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["X", "W1"], ["h"], name="fc1"),
             helper.make_node("Add", ["h", "B1"], ["hb"], name="bias1"),
             helper.make_node("Relu", ["hb"], ["a"], name="relu1"),
             helper.make_node("MatMul", ["a", "W2"], ["Y"], name="fc2")]
    graph = helper.make_graph(
        nodes, "bf16_mlp",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [64, 128])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [64, 64])],
        [numpy_helper.from_array(w1, "W1"), numpy_helper.from_array(b1, "B1"),
         numpy_helper.from_array(w2, "W2")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="kiln-precision-test")
    model.ir_version = 8
    checker.check_model(model)
    save(model, OUT)
    print("wrote", os.path.normpath(OUT))


if __name__ == "__main__":
    main()
