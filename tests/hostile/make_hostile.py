#!/usr/bin/python3
"""Writes the hostile-model corpus: well-formed protobuf, semantically
hostile models aimed at the whole load-and-run path (the reader's own corpus,
tests/test_reader_corpus.c, covers wire-level damage). Each model must end
in a clean error whose status is on its manifest line (tests/hostile/
hostile_runner.c checks that, plus no crash, hang or OOM).

    /usr/bin/python3 tests/hostile/make_hostile.py OUT_DIR

Writes OUT_DIR/*.onnx, the files and links some of them point at, and
OUT_DIR/manifest.txt ("FILE CODES DESCRIPTION"). Generated each run, never
committed. Needs Debian's python3-onnx."""
import os
import shutil
import sys

from onnx import AttributeProto, TensorProto, helper

F, I64, I32, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32, TensorProto.BOOL
BIG = 1 << 40

# Acceptable outcomes, by kind of hostility.
STRUCT = "INVALID_MODEL"
ATTR = "INVALID_MODEL,UNSUPPORTED,SHAPE,DTYPE"
HUGE = "OUT_OF_MEMORY,LIMIT,SHAPE,INVALID_MODEL"
ESCAPE = "INVALID_MODEL"
EXT_IO = "IO,INVALID_MODEL"
UNSUP = "UNSUPPORTED,INVALID_MODEL"

out_dir = None
manifest = []


def vi(name, elem=F, shape=(2,)):
    return helper.make_tensor_value_info(name, elem, shape)


def const_i64(name, values, dims=None):
    return helper.make_tensor(name, I64, [len(values)] if dims is None else dims, values)


def raw_tensor(name, elem, dims, raw=b""):
    """A TensorProto as written, even when dims and data disagree."""
    t = TensorProto()
    t.name = name
    t.data_type = elem
    t.dims.extend(dims)
    t.raw_data = raw
    return t


def const_f(name, dims, values):
    return helper.make_tensor(name, F, dims, values)


def model(nodes, inputs, outputs, inits=(), opset=17, functions=None, ir=8):
    g = helper.make_graph(nodes, "hostile", inputs, outputs, list(inits))
    kw = {"opset_imports": [helper.make_opsetid("", opset)], "producer_name": "kiln-hostile"}
    m = helper.make_model(g, **kw)
    m.ir_version = ir
    if functions:
        m.functions.extend(functions)
    return m


def add(name, m, codes, desc):
    """Writes m (a ModelProto or raw bytes) as name.onnx with its expectation."""
    path = os.path.join(out_dir, name + ".onnx")
    data = m if isinstance(m, (bytes, bytearray)) else m.SerializeToString()
    with open(path, "wb") as f:
        f.write(data)
    manifest.append("%s.onnx %s %s" % (name, codes, desc))


def unary(op, x_shape=(2,), **attrs):
    return model([helper.make_node(op, ["X"], ["Y"], name="n", **attrs)], [vi("X", F, x_shape)],
                 [vi("Y", F, None)])


# ---------------------------------------------------------------- structure

def structure():
    add("cycle_two_nodes", model(
        [helper.make_node("Relu", ["B"], ["A"], name="a"), helper.make_node("Neg", ["A"], ["B"], name="b"),
         helper.make_node("Add", ["X", "A"], ["Y"], name="c")], [vi("X")], [vi("Y")]),
        STRUCT, "A and B feed each other")
    add("self_loop", model([helper.make_node("Add", ["X", "Y"], ["Y"], name="self")], [vi("X")], [vi("Y")]),
        STRUCT, "a node reads its own output")
    nodes = [helper.make_node("Relu", ["c%d" % ((i + 1) % 500)], ["c%d" % i], name="n%d" % i)
             for i in range(500)]
    nodes.append(helper.make_node("Add", ["X", "c0"], ["Y"], name="out"))
    add("cycle_500_nodes", model(nodes, [vi("X")], [vi("Y")]), STRUCT, "a 500-node ring")
    add("dangling_input", model([helper.make_node("Add", ["X", "nowhere"], ["Y"], name="add")],
                                [vi("X")], [vi("Y")]), STRUCT, "input name produced by nothing")
    add("output_not_produced", model([helper.make_node("Relu", ["X"], ["R"], name="r")], [vi("X")],
                                     [vi("Y")]), STRUCT, "graph output nobody writes")
    add("duplicate_producer", model(
        [helper.make_node("Relu", ["X"], ["Y"], name="a"), helper.make_node("Neg", ["X"], ["Y"], name="b")],
        [vi("X")], [vi("Y")]), STRUCT, "two nodes write Y")
    add("output_overwrites_input", model([helper.make_node("Relu", ["X"], ["X"], name="r")], [vi("X")],
                                         [vi("X")]), STRUCT, "a node writes a graph input")
    add("output_overwrites_initializer", model(
        [helper.make_node("Relu", ["X"], ["W"], name="r"), helper.make_node("Add", ["X", "W"], ["Y"], name="a")],
        [vi("X")], [vi("Y")], [const_f("W", [2], [1, 2])]), STRUCT, "a node writes an initializer")
    add("duplicate_graph_input", model([helper.make_node("Relu", ["X"], ["Y"], name="r")],
                                       [vi("X"), vi("X")], [vi("Y")]), STRUCT, "X declared twice")
    m = model([helper.make_node("Relu", ["X"], ["Y"], name="r")], [vi("X")], [vi("Y")])
    del m.opset_import[:]
    add("no_default_opset", m, UNSUP, "no opset import for ai.onnx")
    add("opset_huge", model([helper.make_node("Relu", ["X"], ["Y"], name="r")], [vi("X")], [vi("Y")],
                            opset=1 << 40), UNSUP, "opset 2^40")
    add("opset_negative", model([helper.make_node("Relu", ["X"], ["Y"], name="r")], [vi("X")], [vi("Y")],
                                opset=-5), UNSUP, "opset -5")
    m = model([helper.make_node("Evil", ["X"], ["Y"], name="e", domain="com.evil")], [vi("X")], [vi("Y")])
    m.opset_import.append(helper.make_opsetid("com.evil", 1))
    add("unknown_domain_op", m, "UNSUPPORTED", "op from an unknown domain")
    add("unknown_op", model([helper.make_node("NotAnOp", ["X"], ["Y"], name="x")], [vi("X")], [vi("Y")]),
        "UNSUPPORTED", "op no runtime knows")
    add("input_rank_100", model([helper.make_node("Relu", ["X"], ["Y"], name="r")],
                                [vi("X", F, [1] * 100)], [vi("Y", F, None)]),
        "INVALID_MODEL,UNSUPPORTED,SHAPE", "rank 100 input")
    add("input_string_dtype", model([helper.make_node("Identity", ["X"], ["Y"], name="i")],
                                    [vi("X", TensorProto.STRING, [2])], [vi("Y", TensorProto.STRING, [2])]),
        "UNSUPPORTED,DTYPE", "string input")
    add("input_dtype_999", model([helper.make_node("Relu", ["X"], ["Y"], name="r")], [vi("X", 999, [2])],
                                 [vi("Y")]), "INVALID_MODEL,UNSUPPORTED,DTYPE", "element type 999")
    add("input_dim_huge", model([helper.make_node("Relu", ["X"], ["Y"], name="r")],
                                [vi("X", F, [BIG, BIG])], [vi("Y", F, None)]),
        HUGE, "declared input 2^40 x 2^40")
    add("input_dim_int64_max", model([helper.make_node("Relu", ["X"], ["Y"], name="r")],
                                     [vi("X", F, [(1 << 63) - 1])], [vi("Y", F, None)]),
        HUGE, "declared input dim INT64_MAX")
    add("initializer_dims_without_data", model(
        [helper.make_node("Add", ["X", "W"], ["Y"], name="a")], [vi("X")], [vi("Y")],
        [raw_tensor("W", F, [BIG])]), STRUCT, "initializer dims 2^40, no data")
    w = helper.make_tensor("W", F, [2], [1, 2])
    w.dims[:] = [BIG, BIG]
    add("initializer_dims_overflow", model(
        [helper.make_node("Add", ["X", "W"], ["Y"], name="a")], [vi("X")], [vi("Y")], [w]),
        STRUCT, "initializer dims 2^40 x 2^40 with 2 floats")
    add("wrong_dtype_add", model([helper.make_node("Add", ["X", "N"], ["Y"], name="a")],
                                 [vi("X"), vi("N", I64, [2])], [vi("Y")]),
        "DTYPE,INVALID_MODEL,UNSUPPORTED", "float + int64")
    add("matmul_inner_mismatch", model([helper.make_node("MatMul", ["X", "W"], ["Y"], name="mm")],
                                       [vi("X", F, [2, 3])], [vi("Y", F, None)],
                                       [const_f("W", [4, 2], [0] * 8)]), "SHAPE", "2x3 @ 4x2")
    add("broadcast_mismatch", model([helper.make_node("Add", ["X", "W"], ["Y"], name="a")],
                                    [vi("X", F, [2, 3])], [vi("Y", F, None)],
                                    [const_f("W", [4], [0] * 4)]), "SHAPE", "2x3 + 4")
    nodes = [helper.make_node("Relu", ["X" if i == 0 else "h%d" % (i - 1)], ["h%d" % i], name="r%d" % i)
             for i in range(20000)]
    nodes.append(helper.make_node("Identity", ["h19999"], ["Y"], name="last"))
    add("chain_20000_nodes", model(nodes, [vi("X")], [vi("Y")]), "OK,LIMIT",
        "a long but valid chain (time bound only)")
    add("many_inputs_5000", model(
        [helper.make_node("Sum", ["x%d" % i for i in range(5000)], ["Y"], name="sum")],
        [vi("x%d" % i) for i in range(5000)], [vi("Y")]), "OK,LIMIT", "5000 graph inputs (valid)")
    add("long_names", model([helper.make_node("Relu", ["X" * 100000], ["Y"], name="n" * 100000)],
                            [vi("X" * 100000)], [vi("Y")]), "OK", "100 kB names (valid)")


# ---------------------------------------------------------------- subgraphs

def branch(name, nodes, outputs, inputs=()):
    return helper.make_graph(nodes, name, list(inputs), outputs)


def subgraphs():
    then_g = branch("then", [helper.make_node("Identity", ["Y"], ["t"], name="t")], [vi("t", F, None)])
    else_g = branch("else", [helper.make_node("Identity", ["X"], ["e"], name="e")], [vi("e", F, None)])
    add("if_reads_own_output", model(
        [helper.make_node("If", ["C"], ["Y"], name="if", then_branch=then_g, else_branch=else_g)],
        [vi("C", B, []), vi("X")], [vi("Y", F, None)]), STRUCT + ",UNSUPPORTED",
        "then-branch reads the If's own output")
    leaf = branch("leaf", [helper.make_node("Identity", ["X"], ["t"], name="t")], [vi("t", F, None)])
    body = leaf
    for depth in range(200):  # else is a leaf: the file grows linearly
        node = helper.make_node("If", ["C"], ["t"], name="if%d" % depth, then_branch=body, else_branch=leaf)
        body = branch("b%d" % depth, [node], [vi("t", F, None)])
    add("if_nested_200", model(list(body.node), [vi("C", B, []), vi("X")], [vi("t", F, None)]),
        STRUCT + ",UNSUPPORTED,LIMIT", "200 nested If subgraphs")
    add("if_branch_is_ints", model(
        [helper.make_node("If", ["C"], ["Y"], name="if", then_branch=[1, 2], else_branch=[3])],
        [vi("C", B, []), vi("X")], [vi("Y", F, None)]), ATTR, "then_branch is an ints attribute")
    add("if_missing_branch", model(
        [helper.make_node("If", ["C"], ["Y"], name="if", then_branch=else_g)],
        [vi("C", B, []), vi("X")], [vi("Y", F, None)]), ATTR, "If without else_branch")
    ghost = branch("g", [helper.make_node("Identity", ["ghost"], ["t"], name="t")], [vi("t", F, None)])
    add("if_reads_undefined_outer", model(
        [helper.make_node("If", ["C"], ["Y"], name="if", then_branch=ghost, else_branch=ghost)],
        [vi("C", B, []), vi("X")], [vi("Y", F, None)]), STRUCT + ",UNSUPPORTED",
        "subgraph reads a name defined nowhere")
    bad_body = branch("loop", [helper.make_node("Identity", ["X"], ["o"], name="o")], [vi("o", F, None)])
    add("loop_body_signature", model(
        [helper.make_node("Loop", ["M", "", "X"], ["Y"], name="loop", body=bad_body)],
        [vi("X")], [vi("Y", F, None)], [const_i64("M", [3], [])]),
        ATTR, "Loop body without iteration/condition inputs")
    # A model-local function that calls itself: recursion by name.
    fn = helper.make_function("local", "Rec", ["x"], ["y"],
                              [helper.make_node("Rec", ["x"], ["y"], domain="local")],
                              [helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])
    m = model([helper.make_node("Rec", ["X"], ["Y"], name="rec", domain="local")], [vi("X")], [vi("Y")],
              functions=[fn])
    m.opset_import.append(helper.make_opsetid("local", 1))
    add("function_recursion", m, UNSUP, "a model-local function calling itself")


# ---------------------------------------------------------------- external data

def ext_tensor(name, location, offset=None, length=None, dims=(2,)):
    t = TensorProto()
    t.name = name
    t.data_type = F
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", offset), ("length", length)):
        if value is not None:
            e = t.external_data.add()
            e.key = key
            e.value = value
    return t


def ext_model(location, offset=None, length=None, dims=(2,)):
    return model([helper.make_node("Add", ["X", "W"], ["Y"], name="add")], [vi("X")], [vi("Y")],
                 [ext_tensor("W", location, offset, length, dims)])


def external():
    ext = os.path.join(out_dir, "ext")
    os.makedirs(os.path.join(ext, "sub"))
    with open(os.path.join(ext, "w.bin"), "wb") as f:
        f.write(b"\0" * 8)
    outside = os.path.join(out_dir, "outside.bin")
    with open(outside, "wb") as f:
        f.write(b"\0" * 8)
    os.symlink(outside, os.path.join(ext, "escape.bin"))           # file link out
    os.symlink(out_dir, os.path.join(ext, "updir"))                # folder link out
    os.symlink("/etc/hostname", os.path.join(ext, "etc.bin"))      # system file
    os.symlink("/dev/zero", os.path.join(ext, "zero.bin"))         # endless device
    os.symlink("loop_a", os.path.join(ext, "loop_b"))              # link loop
    os.symlink("loop_b", os.path.join(ext, "loop_a"))
    os.mkfifo(os.path.join(ext, "fifo.bin"))                       # would block a reader
    cases = [
        ("ext_dotdot", ext_model("../outside.bin"), ESCAPE, "location ../outside.bin"),
        ("ext_dotdot_inner", ext_model("sub/../../outside.bin"), ESCAPE, "location sub/../../outside.bin"),
        ("ext_backslash_dotdot", ext_model("..\\outside.bin"), ESCAPE, "location ..\\outside.bin"),
        ("ext_absolute", ext_model(outside), ESCAPE, "absolute location"),
        ("ext_etc_passwd", ext_model("/etc/passwd"), ESCAPE, "location /etc/passwd"),
        ("ext_symlink_file", ext_model("escape.bin"), ESCAPE, "symlink to a file outside"),
        ("ext_symlink_dir", ext_model("updir/outside.bin"), ESCAPE, "path through a symlinked folder"),
        ("ext_symlink_etc", ext_model("etc.bin"), ESCAPE, "symlink to /etc/hostname"),
        ("ext_symlink_dev_zero", ext_model("zero.bin", "0", "8"), ESCAPE, "symlink to /dev/zero"),
        ("ext_symlink_loop", ext_model("loop_a"), EXT_IO, "symlink loop"),
        ("ext_fifo", ext_model("fifo.bin"), EXT_IO, "a FIFO (opening it would block)"),
        ("ext_directory", ext_model("sub"), EXT_IO, "location is a folder"),
        ("ext_missing", ext_model("missing.bin"), EXT_IO, "file does not exist"),
        ("ext_empty_location", ext_model(""), STRUCT, "empty location"),
        ("ext_no_location", ext_model(None, "0", "8"), STRUCT, "no location key"),
        ("ext_nul_in_location", ext_model("w.bin\0../../etc/passwd"), STRUCT, "NUL inside location"),
        ("ext_offset_past_end", ext_model("w.bin", "64", "8"), STRUCT, "offset past the end"),
        ("ext_length_past_end", ext_model("w.bin", "0", "4096"), STRUCT, "length past the end"),
        ("ext_length_huge", ext_model("w.bin", "0", "99999999999999999999"), STRUCT, "length 10^20"),
        ("ext_offset_negative", ext_model("w.bin", "-8", "8"), STRUCT, "offset -8"),
        ("ext_length_mismatch", ext_model("w.bin", "0", "4"), STRUCT, "4 bytes for 2 floats"),
        ("ext_dims_huge", ext_model("w.bin", "0", "8", dims=(BIG,)), STRUCT + ",LIMIT,OUT_OF_MEMORY",
         "2^40 floats from an 8-byte file"),
    ]
    for name, m, codes, desc in cases:
        path = os.path.join(ext, name + ".onnx")
        with open(path, "wb") as f:
            f.write(m.SerializeToString())
        manifest.append("ext/%s.onnx %s %s" % (name, codes, desc))


# ---------------------------------------------------------------- huge sizes

def huge():
    def cos(dims, name):
        shape = const_i64("S", dims)
        add(name, model([helper.make_node("ConstantOfShape", ["S"], ["C"], name="cos"),
                         helper.make_node("Add", ["X", "C"], ["Y"], name="a")],
                        [vi("X", F, [1])], [vi("Y", F, None)], [shape]), HUGE,
            "ConstantOfShape %s (folded at load)" % "x".join(str(d) for d in dims))
    cos([1 << 20, 1 << 20], "constantofshape_2p40")
    cos([1 << 31], "constantofshape_8gib")
    cos([1 << 62, 4], "constantofshape_overflow")
    cos([-1, 4], "constantofshape_negative")
    # The same at run time: the shape comes from a graph input's Shape.
    add("expand_huge_runtime", model(
        [helper.make_node("Expand", ["X", "S"], ["Y"], name="ex")], [vi("X", F, [1])], [vi("Y", F, None)],
        [const_i64("S", [1 << 20, 1 << 20])]), HUGE, "Expand a graph input to 2^20 x 2^20")
    add("expand_overflow", model(
        [helper.make_node("Expand", ["X", "S"], ["Y"], name="ex")], [vi("X", F, [1])], [vi("Y", F, None)],
        [const_i64("S", [1 << 40, 1 << 40, 1 << 40])]), HUGE, "Expand to 2^120 elements")
    add("reshape_huge", model(
        [helper.make_node("Reshape", ["X", "S"], ["Y"], name="rs")], [vi("X", F, [2])], [vi("Y", F, None)],
        [const_i64("S", [BIG, BIG])]), "SHAPE,INVALID_MODEL", "Reshape 2 elements to 2^40 x 2^40")
    add("reshape_two_minus_one", model(
        [helper.make_node("Reshape", ["X", "S"], ["Y"], name="rs")], [vi("X", F, [2])], [vi("Y", F, None)],
        [const_i64("S", [-1, -1])]), "SHAPE,INVALID_MODEL", "Reshape with two -1")
    add("tile_huge", model(
        [helper.make_node("Tile", ["X", "R"], ["Y"], name="tile")], [vi("X", F, [2])], [vi("Y", F, None)],
        [const_i64("R", [BIG])]), HUGE, "Tile by 2^40")
    add("tile_empty_dim_overflow", model(
        [helper.make_node("Tile", ["X", "R"], ["Y"], name="tile")], [vi("X", F, [3, 0])],
        [vi("Y", F, None)], [const_i64("R", [BIG, BIG])]), "OK," + HUGE,
        "Tile an empty 3x0 tensor by 2^40 (0 elements, huge partial products)")
    add("range_huge", model(
        [helper.make_node("Range", ["A", "L", "D"], ["Y"], name="range")], [], [vi("Y", F, None)],
        [const_f("A", [], [0]), const_f("L", [], [1e15]), const_f("D", [], [1])]), HUGE,
        "Range 0..1e15")
    add("range_zero_delta", model(
        [helper.make_node("Range", ["A", "L", "D"], ["Y"], name="range")], [], [vi("Y", F, None)],
        [const_f("A", [], [0]), const_f("L", [], [10]), const_f("D", [], [0])]),
        "OK,INVALID_MODEL,SHAPE", "Range with delta 0")
    add("onehot_huge_depth", model(
        [helper.make_node("OneHot", ["I", "D", "V"], ["Y"], name="oh")], [vi("I", I64, [2])],
        [vi("Y", F, None)], [const_i64("D", [BIG], []), const_f("V", [2], [0, 1])]), HUGE,
        "OneHot depth 2^40")
    add("constant_huge_dims", model(
        [helper.make_node("Constant", [], ["C"], name="c", value=raw_tensor("v", F, [BIG])),
         helper.make_node("Add", ["X", "C"], ["Y"], name="a")], [vi("X", F, [1])], [vi("Y", F, None)]),
        STRUCT + ",SHAPE", "Constant claiming 2^40 floats")
    add("conv_pads_huge", model(
        [helper.make_node("Conv", ["X", "W"], ["Y"], name="conv", pads=[0, 0, 1 << 28, 1 << 28])],
        [vi("X", F, [1, 1, 3, 3])], [vi("Y", F, None)], [const_f("W", [1, 1, 1, 1], [1])]), HUGE,
        "Conv with 2^28 padding")
    add("conv_pads_huge_folded", model(
        [helper.make_node("Conv", ["Xc", "W"], ["C"], name="conv", pads=[0, 0, 1 << 13, 1 << 13]),
         helper.make_node("ReduceSum", ["C"], ["R"], name="sum", keepdims=0),
         helper.make_node("Add", ["X", "R"], ["Y"], name="a")],
        [vi("X", F, [])], [vi("Y", F, None)],
        [const_f("Xc", [1, 1, 1, 1], [1]), const_f("W", [1, 1, 1, 1], [1])]), "OK," + HUGE,
        "constant Conv with 2^13 padding (256 MiB, folded at load)")
    add("pad_huge", model(
        [helper.make_node("Pad", ["X", "P"], ["Y"], name="pad")], [vi("X", F, [2])], [vi("Y", F, None)],
        [const_i64("P", [BIG, BIG])]), HUGE + ",UNSUPPORTED", "Pad by 2^40")
    add("resize_huge_scale", model(
        [helper.make_node("Resize", ["X", "", "S"], ["Y"], name="rs", mode="nearest")],
        [vi("X", F, [1, 1, 2, 2])], [vi("Y", F, None)],
        [helper.make_tensor("S", F, [4], [1, 1, 1e9, 1e9])]), HUGE + ",UNSUPPORTED", "Resize x1e9")
    add("gather_index_out_of_range", model(
        [helper.make_node("Gather", ["W", "I"], ["Y"], name="g")], [], [vi("Y", F, None)],
        [const_f("W", [2], [1, 2]), const_i64("I", [1 << 40])]), "INVALID_MODEL,SHAPE,INVALID_ARGUMENT",
        "Gather index 2^40 (constant)")
    add("gather_index_negative_huge", model(
        [helper.make_node("Gather", ["X", "I"], ["Y"], name="g")], [vi("X", F, [2])], [vi("Y", F, None)],
        [const_i64("I", [-(1 << 62)])]), "INVALID_MODEL,SHAPE,INVALID_ARGUMENT",
        "Gather index -2^62 at run time")


# ---------------------------------------------------------------- attributes

def attributes():
    x4 = [1, 1, 4, 4]
    w = const_f("W", [1, 1, 2, 2], [1, 1, 1, 1])

    def conv(name, desc, codes=ATTR, w_init=w, x_shape=x4, **attrs):
        add(name, model([helper.make_node("Conv", ["X", "W"], ["Y"], name="conv", **attrs)],
                        [vi("X", F, x_shape)], [vi("Y", F, None)], [w_init]), codes, desc)
    conv("conv_kernel_shape_0", "kernel_shape [0, 0]", kernel_shape=[0, 0])
    conv("conv_kernel_shape_mismatch", "kernel_shape disagrees with W", kernel_shape=[3, 3])
    conv("conv_strides_0", "strides [0, 0]", strides=[0, 0])
    conv("conv_strides_negative", "strides [-1, -1]", strides=[-1, -1])
    conv("conv_dilations_0", "dilations [0, 0]", dilations=[0, 0])
    conv("conv_dilations_huge", "dilations [2^40, 2^40]", dilations=[BIG, BIG])
    conv("conv_pads_negative", "pads [-3, -3, -3, -3]", pads=[-3, -3, -3, -3])
    conv("conv_pads_wrong_count", "pads with 3 values", pads=[1, 1, 1])
    conv("conv_group_0", "group 0", group=0)
    conv("conv_group_negative", "group -1", group=-1)
    conv("conv_group_huge", "group 2^40", group=BIG)
    conv("conv_group_not_dividing", "group 3 with 1 channel", group=3)
    conv("conv_auto_pad_bogus", "auto_pad 'EVIL'", auto_pad="EVIL")
    conv("conv_weight_rank_1", "1-D weights", w_init=const_f("W", [4], [1, 1, 1, 1]))
    conv("conv_kernel_bigger_than_input", "2x2 input, 3x3 kernel, no padding", codes="SHAPE,INVALID_MODEL",
         w_init=const_f("W", [1, 1, 3, 3], [1] * 9), x_shape=[1, 1, 2, 2])
    conv("conv_channel_mismatch", "W expects 3 channels", codes="SHAPE,INVALID_MODEL",
         w_init=const_f("W", [1, 3, 2, 2], [1] * 12))
    # Wrong attribute types: build the attribute by hand.
    for attr_name, attr in [
            ("kernel_shape", helper.make_attribute("kernel_shape", 2.5)),
            ("strides", helper.make_attribute("strides", "fast")),
            ("group", helper.make_attribute("group", [1, 2])),
            ("pads", helper.make_attribute("pads", [0.5, 0.5, 0.5, 0.5]))]:
        node = helper.make_node("Conv", ["X", "W"], ["Y"], name="conv")
        node.attribute.append(attr)
        add("conv_%s_wrong_type" % attr_name, model([node], [vi("X", F, x4)], [vi("Y", F, None)], [w]),
            ATTR, "%s has type %s" % (attr_name, AttributeProto.AttributeType.Name(attr.type)))
    untyped = helper.make_node("Conv", ["X", "W"], ["Y"], name="conv")
    a = untyped.attribute.add()
    a.name = "strides"  # no type, no value
    add("conv_attribute_empty", model([untyped], [vi("X", F, x4)], [vi("Y", F, None)], [w]), ATTR,
        "strides attribute with neither type nor value")

    def pool(op, name, desc, codes=ATTR, **attrs):
        add(name, model([helper.make_node(op, ["X"], ["Y"], name="pool", **attrs)], [vi("X", F, x4)],
                        [vi("Y", F, None)]), codes, desc)
    pool("MaxPool", "maxpool_no_kernel_shape", "MaxPool without kernel_shape")
    pool("MaxPool", "maxpool_kernel_0", "kernel_shape [0, 0]", kernel_shape=[0, 0])
    pool("MaxPool", "maxpool_kernel_too_big", "kernel 9x9 on 4x4", codes="SHAPE,INVALID_MODEL",
         kernel_shape=[9, 9])
    pool("MaxPool", "maxpool_strides_0", "strides [0, 0]", kernel_shape=[2, 2], strides=[0, 0])
    pool("AveragePool", "avgpool_pads_negative", "pads -1", kernel_shape=[2, 2], pads=[-1, -1, -1, -1])
    pool("AveragePool", "avgpool_pads_huge", "pads 2^40", codes=ATTR + ",OUT_OF_MEMORY,LIMIT",
         kernel_shape=[2, 2], pads=[BIG, BIG, BIG, BIG])
    pool("MaxPool", "maxpool_kernel_rank_3", "3-D kernel for 2-D input", kernel_shape=[2, 2, 2])

    add("softmax_axis_100", unary("Softmax", (2, 3), axis=100), ATTR, "Softmax axis 100")
    add("flatten_axis_minus_100", unary("Flatten", (2, 3), axis=-100), ATTR, "Flatten axis -100")
    add("transpose_perm_duplicate", unary("Transpose", (2, 3), perm=[0, 0]), ATTR, "perm [0, 0]")
    add("transpose_perm_out_of_range", unary("Transpose", (2, 3), perm=[0, 7]), ATTR, "perm [0, 7]")
    add("transpose_perm_short", unary("Transpose", (2, 3, 4), perm=[1, 0]), ATTR, "perm too short")
    add("leakyrelu_alpha_string", _with_attr("LeakyRelu", helper.make_attribute("alpha", "big")), ATTR,
        "alpha is a string")
    add("cast_to_999", unary("Cast", (2,), to=999), ATTR, "Cast to element type 999")
    add("cast_to_string", unary("Cast", (2,), to=TensorProto.STRING), ATTR, "Cast to string")
    add("cast_without_to", unary("Cast", (2,)), ATTR, "Cast without 'to'")
    add("concat_axis_out_of_range", model(
        [helper.make_node("Concat", ["X", "X"], ["Y"], name="c", axis=9)], [vi("X", F, [2, 2])],
        [vi("Y", F, None)]), ATTR, "Concat axis 9")
    add("concat_rank_mismatch", model(
        [helper.make_node("Concat", ["X", "Z"], ["Y"], name="c", axis=0)],
        [vi("X", F, [2, 2]), vi("Z", F, [2])], [vi("Y", F, None)]), ATTR, "Concat of rank 2 and 1")
    add("gather_axis_out_of_range", model(
        [helper.make_node("Gather", ["X", "I"], ["Y"], name="g", axis=5)], [vi("X", F, [2])],
        [vi("Y", F, None)], [const_i64("I", [0])]), ATTR, "Gather axis 5")
    add("split_sizes_mismatch", model(
        [helper.make_node("Split", ["X", "S"], ["A", "B"], name="s", axis=0)], [vi("X", F, [4])],
        [vi("A", F, None), vi("B", F, None)], [const_i64("S", [3, 3])]), ATTR, "split 3+3 of 4")
    add("split_negative", model(
        [helper.make_node("Split", ["X", "S"], ["A", "B"], name="s", axis=0)], [vi("X", F, [4])],
        [vi("A", F, None), vi("B", F, None)], [const_i64("S", [6, -2])]), ATTR, "split 6 and -2")
    add("slice_steps_0", model(
        [helper.make_node("Slice", ["X", "S", "E", "A", "T"], ["Y"], name="s")], [vi("X", F, [4])],
        [vi("Y", F, None)], [const_i64("S", [0]), const_i64("E", [4]), const_i64("A", [0]),
                             const_i64("T", [0])]), ATTR, "Slice step 0")
    add("slice_extreme_bounds", model(
        [helper.make_node("Slice", ["X", "S", "E", "A", "T"], ["Y"], name="s")], [vi("X", F, [4])],
        [vi("Y", F, None)], [const_i64("S", [-(1 << 63)]), const_i64("E", [(1 << 63) - 1]),
                             const_i64("A", [0]), const_i64("T", [(1 << 63) - 1])]),
        "OK," + ATTR, "Slice INT64_MIN..INT64_MAX step INT64_MAX (valid: clamps)")
    add("batchnorm_epsilon_ints", _with_attr("BatchNormalization",
                                             helper.make_attribute("epsilon", [1, 2]),
                                             extra=["S", "B", "M", "V"],
                                             inits=[const_f(n, [1], [1]) for n in "SBMV"],
                                             x_shape=(1, 1, 2, 2)), ATTR, "epsilon is an ints list")
    add("gemm_transposed_mismatch", model(
        [helper.make_node("Gemm", ["X", "W"], ["Y"], name="g", transA=1)], [vi("X", F, [2, 3])],
        [vi("Y", F, None)], [const_f("W", [3, 2], [0] * 6)]), "SHAPE,INVALID_MODEL", "Gemm transA mismatch")
    add("kernel_shape_1000_dims", model(
        [helper.make_node("MaxPool", ["X"], ["Y"], name="p", kernel_shape=[1] * 1000)],
        [vi("X", F, x4)], [vi("Y", F, None)]), ATTR, "kernel_shape with 1000 entries")
    add("depth_to_space_blocksize_0", unary("DepthToSpace", (1, 4, 2, 2), blocksize=0), ATTR,
        "blocksize 0")
    add("space_to_depth_blocksize_huge", unary("SpaceToDepth", (1, 1, 2, 2), blocksize=BIG), ATTR,
        "blocksize 2^40")
    add("reduce_axes_out_of_range", model(
        [helper.make_node("ReduceSum", ["X", "A"], ["Y"], name="r")], [vi("X", F, [2, 2])],
        [vi("Y", F, None)], [const_i64("A", [7])]), ATTR, "ReduceSum axis 7")
    add("topk_k_huge", model(
        [helper.make_node("TopK", ["X", "K"], ["V", "I"], name="t")], [vi("X", F, [4])],
        [vi("V", F, None), vi("I", I64, None)], [const_i64("K", [BIG])]), ATTR, "TopK k = 2^40")
    add("extra_declared_outputs", model(
        [helper.make_node("Relu", ["X"], ["Y", "Z", "W"], name="r")], [vi("X")],
        [vi("Y"), vi("Z"), vi("W")]), ATTR, "Relu declaring three outputs")


def _with_attr(op, attr, extra=(), inits=(), x_shape=(2,)):
    node = helper.make_node(op, ["X"] + list(extra), ["Y"], name="n")
    node.attribute.append(attr)
    return model([node], [vi("X", F, x_shape)], [vi("Y", F, None)], inits)


# ---------------------------------------------------------------- missing inputs

def missing_inputs():
    cases = [
        ("conv_only_x", "Conv", ["X"], (1, 1, 4, 4), "Conv without weights"),
        ("gemm_one_input", "Gemm", ["X"], (2, 2), "Gemm with one input"),
        ("add_one_input", "Add", ["X"], (2,), "Add with one input"),
        ("reshape_no_shape", "Reshape", ["X"], (2,), "Reshape without its shape"),
        ("concat_no_inputs", "Concat", [], (2,), "Concat of nothing"),
        ("matmul_empty_name", "MatMul", ["X", ""], (2, 2), "MatMul second input ''"),
        ("relu_three_inputs", "Relu", ["X", "X", "X"], (2,), "Relu with three inputs"),
        ("batchnorm_two_inputs", "BatchNormalization", ["X", "X"], (1, 1, 2, 2), "BatchNorm with 2 of 5"),
        ("where_one_input", "Where", ["X"], (2,), "Where with one input"),
        ("gather_no_indices", "Gather", ["X"], (2,), "Gather without indices"),
    ]
    for name, op, inputs, shape, desc in cases:
        attrs = {"axis": 0} if op == "Concat" else {}
        add(name, model([helper.make_node(op, inputs, ["Y"], name="n", **attrs)], [vi("X", F, shape)],
                        [vi("Y", F, None)]), ATTR + ",INVALID_ARGUMENT", desc)
    add("constant_no_value", model(
        [helper.make_node("Constant", [], ["C"], name="c"), helper.make_node("Add", ["X", "C"], ["Y"], name="a")],
        [vi("X")], [vi("Y", F, None)]), ATTR, "Constant without a value")
    add("constantofshape_value_two_elems", model(
        [helper.make_node("ConstantOfShape", ["S"], ["Y"], name="c",
                          value=helper.make_tensor("v", F, [2], [1, 2]))], [], [vi("Y", F, None)],
        [const_i64("S", [2])]), ATTR, "ConstantOfShape value with 2 elements")


def main():
    global out_dir
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out_dir = os.path.abspath(sys.argv[1])
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    for part in (structure, subgraphs, external, huge, attributes, missing_inputs):
        part()
    with open(os.path.join(out_dir, "manifest.txt"), "w") as f:
        f.write("# FILE CODES DESCRIPTION (written by tests/hostile/make_hostile.py)\n")
        f.write("\n".join(manifest) + "\n")
    print("hostile corpus: %d models written to %s" % (len(manifest), out_dir))


if __name__ == "__main__":
    main()
