#!/usr/bin/python3
"""Writes the small ONNX models the graph optimizer's tests (tests/test_opt*.c)
use into tests/data/models/opt_*.onnx: one pattern (or a few variants of it)
per file, with static shapes and random weights. Run with Debian's python3
(python3-onnx):
    /usr/bin/python3 tools/make_opt_models.py
The files are committed; rerun only to change them."""
import math
import os

import numpy as np
from onnx import TensorProto, checker, helper, numpy_helper, save, shape_inference

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "models")
F = TensorProto.FLOAT
RNG = np.random.default_rng(11)


def vi(name, shape, t=F):
    return helper.make_tensor_value_info(name, t, shape)


def init(name, shape, scale=0.5):
    return numpy_helper.from_array((RNG.standard_normal(shape) * scale).astype(np.float32), name)


def const(name, value):
    return numpy_helper.from_array(np.array(value, dtype=np.float32), name)


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, name=outs[0] + "_node", **attrs)


def write(name, nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="kiln-opt-tests")
    m.ir_version = 8
    # Outputs declared without a shape get the one shape inference finds
    # (it reports intermediate values only, so probe through Identity nodes).
    probe = helper.make_graph(
        nodes + [helper.make_node("Identity", [o.name], [o.name + "__probe"]) for o in outputs],
        name, inputs,
        [vi(o.name + "__probe", None, o.type.tensor_type.elem_type) for o in outputs],
        list(inits))
    inferred = shape_inference.infer_shapes(helper.make_model(
        probe, opset_imports=[helper.make_opsetid("", opset)]))
    known = {v.name: v for v in inferred.graph.value_info}
    for out in m.graph.output:
        if not out.type.tensor_type.HasField("shape") and out.name in known:
            out.type.CopyFrom(known[out.name].type)
    checker.check_model(m)
    save(m, os.path.join(OUT, name))


def basic():
    # Identity, inference Dropout and a dead Sigmoid vanish; the Identity
    # whose output is a graph output keeps the output's name.
    write("opt_basic.onnx", [
        node("Identity", ["X"], ["I"]),
        node("Dropout", ["I"], ["D"]),
        node("Relu", ["D"], ["R"]),
        node("Sigmoid", ["X"], ["unused"]),
        node("Identity", ["R"], ["Y"]),
    ], [vi("X", [2, 3])], [vi("Y", [2, 3])])
    # Constant folding: Y = X * (c1 + w) where c1 is a Constant node.
    write("opt_const_fold.onnx", [
        helper.make_node("Constant", [], ["c1"], name="c1_node",
                         value=numpy_helper.from_array(np.full((3,), 2.0, np.float32))),
        node("Add", ["c1", "w"], ["cw"]),
        node("Mul", ["X", "cw"], ["Y"]),
    ], [vi("X", [2, 3])], [vi("Y", [2, 3])], [init("w", [3])])
    # Folding is bounded: the small Add folds, the 2.4 MB Expand of a
    # scalar stays for the plan to compute.
    write("opt_fold_bound.onnx", [
        node("Add", ["c", "c"], ["c2"]),
        node("Expand", ["c2", "shape"], ["big"]),
        node("Add", ["X", "big"], ["Y"]),
    ], [vi("X", [2, 300000])], [vi("Y", [2, 300000])],
        [const("c", 1.5), numpy_helper.from_array(np.array([2, 300000], np.int64), "shape")])
    # Conv + BatchNormalization (level 1 folds the BN away).
    write("opt_conv_bn.onnx", [
        node("Conv", ["X", "W", "B"], ["C"], pads=[1, 1, 1, 1]),
        node("BatchNormalization", ["C", "s", "bb", "m", "v"], ["Y"], epsilon=1e-3),
    ], [vi("X", [1, 3, 6, 6])], [vi("Y", [1, 4, 6, 6])],
        [init("W", [4, 3, 3, 3]), init("B", [4]), init("s", [4]), init("bb", [4]),
         init("m", [4]), numpy_helper.from_array(
             (np.abs(RNG.standard_normal(4)) + 0.5).astype(np.float32), "v")])


def conv():
    # One conv per activation, with varied Conv attributes; the outputs are
    # all graph outputs.
    acts = [
        ("Relu", {}, {}),
        ("LeakyRelu", {"alpha": 0.2}, {"strides": [2, 2], "pads": [1, 1, 1, 1]}),
        ("Sigmoid", {}, {"dilations": [2, 2], "pads": [2, 2, 2, 2]}),
        ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}, {"group": 2}),
        ("Tanh", {}, {"auto_pad": "SAME_UPPER"}),
        ("HardSwish", {}, {"pads": [0, 1, 2, 1]}),
    ]
    nodes, outs, inits = [], [], []
    for i, (act, aattr, cattr) in enumerate(acts):
        w_in = 4 // cattr.get("group", 1)
        nodes.append(node("Conv", ["X", f"W{i}", f"B{i}"], [f"c{i}"], kernel_shape=[3, 3], **cattr))
        nodes.append(node(act, [f"c{i}"], [f"Y{i}"], **aattr))
        inits += [init(f"W{i}", [6, w_in, 3, 3]), init(f"B{i}", [6])]
        outs.append(helper.make_tensor_value_info(f"Y{i}", F, None))
    write("opt_conv_acts.onnx", nodes, [vi("X", [2, 4, 9, 9])], outs, inits)
    # Clip with constant bounds (opset 13 inputs) on a bias-less depthwise
    # conv; Silu (Sigmoid + Mul) on a pointwise conv.
    write("opt_conv_clip_silu.onnx", [
        node("Conv", ["X", "Wd"], ["d"], group=4, kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        node("Clip", ["d", "lo", "hi"], ["Y0"]),
        node("Conv", ["X", "Wp", "Bp"], ["p"]),
        node("Sigmoid", ["p"], ["ps"]),
        node("Mul", ["ps", "p"], ["Y1"]),
    ], [vi("X", [1, 4, 7, 7])], [vi("Y0", None), vi("Y1", None)],
        [init("Wd", [4, 1, 3, 3]), const("lo", 0.0), const("hi", 0.6),
         init("Wp", [5, 4, 1, 1]), init("Bp", [5])], opset=13)
    # Residuals: Relu(Conv(X) + Conv2(X)) (same shape), Conv(X) + G where
    # G = GlobalAveragePool(X) broadcasts (N, C, 1, 1), then no activation,
    # and Sigmoid(DepthwiseConv(X) + X).
    write("opt_conv_residual.onnx", [
        node("Conv", ["X", "Wa", "Ba"], ["a"], pads=[1, 1, 1, 1]),
        node("Conv", ["X", "Wb"], ["b"]),
        node("Add", ["a", "b"], ["s"]),
        node("Relu", ["s"], ["Y0"]),
        node("Conv", ["X", "Wc", "Bc"], ["c"], pads=[1, 1, 1, 1]),
        node("GlobalAveragePool", ["X"], ["g"]),
        node("Add", ["g", "c"], ["Y1"]),
        node("Conv", ["X", "Wd", "Bd"], ["dw"], group=4, pads=[1, 1, 1, 1]),
        node("Add", ["X", "dw"], ["dx"]),
        node("Sigmoid", ["dx"], ["Y2"]),
    ], [vi("X", [2, 4, 5, 5])], [vi("Y0", None), vi("Y1", None), vi("Y2", None)],
        [init("Wa", [4, 4, 3, 3]), init("Ba", [4]), init("Wb", [4, 4, 1, 1]),
         init("Wc", [4, 4, 3, 3]), init("Bc", [4]), init("Wd", [4, 1, 3, 3]), init("Bd", [4])])


def gelu_nodes(x, y, variant, tag):
    """The exact GELU as exporters write it, in two operand orders."""
    if variant == 0:  # ((x * (erf(x / sqrt2) + 1)) * 0.5)
        return [node("Div", [x, "sqrt2"], [f"{tag}d"]), node("Erf", [f"{tag}d"], [f"{tag}e"]),
                node("Add", [f"{tag}e", "one"], [f"{tag}a"]),
                node("Mul", [x, f"{tag}a"], [f"{tag}m"]),
                node("Mul", [f"{tag}m", "half"], [y])]
    return [node("Mul", [x, "rsqrt2"], [f"{tag}d"]), node("Erf", [f"{tag}d"], [f"{tag}e"]),
            node("Add", ["one", f"{tag}e"], [f"{tag}a"]),
            node("Mul", ["half", x], [f"{tag}h"]),
            node("Mul", [f"{tag}a", f"{tag}h"], [y])]


def dense():
    consts = [const("sqrt2", np.sqrt(2.0)), const("rsqrt2", 1 / np.sqrt(2.0)),
              const("one", 1.0), const("half", 0.5)]
    # MatMul + bias + GELU (both orders), MatMul + bias, MatMul + Relu,
    # Gelu on a graph input (kiln.Gelu alone).
    nodes = [node("MatMul", ["X", "W1"], ["m1"]), node("Add", ["b1", "m1"], ["a1"])]
    nodes += gelu_nodes("a1", "Y0", 0, "g0")
    nodes += [node("MatMul", ["X", "W2"], ["m2"]), node("Add", ["m2", "b2"], ["a2"])]
    nodes += gelu_nodes("a2", "Y1", 1, "g1")
    nodes += [node("MatMul", ["X", "W1"], ["m3"]), node("Add", ["m3", "b1"], ["Y2"])]
    nodes += [node("MatMul", ["X", "W2"], ["m4"]), node("Relu", ["m4"], ["Y3"])]
    nodes += gelu_nodes("X", "Y4", 0, "g4")
    write("opt_matmul.onnx", nodes, [vi("X", [2, 5, 8])],
          [vi(f"Y{i}", None) for i in range(5)],
          [init("W1", [8, 16]), init("b1", [16]), init("W2", [8, 16]), init("b2", [16])] + consts)
    # Gemm (transB, alpha, beta, C) + Relu; Gemm + Sigmoid; Silu on an input.
    write("opt_gemm.onnx", [
        node("Gemm", ["X", "W", "C"], ["g"], transB=1, alpha=0.7, beta=1.3),
        node("Relu", ["g"], ["Y0"]),
        node("Gemm", ["X", "W2"], ["h"]),
        node("Sigmoid", ["h"], ["Y1"]),
        node("Sigmoid", ["X"], ["xs"]),
        node("Mul", ["X", "xs"], ["Y2"]),
    ], [vi("X", [3, 6])], [vi("Y0", None), vi("Y1", None), vi("Y2", None)],
        [init("W", [4, 6]), init("C", [4]), init("W2", [6, 5])])


def attention():
    # torch's export: Q scaled by a Div before Q @ K^T, K^T from a Transpose,
    # softmax, @ V; a second block scales the scores instead and adds a mask
    # that broadcasts over heads and query rows.
    write("opt_attention.onnx", [
        node("Div", ["Q", "c8"], ["qs"]),
        node("Transpose", ["K"], ["kt"], perm=[0, 1, 3, 2]),
        node("MatMul", ["qs", "kt"], ["s"]),
        node("Softmax", ["s"], ["p"], axis=-1),
        node("MatMul", ["p", "V"], ["Y0"]),
        node("MatMul", ["Q", "kt"], ["s2"]),
        node("Mul", ["s2", "c8inv"], ["s2s"]),
        node("Add", ["s2s", "M"], ["s2m"]),
        node("Softmax", ["s2m"], ["p2"]),
        node("MatMul", ["p2", "V"], ["Y1"]),
    ], [vi("Q", [2, 3, 7, 8]), vi("K", [2, 3, 9, 8]), vi("V", [2, 3, 9, 5]), vi("M", [2, 1, 1, 9])],
        [vi("Y0", None), vi("Y1", None)], [const("c8", np.sqrt(8.0)), const("c8inv", 1 / np.sqrt(8.0))])


def layernorm():
    def ln_nodes():
        return [node("ReduceMean", ["X"], ["mu"], axes=[-1]),
                node("Sub", ["X", "mu"], ["d"]),
                node("Pow", ["d", "two"], ["sq"]),
                node("ReduceMean", ["sq"], ["var"], axes=[-1]),
                node("Add", ["var", "eps"], ["ve"]),
                node("Sqrt", ["ve"], ["sd"]),
                node("Div", ["d", "sd"], ["n"]),
                node("Mul", ["n", "gamma"], ["ng"]),
                node("Add", ["ng", "beta"], ["Y"])]
    inits = [const("two", 2.0), const("eps", 1e-5), init("gamma", [10]), init("beta", [10])]
    write("opt_layernorm13.onnx", ln_nodes(), [vi("X", [2, 3, 10])], [vi("Y", None)], inits,
          opset=13)


def kiln_direct():
    # kiln-domain ops written directly: FusedConv with a residual and Clip,
    # and one with an activation the kernel does not know (a load error).
    def kmodel(name, nodes, inputs, outputs, inits):
        graph = helper.make_graph(nodes, name, inputs, outputs, inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("kiln", 1)],
                              producer_name="kiln-opt-tests")
        m.ir_version = 8
        save(m, os.path.join(OUT, name))
    # Y (fused) and R (the same as standard ops) must agree.
    kmodel("opt_kiln_fusedconv.onnx", [
        helper.make_node("FusedConv", ["X", "W", "", "Z"], ["Y"], domain="kiln", name="fc",
                         pads=[1, 1, 1, 1], activation="Clip", activation_params=[-0.5, 0.5]),
        node("Conv", ["X", "W"], ["c"], pads=[1, 1, 1, 1]),
        node("Add", ["c", "Z"], ["cz"]),
        node("Clip", ["cz", "lo", "hi"], ["R"])],
        [vi("X", [1, 2, 4, 4]), vi("Z", [1, 3, 4, 4])],
        [vi("Y", [1, 3, 4, 4]), vi("R", [1, 3, 4, 4])],
        [init("W", [3, 2, 3, 3]), const("lo", -0.5), const("hi", 0.5)])
    kmodel("opt_kiln_bad_activation.onnx", [
        helper.make_node("FusedConv", ["X", "W"], ["Y"], domain="kiln", name="fc",
                         activation="Swoosh")],
        [vi("X", [1, 2, 4, 4])], [vi("Y", [1, 3, 4, 4])], [init("W", [3, 2, 1, 1])])


def conv_inplace():
    # Residuals read for the last time by a convolution large enough for
    # oneDNN, which then writes over them: Conv(r) + r, where the input is
    # also the residual, and a plain two-conv block around it.
    write("opt_conv_residual_inplace.onnx", [
        node("Conv", ["X", "W0", "B0"], ["a0"], pads=[1, 1, 1, 1]),
        node("Relu", ["a0"], ["a"]),
        node("Conv", ["a", "W1", "B1"], ["c1"], pads=[1, 1, 1, 1]),
        node("Add", ["c1", "a"], ["r"]),
        node("Conv", ["r", "W2", "B2"], ["c2"], pads=[1, 1, 1, 1]),
        node("Relu", ["c2"], ["h"]),
        node("Conv", ["h", "W3", "B3"], ["c3"], pads=[1, 1, 1, 1]),
        node("Add", ["r", "c3"], ["s"]),
        node("Relu", ["s"], ["Y"]),
    ], [vi("X", [1, 16, 48, 48])], [vi("Y", None)],
        [init(f"W{i}", [16, 16, 3, 3], 0.1) for i in range(4)] +
        [init(f"B{i}", [16]) for i in range(4)])


def horizontal():
    # Sibling products of one input merge into one product + Split:
    # BERT-style Q, K, V (MatMul + bias Add each, V's bias on the left);
    # Gemm siblings (transB with C, plain) and a bias-less MatMul on a 2-D
    # input at opset 11 (Split sizes as an attribute); 1x1 Conv siblings
    # with and without B beside a 3x3 one that must stay apart.
    write("opt_horizontal_qkv.onnx", [
        node("MatMul", ["X", "Wq"], ["q"]), node("Add", ["q", "bq"], ["Q"]),
        node("MatMul", ["X", "Wk"], ["k"]), node("Add", ["k", "bk"], ["K"]),
        node("MatMul", ["X", "Wv"], ["v"]), node("Add", ["bv", "v"], ["V"]),
    ], [vi("X", [2, 5, 16])], [vi("Q", None), vi("K", None), vi("V", None)],
        [init("Wq", [16, 8]), init("bq", [8]), init("Wk", [16, 8]), init("bk", [8]),
         init("Wv", [16, 12]), init("bv", [12])])
    write("opt_horizontal_gemm.onnx", [
        node("Gemm", ["X", "Wa", "Ca"], ["A"], transB=1),
        node("Gemm", ["X", "Wb"], ["B"]),
        node("MatMul", ["X", "Wc"], ["C"]),
    ], [vi("X", [4, 6])], [vi("A", None), vi("B", None), vi("C", None)],
        [init("Wa", [5, 6]), init("Ca", [5]), init("Wb", [6, 3]), init("Wc", [6, 7])], opset=11)
    write("opt_horizontal_conv.onnx", [
        node("Conv", ["X", "W0", "B0"], ["Y0"]),
        node("Conv", ["X", "W1"], ["Y1"], kernel_shape=[1, 1], strides=[1, 1], pads=[0, 0, 0, 0]),
        node("Conv", ["X", "W2", "B2"], ["Y2"], pads=[1, 1, 1, 1]),
    ], [vi("X", [2, 4, 5, 5])], [vi("Y0", None), vi("Y1", None), vi("Y2", None)],
        [init("W0", [3, 4, 1, 1]), init("B0", [3]), init("W1", [6, 4, 1, 1]),
         init("W2", [5, 4, 3, 3]), init("B2", [5])])
    # Nothing to merge: K differs (a 1x1 and a 3x3 conv, C*kh*kw = 4 vs 36;
    # a strided 1x1), a weight that is an input, alpha != 1, and products
    # whose Relu the MatMul fusion takes into its epilogue.
    write("opt_horizontal_none.onnx", [
        node("Conv", ["X", "W0"], ["Y0"]),
        node("Conv", ["X", "W1"], ["Y1"], pads=[1, 1, 1, 1]),
        node("Conv", ["X", "W2"], ["Y2"], strides=[2, 2]),
        node("MatMul", ["M", "Wm"], ["Y3"]),
        node("MatMul", ["M", "Wi"], ["Y4"]),
        node("Gemm", ["M", "Wg"], ["Y5"], alpha=0.5),
        node("MatMul", ["M", "Wr0"], ["r0"]), node("Relu", ["r0"], ["Y6"]),
        node("MatMul", ["M", "Wr1"], ["r1"]), node("Relu", ["r1"], ["Y7"]),
    ], [vi("X", [1, 4, 6, 6]), vi("M", [3, 8]), vi("Wi", [8, 2])],
        [vi(f"Y{i}", None) for i in range(8)],
        [init("W0", [3, 4, 1, 1]), init("W1", [3, 4, 3, 3]), init("W2", [3, 4, 1, 1]),
         init("Wm", [8, 5]), init("Wg", [8, 4]), init("Wr0", [8, 3]), init("Wr1", [8, 3])])


def chains():
    # Elementwise chains: the 4-op case (scale, same-shape tensor, Sigmoid,
    # 1 - x), large enough for several blocks and two threads.
    shape = [2, 3, 100, 100]
    write("opt_chain4.onnx", [
        node("Mul", ["X", "half"], ["a"]),
        node("Add", ["a", "Z"], ["b"]),
        node("Sigmoid", ["b"], ["c"]),
        node("Sub", ["one", "c"], ["Y"]),
    ], [vi("X", shape), vi("Z", shape)], [vi("Y", None)],
        [const("half", 0.5), const("one", 1.0)])
    # Every step kind: a long unary run with Clip bounds as inputs and an
    # operand that is the chain's own input; Silu (of a declared float, as
    # the Silu pass wants) and Gelu from their formulas; X - t and c / t (operand first); a value read both as the
    # chain's start and as its operand, between Transposes (in place).
    consts = [const("one", 1.0), const("three", 3.0), const("two", 2.0), const("lo", -0.7),
              const("hi", 0.9), const("q", 0.25), const("sqrt2", np.sqrt(2.0)),
              const("half", 0.5), const("mhalf", -0.5)]
    nodes = [node("Abs", ["X"], ["a0"]), node("Add", ["a0", "one"], ["a1"]),
             node("Sqrt", ["a1"], ["a2"]), node("Reciprocal", ["a2"], ["a3"]),
             node("Neg", ["a3"], ["a4"]), node("Exp", ["a4"], ["a5"]),
             node("Clip", ["a5", "lo", "hi"], ["a6"]),
             node("LeakyRelu", ["a6"], ["a7"], alpha=0.3), node("Tanh", ["a7"], ["a8"]),
             node("Relu", ["a8"], ["a9"]), node("Div", ["a9", "three"], ["a10"]),
             node("Mul", ["a10", "X"], ["Y0"])]
    nodes += [node("Sigmoid", ["X"], ["s1"]), node("Mul", ["X", "s1"], ["s2"]),
              node("Mul", ["s2", "two"], ["s3"]), node("Add", ["q", "s3"], ["Y1"])]
    nodes += [node("Mul", ["X", "three"], ["g0"])]
    nodes += gelu_nodes("g0", "g1", 0, "gg")
    nodes += [node("Sub", ["g1", "mhalf"], ["g2"]), node("Div", ["two", "g2"], ["Y2"])]
    nodes += [node("Transpose", ["X"], ["T"], perm=[0, 2, 1]),
              node("Mul", ["T", "two"], ["t0"]), node("Add", ["t0", "T"], ["t1"]),
              node("Tanh", ["t1"], ["t2"]), node("Transpose", ["t2"], ["Y3"], perm=[0, 2, 1])]
    write("opt_chain_all.onnx", nodes, [vi("X", [3, 50, 40])],
          [vi(f"Y{i}", None) for i in range(4)], consts + [const("rsqrt2", 1 / np.sqrt(2.0))])
    # No chain: a value read twice, an operand that broadcasts, a graph
    # output in the middle, an activation a MatMul takes first, integers.
    write("opt_chain_none.onnx", [
        node("Relu", ["X"], ["r"]), node("Sigmoid", ["r"], ["Y0"]), node("Tanh", ["r"], ["Y1"]),
        node("Exp", ["X"], ["e"]), node("Add", ["e", "B"], ["eb"]), node("Tanh", ["eb"], ["Y2"]),
        node("Neg", ["X"], ["Y3"]), node("Abs", ["Y3"], ["Y4"]),
        node("MatMul", ["X", "W"], ["m"]), node("Relu", ["m"], ["mr"]),
        node("Sigmoid", ["mr"], ["Y5"]),
        node("Neg", ["I"], ["i0"]), node("Abs", ["i0"], ["Y6"]),
    ], [vi("X", [2, 3, 4]), vi("B", [3, 4]), vi("I", [5], TensorProto.INT64)],
        [vi(f"Y{i}", None) for i in range(6)] + [vi("Y6", None, TensorProto.INT64)],
        [init("W", [4, 4])])
    # kiln.ElementwiseChain written directly with a step it does not know.
    graph = helper.make_graph([
        helper.make_node("ElementwiseChain", ["X"], ["Y"], domain="kiln", name="ec",
                         steps=["Relu", "Swish"], operands=[-1, -1], params=[0.0] * 4)],
        "opt_kiln_bad_chain.onnx", [vi("X", [2, 3])], [vi("Y", [2, 3])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                helper.make_opsetid("kiln", 1)],
                          producer_name="kiln-opt-tests")
    m.ir_version = 8
    save(m, os.path.join(OUT, "opt_kiln_bad_chain.onnx"))


def zero_pads():
    # torch writes a Pad of all-zero pads before every AvgPool2d: it goes;
    # the real Pad stays.
    write("opt_zero_pad.onnx", [
        node("Pad", ["X", "zeros"], ["P0"], mode="constant"),
        node("Relu", ["P0"], ["R"]),
        node("Pad", ["R", "ones"], ["Y"], mode="constant"),
    ], [vi("X", [1, 2, 4, 4])], [vi("Y", [1, 2, 6, 6])],
        [numpy_helper.from_array(np.zeros(8, np.int64), "zeros"),
         numpy_helper.from_array(np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), "ones")])


def pad_fold():
    # torch's avg_pool2d(padding=1) and tf2onnx's ZeroPadding2D + Conv: the
    # zero Pads become the pool's (counted) and the Conv's own padding;
    # the reflect Pad stays.
    write("opt_pad_fold.onnx", [
        node("Pad", ["X", "p1"], ["P1"], mode="constant"),
        node("AveragePool", ["P1"], ["A"], kernel_shape=[3, 3]),
        node("Pad", ["A", "p2"], ["P2"], mode="constant"),
        node("Conv", ["P2", "W"], ["C"], pads=[1, 0, 0, 1]),
        node("Pad", ["C", "p1"], ["P3"], mode="reflect"),
        node("AveragePool", ["P3"], ["Y"], kernel_shape=[2, 2]),
    ], [vi("X", [1, 3, 8, 8])], [vi("Y", [1, 4, 9, 10])],
        [numpy_helper.from_array(np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), "p1"),
         numpy_helper.from_array(np.array([0, 0, 0, 2, 0, 0, 1, 0], np.int64), "p2"),
         init("W", [4, 3, 3, 3])])


# ---- QDQ patterns (pass_qdq_conv.c, pass_qconv_add.c) ----

QRNG = np.random.default_rng(29)  # its own, so the models above keep theirs


def conv2d(x, w, b):
    """Float reference of a 3x3 (or 1x1), stride 1, 'same' convolution, for
    choosing the quantization scales of the values a graph computes."""
    k = w.shape[2]
    p = k // 2
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    h, wd = x.shape[2], x.shape[3]
    cols = np.stack([xp[:, :, i:i + h, j:j + wd] for i in range(k) for j in range(k)], axis=2)
    y = np.einsum("ncthw,oct->nohw", cols, w.reshape(w.shape[0], w.shape[1], k * k))
    return y + b.reshape(1, -1, 1, 1)


class Qdq:
    """Builds a QDQ graph the way a calibrating writer does: uint8
    activations with a scale and zero point from the value's range, int8
    per-channel weights, int32 biases with scale x_scale * w_scale."""

    def __init__(self):
        self.nodes, self.inits = [], []

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def q(self, v, value, symmetric_at_zero=False):
        """Q then DQ of float value v (its numbers in `value`): the DQ'd name."""
        lo, hi = min(float(value.min()), 0.0), max(float(value.max()), 0.0)
        if symmetric_at_zero:
            lo = 0.0
        scale = (hi - lo) / 255.0
        zp = int(round(-lo / scale))
        s = self.const(v + "_s", np.array(scale, np.float32))
        z = self.const(v + "_z", np.array(zp, np.uint8))
        self.nodes.append(node("QuantizeLinear", [v, s, z], [v + "_q"]))
        self.nodes.append(node("DequantizeLinear", [v + "_q", s, z], [v + "_dq"]))
        self.scale = scale  # of the value just quantized
        return v + "_dq"

    def conv(self, x, x_scale, cin, cout, k, y):
        """Conv of DQ'd x with int8 weights and int32 bias; returns the float
        weights and bias for the reference."""
        w = (QRNG.standard_normal((cout, cin, k, k)) * 0.3).astype(np.float32)
        b = (QRNG.standard_normal(cout) * 0.1).astype(np.float32)
        ws = (np.abs(w).reshape(cout, -1).max(axis=1) / 127.0).astype(np.float32)
        wq = np.clip(np.round(w / ws.reshape(-1, 1, 1, 1)), -127, 127).astype(np.int8)
        bs = (x_scale * ws).astype(np.float32)
        bq = np.round(b / bs).astype(np.int32)
        names = [self.const(y + "_" + n, a) for n, a in
                 (("wq", wq), ("ws", ws), ("wz", np.zeros(cout, np.int8)), ("bq", bq), ("bs", bs))]
        self.nodes.append(node("DequantizeLinear", [names[0], names[1], names[2]], [y + "_w"],
                               axis=0))
        self.nodes.append(node("DequantizeLinear", [names[3], names[4]], [y + "_b"], axis=0))
        self.nodes.append(node("Conv", [x, y + "_w", y + "_b"], [y], pads=[k // 2] * 4))
        return wq.astype(np.float32) * ws.reshape(-1, 1, 1, 1), bq * bs


def qdq():
    x = QRNG.uniform(-1, 1, (1, 16, 8, 8)).astype(np.float32)
    xs = 2.0 / 255.0
    x_in = vi("X", [1, 16, 8, 8])

    # A residual block: Conv -> Relu and Conv, whose sum with the block's
    # input goes through Relu: the second Conv takes the addition and Relu.
    g = Qdq()
    xd = g.q("X", np.array([-1.0, 1.0]))
    w1, b1 = g.conv(xd, xs, 16, 16, 3, "C1")
    y1 = np.maximum(conv2d(x, w1, b1), 0)
    g.nodes.append(node("Relu", ["C1"], ["R1"]))
    r1 = g.q("R1", y1, symmetric_at_zero=True)
    w2, b2 = g.conv(r1, g.scale, 16, 16, 3, "C2")
    y2 = conv2d(y1, w2, b2)
    c2 = g.q("C2", y2)
    g.nodes.append(node("Add", [c2, xd], ["S"]))
    g.nodes.append(node("Relu", ["S"], ["RS"]))
    rs = g.q("RS", np.maximum(y2 + x, 0), symmetric_at_zero=True)
    g.nodes.append(node("Identity", [rs], ["Y"]))
    write("opt_qdq_residual.onnx", g.nodes, [x_in], [vi("Y", [1, 16, 8, 8])], g.inits)

    # Activations the quantization does not absorb: SiLU as x * Sigmoid(x),
    # HardSwish, and a Clip inside the output's range with Constant bounds.
    g = Qdq()
    xd = g.q("X", np.array([-1.0, 1.0]))
    outs = []
    for i, act in enumerate(("Silu", "HardSwish", "Clip")):
        c = "A%d" % i
        w, b = g.conv(xd, xs, 16, 8, 1 if i == 1 else 3, c)
        y = conv2d(x, w, b)
        if act == "Silu":
            g.nodes.append(node("Sigmoid", [c], [c + "_sig"]))
            g.nodes.append(node("Mul", [c, c + "_sig"], [c + "_act"]))
            ya = y / (1 + np.exp(-y))
        elif act == "HardSwish":
            g.nodes.append(node("HardSwish", [c], [c + "_act"]))
            ya = y * np.clip(y / 6 + 0.5, 0, 1)
        else:
            g.nodes.append(helper.make_node("Constant", [], [c + "_lo"], name=c + "_lo_node",
                                            value=numpy_helper.from_array(
                                                np.array(-0.25, np.float32))))
            g.nodes.append(helper.make_node("Constant", [], [c + "_hi"], name=c + "_hi_node",
                                            value=numpy_helper.from_array(
                                                np.array(0.5, np.float32))))
            g.nodes.append(node("Clip", [c, c + "_lo", c + "_hi"], [c + "_act"]))
            ya = np.clip(y, -0.25, 0.5)
            ya = np.concatenate([ya.ravel(), [-1.0, 1.0]])  # a range wider than the Clip's
        outs.append(g.q(c + "_act", ya))
        g.nodes.append(node("Identity", [outs[-1]], ["Y%d" % i]))
    write("opt_qdq_activations.onnx", g.nodes, [x_in],
          [vi("Y%d" % i, [1, 8, 8, 8]) for i in range(3)], g.inits)

    # The negative: the Conv before the addition has a second reader (its
    # quantized output is also a graph output's), and a SiLU Conv's result
    # is a graph output too: neither fuses.
    g = Qdq()
    xd = g.q("X", np.array([-1.0, 1.0]))
    w, b = g.conv(xd, xs, 16, 16, 3, "C")
    y = conv2d(x, w, b)
    c = g.q("C", y)
    g.nodes.append(node("Add", [c, xd], ["S"]))
    s = g.q("S", y + x)
    g.nodes.append(node("Identity", [s], ["Y"]))
    g.nodes.append(node("Identity", [c], ["Yc"]))
    w, b = g.conv(xd, xs, 16, 8, 3, "D")
    yd = conv2d(x, w, b)
    g.nodes.append(node("Sigmoid", ["D"], ["D_sig"]))
    g.nodes.append(node("Mul", ["D", "D_sig"], ["D_act"]))
    d = g.q("D_act", yd / (1 + np.exp(-yd)))
    g.nodes.append(node("Identity", [d], ["Yd"]))
    write("opt_qdq_shared.onnx", g.nodes, [x_in],
          [vi("Y", [1, 16, 8, 8]), vi("Yc", [1, 16, 8, 8]), vi("Yd", [1, 8, 8, 8]),
           vi("D", [1, 8, 8, 8])], g.inits)

    # A squeeze-and-excitation gate: the dequantized X times the Sigmoid of
    # a float 1x1 Conv of its pooled mean, quantized again.
    g = Qdq()
    xd = g.q("X", np.array([-1.0, 1.0]))
    g.nodes.append(node("GlobalAveragePool", [xd], ["P"]))
    g.inits.append(numpy_helper.from_array(
        (QRNG.standard_normal((16, 16, 1, 1)) * 2).astype(np.float32), "Wg"))
    g.nodes.append(node("Conv", ["P", "Wg"], ["G"]))
    g.nodes.append(node("Sigmoid", ["G"], ["Gs"]))
    g.nodes.append(node("Mul", [xd, "Gs"], ["M"]))
    m = g.q("M", np.array([-1.0, 1.0]))
    g.nodes.append(node("Identity", [m], ["Y"]))
    write("opt_qdq_gate.onnx", g.nodes, [x_in], [vi("Y", [1, 16, 8, 8])], g.inits)

    # A Conv whose Relu the quantization absorbed (its zero point the lowest
    # code) before a residual addition: the saturation is the Relu, so the
    # addition stays outside the convolution.
    g = Qdq()
    xd = g.q("X", np.array([-1.0, 1.0]))
    w, b = g.conv(xd, xs, 16, 16, 3, "C")
    y = np.maximum(conv2d(x, w, b), 0)
    g.nodes.append(node("Relu", ["C"], ["R"]))
    r = g.q("R", y, symmetric_at_zero=True)
    g.nodes.append(node("Add", [r, xd], ["S"]))
    s = g.q("S", y + x)
    g.nodes.append(node("Identity", [s], ["Y"]))
    write("opt_qdq_relu_residual.onnx", g.nodes, [x_in], [vi("Y", [1, 16, 8, 8])], g.inits)


# ---- QDQ matrix products with their epilogue (pass_qdq_matmul.c,
# pass_qmatmul_epilogue.c) ----

DRNG = np.random.default_rng(31)  # its own, so the models above keep theirs


def gelu(v):
    erf = np.vectorize(math.erf)
    return 0.5 * v * (1 + erf(v / math.sqrt(2)))


def qdq_dense():
    consts = [const("sqrt2", np.sqrt(2.0)), const("rsqrt2", 1 / np.sqrt(2.0)),
              const("one", 1.0), const("half", 0.5)]
    x = DRNG.uniform(-1, 1, (2, 8, 16)).astype(np.float32)
    x_in = vi("X", [2, 8, 16])
    xs = 2.0 / 255.0

    def weights(g, name, k, n, trans=False):
        """int8 weights per output column (per row of a transposed Gemm B)
        behind their DequantizeLinear; returns the float values as [K, N]."""
        w = (DRNG.standard_normal((k, n)) * 0.4).astype(np.float32)
        ws = (np.abs(w).max(axis=0) / 127.0).astype(np.float32)
        wq = np.clip(np.round(w / ws), -127, 127).astype(np.int8)
        g.const(name + "_wq", wq.T.copy() if trans else wq)
        g.const(name + "_ws", ws)
        g.const(name + "_wz", np.zeros(n, np.int8))
        g.nodes.append(node("DequantizeLinear", [name + "_wq", name + "_ws", name + "_wz"],
                            [name], axis=0 if trans else 1))
        return wq.astype(np.float32) * ws

    def bias(g, name, n):
        b = (DRNG.standard_normal(n) * 0.2).astype(np.float32)
        g.const(name, b)
        return b

    # What a QDQ transformer's FFN and projections look like:
    #  Y0: MatMul + bias + GELU (Erf), quantized (the next product reads it);
    #  Y1: Gemm (transB, C through an int32 DequantizeLinear) + Relu, quantized;
    #  Y2: MatMul + Relu, quantized (no bias: 1 / y_scale in the output scale);
    #  Y3: MatMul + bias + Sigmoid, float;
    #  Y4: MatMul + bias, float (stays MatMulIntegerToFloat, the bias inside).
    g = Qdq()
    xd = g.q("X", np.array([-1.0, 1.0]))
    w, b = weights(g, "W0", 16, 24), bias(g, "b0", 24)
    g.nodes += [node("MatMul", [xd, "W0"], ["m0"]), node("Add", ["b0", "m0"], ["a0"])]
    g.nodes += gelu_nodes("a0", "G0", 0, "g0")
    g.nodes.append(node("Identity", [g.q("G0", gelu(x @ w + b))], ["Y0"]))
    w = weights(g, "W1", 16, 12, trans=True)
    cs = (xs * np.abs(w).max(axis=0) / 127.0).astype(np.float32)
    cq = np.round((DRNG.standard_normal(12) * 0.2) / cs).astype(np.int32)
    g.const("C1_q", cq)
    g.const("C1_s", cs)
    g.nodes.append(node("DequantizeLinear", ["C1_q", "C1_s"], ["C1"], axis=0))
    # (Gemm's A is 2-D: its own input, the same values as [16, 16])
    xd2 = g.q("X2", np.array([-1.0, 1.0]))
    g.nodes += [node("Gemm", [xd2, "W1", "C1"], ["m1"], transB=1), node("Relu", ["m1"], ["r1"])]
    y1 = np.maximum(x.reshape(16, 16) @ w + cq * cs, 0)
    g.nodes.append(node("Identity", [g.q("r1", y1, symmetric_at_zero=True)], ["Y1"]))
    w = weights(g, "W2", 16, 20)
    g.nodes += [node("MatMul", [xd, "W2"], ["m2"]), node("Relu", ["m2"], ["r2"])]
    y2 = np.maximum(x @ w, 0)
    g.nodes.append(node("Identity", [g.q("r2", y2, symmetric_at_zero=True)], ["Y2"]))
    weights(g, "W3", 16, 8)
    bias(g, "b3", 8)
    g.nodes += [node("MatMul", [xd, "W3"], ["m3"]), node("Add", ["m3", "b3"], ["a3"]),
                node("Sigmoid", ["a3"], ["Y3"])]
    weights(g, "W4", 16, 8)
    bias(g, "b4", 8)
    g.nodes += [node("MatMul", [xd, "W4"], ["m4"]), node("Add", ["m4", "b4"], ["Y4"])]
    write("opt_qdq_dense.onnx", g.nodes, [x_in, vi("X2", [16, 16])],
          [vi("Y0", [2, 8, 24]), vi("Y1", [16, 12]), vi("Y2", [2, 8, 20]),
           vi("Y3", [2, 8, 8]), vi("Y4", [2, 8, 8])], g.inits + consts)

    # The negatives: the biased product is also a graph output (A1), so its
    # GELU and quantization stay outside; the product itself is (M2), so
    # its bias Add stays too.
    g = Qdq()
    xd = g.q("X", np.array([-1.0, 1.0]))
    w, b = weights(g, "W0", 16, 24), bias(g, "b0", 24)
    g.nodes += [node("MatMul", [xd, "W0"], ["m0"]), node("Add", ["m0", "b0"], ["A1"])]
    g.nodes += gelu_nodes("A1", "G0", 1, "g0")
    g.nodes.append(node("Identity", [g.q("G0", gelu(x @ w + b))], ["Y0"]))
    weights(g, "W2", 16, 8)
    bias(g, "b2", 8)
    g.nodes += [node("MatMul", [xd, "W2"], ["M2"]), node("Add", ["M2", "b2"], ["Y2"])]
    write("opt_qdq_dense_shared.onnx", g.nodes, [x_in],
          [vi("Y0", [2, 8, 24]), vi("A1", [2, 8, 24]), vi("Y2", [2, 8, 8]), vi("M2", [2, 8, 8])],
          g.inits + consts)


# ---- dynamically quantized matrix products (pass_dynamic_matmul.c) ----

def dynamic_dense():
    """What ONNX Runtime's quantize_dynamic writes for a MatMul: one
    DynamicQuantizeLinear for X, then per product MatMulInteger -> Cast ->
    Mul by Mul(X_scale, W_scale).
     Y0: int8 W per tensor, bias Add and GELU (Erf) after it;
     Y1: int8 W per column, the Muls' operands the other way round, no W
         zero point input;
     Y2: uint8 W with zero point 128 (the integer kernel takes int8 W only:
         the portable kernel serves it);
     Y3: the product's float copy is also a graph output: stays as it is."""
    rng = np.random.default_rng(41)
    consts = [const("sqrt2", np.sqrt(2.0)), const("one", 1.0), const("half", 0.5)]
    inits = list(consts)

    def add(name, value):
        inits.append(numpy_helper.from_array(np.asarray(value), name))

    def product(tag, wq, ws, wz, swap=False):
        ins = ["xq", tag + "_wq", "xz"] + ([tag + "_wz"] if wz is not None else [])
        add(tag + "_wq", wq)
        add(tag + "_ws", np.asarray(ws, np.float32))
        if wz is not None:
            add(tag + "_wz", wz)
        scales = ["xs", tag + "_ws"]
        return [node("MatMulInteger", ins, [tag + "_i32"]),
                node("Cast", [tag + "_i32"], [tag + "_f"], to=F),
                node("Mul", scales[::-1] if swap else scales, [tag + "_s"]),
                node("Mul", [tag + "_s", tag + "_f"] if swap else [tag + "_f", tag + "_s"],
                     [tag + "_y"])]

    nodes = [node("DynamicQuantizeLinear", ["X"], ["xq", "xs", "xz"])]
    w0 = rng.integers(-127, 128, (16, 24)).astype(np.int8)
    nodes += product("p0", w0, 0.02, np.int8(0))
    add("b0", (rng.standard_normal(24) * 0.2).astype(np.float32))
    nodes.append(node("Add", ["p0_y", "b0"], ["a0"]))
    nodes += gelu_nodes("a0", "Y0", 0, "g0")
    w1 = rng.integers(-127, 128, (16, 12)).astype(np.int8)
    nodes += product("p1", w1, rng.uniform(0.01, 0.03, 12), None, swap=True)
    nodes.append(node("Identity", ["p1_y"], ["Y1"]))
    w2 = rng.integers(0, 256, (16, 8)).astype(np.uint8)
    nodes += product("p2", w2, 0.02, np.uint8(128))
    nodes.append(node("Identity", ["p2_y"], ["Y2"]))
    w3 = rng.integers(-127, 128, (16, 8)).astype(np.int8)
    nodes += product("p3", w3, 0.02, np.int8(0))
    nodes.append(node("Identity", ["p3_y"], ["Y3"]))
    write("opt_dynamic_dense.onnx", nodes, [vi("X", [2, 8, 16])],
          [vi("Y0", [2, 8, 24]), vi("Y1", [2, 8, 12]), vi("Y2", [2, 8, 8]), vi("Y3", [2, 8, 8]),
           vi("p3_f", [2, 8, 8])], inits)


def main():
    os.makedirs(OUT, exist_ok=True)
    kiln_direct()
    basic()
    conv()
    dense()
    attention()
    layernorm()
    conv_inplace()  # last, so the models above keep their random weights
    horizontal()  # (and these after it, for the same reason)
    chains()
    zero_pads()
    pad_fold()
    qdq()
    qdq_dense()
    dynamic_dense()


if __name__ == "__main__":
    main()
