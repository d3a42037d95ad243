#!/usr/bin/python3
"""Writes the small models tests/test_strings.c uses into
tests/data/models/str_*.onnx: string inputs and outputs through the
public API. Run with Debian's python3 (python3-onnx):
    /usr/bin/python3 tools/make_string_models.py
The files are committed; rerun only to change them."""
import os

from onnx import TensorProto, checker, helper, save

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "models")
F, S = TensorProto.FLOAT, TensorProto.STRING


def main():
    # x: 3 strings (static shape: the session starts planned and turns eager
    # when StringNormalizer asks for values); f: floats to text and back.
    nodes = [
        helper.make_node("StringNormalizer", ["x"], ["y"], case_change_action="UPPER",
                         is_case_sensitive=0, stopwords=["skip"]),
        helper.make_node("Cast", ["f"], ["s"], to=S),
        helper.make_node("Cast", ["s"], ["r"], to=F),
    ]
    graph = helper.make_graph(
        nodes, "strings",
        [helper.make_tensor_value_info("x", S, [3]), helper.make_tensor_value_info("f", F, [4])],
        [helper.make_tensor_value_info("y", S, ["n"]), helper.make_tensor_value_info("s", S, [4]),
         helper.make_tensor_value_info("r", F, [4])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="kiln-tests")
    m.ir_version = 8
    checker.check_model(m)
    save(m, os.path.join(OUT, "str_normalize_cast.onnx"))

    # Strings created inside an If branch must outlive the branch's run.
    B = TensorProto.BOOL
    then_g = helper.make_graph([helper.make_node("Cast", ["f"], ["t"], to=S)], "then", [],
                               [helper.make_tensor_value_info("t", S, [4])])
    else_g = helper.make_graph(
        [helper.make_node("Cast", ["f"], ["e0"], to=S),
         helper.make_node("StringNormalizer", ["e0"], ["e"], case_change_action="UPPER")],
        "else", [], [helper.make_tensor_value_info("e", S, [4])])
    graph = helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)], "if_strings",
        [helper.make_tensor_value_info("c", B, []), helper.make_tensor_value_info("f", F, [4])],
        [helper.make_tensor_value_info("y", S, [4])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="kiln-tests")
    m.ir_version = 8
    checker.check_model(m)
    save(m, os.path.join(OUT, "str_if_branch.onnx"))


if __name__ == "__main__":
    main()
