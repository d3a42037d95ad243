#!/usr/bin/python3
"""Writes the small models and value files tests/test_sequences.c uses into
tests/data/models/seq_*: models that build, take apart and pass through
sequence and optional values, and SequenceProto / OptionalProto files.
Run with Debian's python3 (python3-onnx):
    /usr/bin/python3 tools/make_sequence_models.py
The files are committed; rerun only to change them. Every model passes
onnx.checker, except that some leave a tensor's shape open on purpose."""
import os

import numpy as np
from onnx import TensorProto, checker, helper, numpy_helper, save

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "models")
F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def model(nodes, inputs, outputs, inits=(), opset=17, name="g"):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="kiln-tests")
    m.ir_version = 8
    try:
        checker.check_model(m)
    except checker.ValidationError as e:
        # onnx 1.12's checker wants a shape on every top-level tensor type;
        # these models leave some open on purpose (rank depends on data).
        if "Field 'shape' of 'type' is required" not in str(e):
            raise
    return m


def write(name, m):
    save(m, os.path.join(OUT, name))


def write_value(name, proto):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(proto.SerializeToString())


def tensor(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def seq(name, dtype=F, shape=None):
    return helper.make_tensor_sequence_value_info(name, dtype, shape)


def opt_tensor(name, dtype=F, shape=None):
    return helper.make_value_info(
        name, helper.make_optional_type_proto(helper.make_tensor_type_proto(dtype, shape)))


def opt_seq(name, dtype=F):
    return helper.make_value_info(name, helper.make_optional_type_proto(
        helper.make_sequence_type_proto(helper.make_tensor_type_proto(dtype, None))))


def unnamed_seq(tensors):
    # Nested values carry no name (make_sequence would write an empty one).
    s = helper.make_sequence("", 1, tensors)
    s.ClearField("name")
    return s


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, name=outs[0] + "_node", **attrs)


def main():
    os.makedirs(OUT, exist_ok=True)

    # S = [A, B]; Y = S[pos]; N = len(S). Shapes of A and B differ.
    write("seq_construct_at.onnx", model(
        [node("SequenceConstruct", ["A", "B"], ["S"]),
         node("SequenceAt", ["S", "pos"], ["Y"]),
         node("SequenceLength", ["S"], ["N"])],
        [tensor("A", F, [2, 3]), tensor("B", F, [2]), tensor("pos", I64, [])],
        [seq("S"), tensor("Y", F, None), tensor("N", I64, [])]))

    # S1 = insert X into SEQ at pos_ins; S2 = erase pos_erase of S1.
    write("seq_insert_erase.onnx", model(
        [node("SequenceInsert", ["SEQ", "X", "pos_ins"], ["S1"]),
         node("SequenceErase", ["S1", "pos_erase"], ["S2"]),
         node("SequenceLength", ["S2"], ["N"])],
        [seq("SEQ"), tensor("X", F, None), tensor("pos_ins", I64, []),
         tensor("pos_erase", I64, [])],
        [seq("S1"), seq("S2"), tensor("N", I64, [])]))

    # Insert and erase at the default positions (the end); an empty start.
    write("seq_empty_insert.onnx", model(
        [node("SequenceEmpty", [], ["E"], dtype=F),
         node("SequenceInsert", ["E", "X"], ["S1"]),
         node("SequenceInsert", ["S1", "X"], ["S2"]),
         node("SequenceErase", ["S2"], ["S3"]),
         node("SequenceLength", ["E"], ["N0"])],
        [tensor("X", F, [2])],
        [seq("E"), seq("S2"), seq("S3"), tensor("N0", I64, [])]))

    # X [2, 6] split along axis 1 into [1, 2, 3] and joined again; rows of X
    # split without keeping the axis and stacked back along a new axis 0.
    write("seq_split_concat.onnx", model(
        [node("SplitToSequence", ["X", "split"], ["S"], axis=1),
         node("ConcatFromSequence", ["S"], ["Y"], axis=1),
         node("SplitToSequence", ["X"], ["R"], axis=0, keepdims=0),
         node("ConcatFromSequence", ["R"], ["Z"], axis=0, new_axis=1),
         node("SequenceLength", ["S"], ["N"])],
        [tensor("X", F, [2, 6]), tensor("split", I64, [3])],
        [seq("S"), tensor("Y", F, [2, 6]), seq("R"), tensor("Z", F, [2, 6]),
         tensor("N", I64, [])]))

    # X [5] in equal chunks of 2 (the last one shorter).
    write("seq_split_scalar.onnx", model(
        [node("SplitToSequence", ["X", "split"], ["S"])],
        [tensor("X", I64, [5]), tensor("split", I64, [])],
        [seq("S", I64)]))

    # Passing sequences and optionals through: planned (no eager run).
    write("seq_identity.onnx", model(
        [node("Identity", ["S"], ["T"]), node("Identity", ["O"], ["P"])],
        [seq("S"), opt_tensor("O")],
        [seq("T"), opt_tensor("P")]))

    # Optional with and without a value, and what the optional ops say.
    write("seq_optional.onnx", model(
        [node("Optional", ["X"], ["SOME"]),
         helper.make_node("Optional", [], ["NONE"], name="none_node",
                          type=helper.make_tensor_type_proto(F, None)),
         node("OptionalHasElement", ["SOME"], ["H1"]),
         node("OptionalHasElement", ["NONE"], ["H2"]),
         node("OptionalGetElement", ["SOME"], ["G"])],
        [tensor("X", F, [3])],
        [opt_tensor("SOME"), opt_tensor("NONE"), tensor("H1", B, []), tensor("H2", B, []),
         tensor("G", F, [3])]))

    # An optional input: does it hold a value, and which.
    write("seq_optional_input.onnx", model(
        [node("OptionalHasElement", ["O"], ["H"]),
         node("OptionalGetElement", ["O"], ["G"])],
        [opt_tensor("O")],
        [tensor("H", B, []), tensor("G", F, None)]))

    # An optional sequence input.
    write("seq_optional_seq_input.onnx", model(
        [node("OptionalGetElement", ["O"], ["S"]),
         node("SequenceLength", ["S"], ["N"])],
        [opt_seq("O")],
        [seq("S"), tensor("N", I64, [])]))

    # Y[i] = S[i] + T for every element of S.
    body = helper.make_graph(
        [helper.make_node("Add", ["x", "t"], ["y"], name="add")], "body",
        [tensor("x", F, None), tensor("t", F, None)], [tensor("y", F, None)])
    write("seq_map.onnx", model(
        [node("SequenceMap", ["S", "T"], ["Y"], body=body)],
        [seq("S"), tensor("T", F, None)],
        [seq("Y")]))

    # A Loop whose body carries a sequence (fine) and emits one as a scan
    # output (refused: scan outputs are tensors).
    loop_body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"], name="cond"),
         helper.make_node("SequenceInsert", ["s_in", "X"], ["s_out"], name="insert"),
         helper.make_node("SequenceConstruct", ["X"], ["scan"], name="scan")],
        "loop_body",
        [tensor("i", I64, []), tensor("c_in", B, []), seq("s_in")],
        [tensor("c_out", B, []), seq("s_out"), seq("scan")])
    write("seq_loop_scan.onnx", model(
        [node("SequenceEmpty", [], ["E"], dtype=F),
         node("Loop", ["M", "", "E"], ["S", "SCAN"], body=loop_body)],
        [tensor("X", F, [2]), tensor("M", I64, [])],
        [seq("S"), seq("SCAN")]))

    # Value files: a sequence of two float tensors of different shapes, an
    # empty sequence, an optional holding a tensor, an empty optional, an
    # optional holding a sequence, and a sequence of sequences.
    a = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3))
    b = numpy_helper.from_array(np.array([10, 20], dtype=np.float32))
    write_value("seq_two.pb", helper.make_sequence("two", 1, [a, b]))
    write_value("seq_empty.pb", helper.make_sequence("empty", 1, []))
    write_value("seq_opt_tensor.pb", helper.make_optional("some", 1, b))
    write_value("seq_opt_none.pb", helper.make_optional("none", 0, None))
    write_value("seq_opt_seq.pb", helper.make_optional("some_seq", 3, unnamed_seq([a, b])))
    write_value("seq_nested.pb", helper.make_sequence("nested", 3, [
        unnamed_seq([a]), unnamed_seq([b, b])]))


if __name__ == "__main__":
    main()
