#!/usr/bin/python3
"""Writes tests/data/reader/external/: a model whose initializers live in an
external data file, written by the onnx package itself (Debian's
python3-onnx), so the reader is checked against the real writer's format
rather than only against our own test writer.

Run from the repository root:  /usr/bin/python3 tools/make_reader_fixtures.py
The output is committed; rerun only to change the fixture."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.external_data_helper import convert_model_to_external_data

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "reader", "external")


def main():
    os.makedirs(OUT, exist_ok=True)
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5, "W")
    b = numpy_helper.from_array(np.array([1, -2, 3], dtype=np.float32), "B")
    graph = helper.make_graph(
        [helper.make_node("Add", ["X", "W"], ["T"], name="add"),
         helper.make_node("Add", ["T", "B"], ["Y"], name="bias")],
        "external_data",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 3])],
        initializer=[w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="make_reader_fixtures")
    # Both tensors in one file, so the second one sits at a non-zero offset.
    convert_model_to_external_data(model, all_tensors_to_one_file=True,
                                   location="weights.bin", size_threshold=0)
    onnx.save_model(model, os.path.join(OUT, "model.onnx"))
    onnx.checker.check_model(os.path.join(OUT, "model.onnx"))


if __name__ == "__main__":
    main()
