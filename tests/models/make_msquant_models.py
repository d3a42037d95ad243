#!/usr/bin/python3
"""Small ONNX models built on the com.microsoft quantized ops of QOperator
models (QLinearAdd, QLinearConcat, QGemm, ...), for test_msquant_vs_ort.py.

    /usr/bin/python3 tests/models/make_msquant_models.py OUT_DIR

Writes OUT_DIR/NAME/model.onnx with input_K.pb (random int8/uint8 or float
inputs, fixed seed) and meta.json: {"steps": [S, ...]}, one quantization
step per output (1 for an int8/uint8 output; for a float output the value
of one step of its integer product, a_scale * b_scale, so "within one
step" means the same thing for both; QAttention's outputs are float
attention, checked to 1e-4 absolute on values near 1).

Scales and zero points are initializers (constants) except in the *_dyn
models, where they are graph inputs: the kernels' paths for values that
are not known at load time. The last models are small QOperator CNNs built
by hand the way ONNX Runtime's quantizer writes them (QuantizeLinear ->
QLinearConv -> QLinearAdd -> ... -> DequantizeLinear).
"""
import json
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

MS = "com.microsoft"
RNG = np.random.RandomState(20240611)
ONNX_TYPE = {np.uint8: TensorProto.UINT8, np.int8: TensorProto.INT8,
             np.float32: TensorProto.FLOAT, np.int32: TensorProto.INT32,
             np.uint16: TensorProto.UINT16, np.int16: TensorProto.INT16}


def q_random(dtype, shape):
    info = np.iinfo(dtype)
    return RNG.randint(info.min, info.max + 1, size=shape).astype(dtype)


class Model:
    """A graph under construction: initializers, inputs with their data."""

    def __init__(self, name):
        self.name, self.nodes, self.inits, self.inputs, self.data = name, [], [], [], []
        self.outputs, self.steps = [], []

    def const(self, name, value):
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def scale(self, name, v):
        return self.const(name, np.float32(v))

    def zp(self, name, dtype, v):
        return self.const(name, np.array(v, dtype=dtype))

    def input(self, name, value):
        value = np.asarray(value)
        self.inputs.append(helper.make_tensor_value_info(
            name, ONNX_TYPE[value.dtype.type], list(value.shape)))
        self.data.append(numpy_helper.from_array(value, name))
        return name

    def node(self, op, inputs, outputs, domain=MS, **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, domain=domain, **attrs))
        return outputs[0]

    def output(self, name, elem_type, step=1.0):
        self.outputs.append(helper.make_tensor_value_info(name, elem_type, None))
        self.steps.append(float(step))

    def write(self, root):
        folder = os.path.join(root, self.name)
        os.makedirs(folder, exist_ok=True)
        graph = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs, self.inits)
        model = helper.make_model(graph, producer_name="kiln-msquant-test", opset_imports=[
            helper.make_opsetid("", 13), helper.make_opsetid(MS, 1)])
        model.ir_version = 8
        with open(os.path.join(folder, "model.onnx"), "wb") as f:
            f.write(model.SerializeToString())
        for k, t in enumerate(self.data):
            with open(os.path.join(folder, f"input_{k}.pb"), "wb") as f:
                f.write(t.SerializeToString())
        with open(os.path.join(folder, "meta.json"), "w") as f:
            json.dump({"steps": self.steps}, f)


def qt(dtype):
    return ONNX_TYPE[dtype]


# ---- elementwise ----

def binary(op, dtype, a_shape, b_shape, scales, zps, name, dynamic=False):
    m = Model(name)
    a = m.input("A", q_random(dtype, a_shape))
    b = m.input("B", q_random(dtype, b_shape))
    names = []
    for which, s, z in zip("ABC", scales, zps):
        if dynamic:
            names += [m.input(f"{which}_scale", np.float32(s)),
                      m.input(f"{which}_zp", np.array(z, dtype=dtype))]
        else:
            names += [m.scale(f"{which}_scale", s), m.zp(f"{which}_zp", dtype, z)]
    m.node(op, [a, names[0], names[1], b, names[2], names[3], names[4], names[5]], ["C"])
    m.output("C", qt(dtype))
    return m


def lookup(op, dtype, shape, xs, xz, ys, yz, name, dynamic=False, **attrs):
    m = Model(name)
    x = m.input("X", q_random(dtype, shape))
    if dynamic:
        params = [m.input("X_scale", np.float32(xs)), m.input("X_zp", np.array(xz, dtype=dtype)),
                  m.input("Y_scale", np.float32(ys)), m.input("Y_zp", np.array(yz, dtype=dtype))]
    else:
        params = [m.scale("X_scale", xs), m.zp("X_zp", dtype, xz), m.scale("Y_scale", ys),
                  m.zp("Y_zp", dtype, yz)]
    m.node(op, [x] + params, ["Y"], **attrs)
    m.output("Y", qt(dtype))
    return m


# ---- pools, concat, softmax ----

def avgpool(dtype, shape, name, **attrs):
    m = Model(name)
    x = m.input("X", q_random(dtype, shape))
    m.node("QLinearAveragePool", [x, m.scale("xs", 0.05), m.zp("xz", dtype, 3),
                                  m.scale("ys", 0.03), m.zp("yz", dtype, -5 if dtype == np.int8 else 120)],
           ["Y"], **attrs)
    m.output("Y", qt(dtype))
    return m


def global_pool(dtype, shape, channels_last, name):
    m = Model(name)
    x = m.input("X", q_random(dtype, shape))
    m.node("QLinearGlobalAveragePool", [x, m.scale("xs", 0.07), m.zp("xz", dtype, 10),
                                        m.scale("ys", 0.02), m.zp("yz", dtype, 7)],
           ["Y"], channels_last=channels_last)
    m.output("Y", qt(dtype))
    return m


def concat(dtype, shapes, scales, zps, y_scale, y_zp, axis, name):
    m = Model(name)
    ins = [m.scale("ys", y_scale), m.zp("yz", dtype, y_zp)]
    for i, (shape, s, z) in enumerate(zip(shapes, scales, zps)):
        ins += [m.input(f"X{i}", q_random(dtype, shape)), m.scale(f"s{i}", s), m.zp(f"z{i}", dtype, z)]
    m.node("QLinearConcat", ins, ["Y"], axis=axis)
    m.output("Y", qt(dtype))
    return m


def softmax(dtype, shape, x_scale, opset, axis, name):
    m = Model(name)
    # outputs in [0, 1]: 1/256 steps, zero point at the type's bottom, as
    # ONNX Runtime's quantizer writes them
    y_zp = 0 if dtype == np.uint8 else -128
    x = m.input("X", q_random(dtype, shape))
    m.node("QLinearSoftmax", [x, m.scale("xs", x_scale), m.zp("xz", dtype, 5),
                              m.scale("ys", 1.0 / 256), m.zp("yz", dtype, y_zp)],
           ["Y"], axis=axis, opset=opset)
    m.output("Y", qt(dtype))
    return m


# ---- products ----

def qgemm(a_dtype, b_dtype, m_, k_, n_, name, trans_a=0, trans_b=0, alpha=1.0, float_out=False,
          per_column=True, bias_shape=None):
    m = Model(name)
    a_shape = (k_, m_) if trans_a else (m_, k_)
    b_shape = (n_, k_) if trans_b else (k_, n_)
    a = m.input("A", q_random(a_dtype, a_shape))
    b = m.const("B", q_random(b_dtype, b_shape))
    a_s, b_s = 0.02, (RNG.uniform(0.005, 0.02, n_) if per_column else np.float32(0.01))
    b_s = np.asarray(b_s, dtype=np.float32)
    b_z = np.zeros(b_s.shape, dtype=b_dtype) if b_dtype == np.int8 else \
        RNG.randint(100, 156, size=b_s.shape).astype(b_dtype)
    ins = [a, m.scale("a_s", a_s), m.zp("a_z", a_dtype, 3), b, m.const("b_s", b_s), m.const("b_z", b_z)]
    if bias_shape is not None:
        ins.append(m.const("C", RNG.randint(-5000, 5000, size=bias_shape).astype(np.int32)))
    else:
        ins.append("")
    if not float_out:
        ins += [m.scale("y_s", 0.5), m.zp("y_z", a_dtype, 5)]
    m.node("QGemm", ins, ["Y"], transA=trans_a, transB=trans_b, alpha=alpha)
    if float_out:
        m.output("Y", TensorProto.FLOAT, alpha * a_s * float(b_s.max()))
    else:
        m.output("Y", qt(a_dtype))
    return m


def dynamic_quantize_matmul(b_dtype, a_shape, k_, n_, name):
    m = Model(name)
    a = RNG.normal(0, 2, size=a_shape).astype(np.float32)
    m.input("A", a)
    b_s = RNG.uniform(0.01, 0.03, n_).astype(np.float32)
    b_z = (RNG.randint(-3, 4, n_) if b_dtype == np.int8 else RNG.randint(120, 136, n_)).astype(b_dtype)
    ins = ["A", m.const("B", q_random(b_dtype, (k_, n_))), m.const("b_s", b_s), m.const("b_z", b_z),
           m.const("bias", RNG.normal(0, 1, n_).astype(np.float32))]
    m.node("DynamicQuantizeMatMul", ins, ["Y"])
    lo, hi = min(float(a.min()), 0.0), max(float(a.max()), 0.0)
    m.output("Y", TensorProto.FLOAT, (hi - lo) / 255 * float(b_s.max()))
    return m


def dynamic_matmul_chain(a_shape, k_, n_, name, per_column=False):
    """The standard-op graph ONNX Runtime's quantize_dynamic writes for a
    MatMul (Kiln fuses it into one integer product, pass_dynamic_matmul.c):
    DynamicQuantizeLinear(A) -> MatMulInteger(Aq, B int8, Az, Bz) -> Cast ->
    Mul by Mul(A_scale, B_scale) -> Add(bias)."""
    m = Model(name)
    a = RNG.normal(0, 2, size=a_shape).astype(np.float32)
    m.input("A", a)
    b_s = RNG.uniform(0.01, 0.03, n_ if per_column else ()).astype(np.float32)
    m.const("B", q_random(np.int8, (k_, n_)))
    m.const("b_s", b_s)
    m.zp("b_z", np.int8, 0)
    m.const("bias", RNG.normal(0, 1, n_).astype(np.float32))
    m.node("DynamicQuantizeLinear", ["A"], ["Aq", "A_s", "A_z"], domain="")
    m.node("MatMulInteger", ["Aq", "B", "A_z", "b_z"], ["acc"], domain="")
    m.node("Cast", ["acc"], ["acc_f"], domain="", to=TensorProto.FLOAT)
    m.node("Mul", ["A_s", "b_s"], ["scales"], domain="")
    m.node("Mul", ["acc_f", "scales"], ["prod"], domain="")
    m.node("Add", ["prod", "bias"], ["Y"], domain="")
    lo, hi = min(float(a.min()), 0.0), max(float(a.max()), 0.0)
    m.output("Y", TensorProto.FLOAT, (hi - lo) / 255 * float(b_s.max()))
    return m


def matmul_integer_to_float(a_dtype, b_dtype, a_shape, k_, n_, name):
    m = Model(name)
    a = m.input("A", q_random(a_dtype, a_shape))
    b_s = RNG.uniform(0.01, 0.03, n_).astype(np.float32)
    b_z = (RNG.randint(-3, 4, n_) if b_dtype == np.int8 else RNG.randint(120, 136, n_)).astype(b_dtype)
    ins = [a, m.const("B", q_random(b_dtype, (k_, n_))), m.scale("a_s", 0.04), m.const("b_s", b_s),
           m.zp("a_z", a_dtype, 7), m.const("b_z", b_z),
           m.const("bias", RNG.normal(0, 1, n_).astype(np.float32))]
    m.node("MatMulIntegerToFloat", ins, ["Y"])
    m.output("Y", TensorProto.FLOAT, 0.04 * float(b_s.max()))
    return m


def qattention(name, batch, seq, d, hidden, heads, mask=None, unidirectional=0, past_len=0,
               per_column=False):
    """QAttention as ONNX Runtime's dynamic quantization writes it for BERT:
    uint8 input, int8 weight, float bias; optional mask_index and past."""
    m = Model(name)
    x = m.input("input", q_random(np.uint8, (batch, seq, d)))
    w = m.const("weight", q_random(np.int8, (d, 3 * hidden)))
    b = m.const("bias", RNG.normal(0, 0.5, 3 * hidden).astype(np.float32))
    ws = (RNG.uniform(0.002, 0.006, 3 * hidden) if per_column else np.array(0.004)).astype(np.float32)
    ins = [x, w, b, m.scale("input_scale", 0.02), m.const("weight_scale", ws)]
    ins.append(m.input("mask_index", np.asarray(mask, dtype=np.int32)) if mask is not None else "")
    ins += [m.zp("input_zp", np.uint8, 128), m.zp("weight_zp", np.int8, 0)]
    outputs = ["output"]
    if past_len:
        ins.append(m.input("past", RNG.normal(0, 1, (2, batch, heads, past_len, hidden // heads))
                           .astype(np.float32)))
        outputs.append("present")
    m.node("QAttention", ins, outputs, num_heads=heads, unidirectional=unidirectional)
    for o in outputs:
        m.output(o, TensorProto.FLOAT, 1e-4)  # float attention: ORT's float order, not a step
    return m


def contrib_qdq(name, q_type, scale, zp, axis=None, shape=(2, 3, 4)):
    """com.microsoft QuantizeLinear -> DequantizeLinear, as the quantizer
    writes them for 16-bit tensors (and 8-bit per axis); both results are
    outputs. (4-bit ones need onnx >= 1.16 to write; this onnx is older.)"""
    m = Model(name)
    x = RNG.uniform(-3, 3, size=shape).astype(np.float32)
    x.flat[:4] = [0.0, 2.5 * float(np.asarray(scale).flat[0]), 1e6, -1e6]  # a tie, both ends
    m.input("X", x)
    attrs = {} if axis is None else {"axis": axis}
    qs = [m.const("s", np.asarray(scale, dtype=np.float32)), m.const("z", np.asarray(zp).astype(q_type))]
    m.node("QuantizeLinear", ["X"] + qs, ["Q"], **attrs)
    m.node("DequantizeLinear", ["Q"] + qs, ["Y"], **attrs)
    m.output("Y", TensorProto.FLOAT, float(np.max(scale)))
    m.output("Q", ONNX_TYPE[q_type])
    return m


# ---- QOperator CNNs, as ONNX Runtime's quantizer writes them ----

def conv_weights(m, name, cout, cin, k):
    w = m.const(name + "_w", q_random(np.int8, (cout, cin, k, k)))
    ws = m.const(name + "_ws", RNG.uniform(0.002, 0.006, cout).astype(np.float32))
    wz = m.const(name + "_wz", np.zeros(cout, dtype=np.int8))
    b = m.const(name + "_b", RNG.randint(-2000, 2000, cout).astype(np.int32))
    return w, ws, wz, b


def qconv(m, x, xs, xz, name, cout, cin, k, ys, yz, **attrs):
    w, ws, wz, b = conv_weights(m, name, cout, cin, k)
    return m.node("QLinearConv", [x, xs, xz, w, ws, wz, ys, yz, b], [name], domain="", **attrs)


def cnn(name, dtype):
    """QuantizeLinear -> QLinearConv -> (residual QLinearConv, QLinearAdd) ->
    QLinearLeakyRelu -> QLinearAveragePool -> QLinearConcat with a
    QLinearSigmoid branch -> QLinearGlobalAveragePool -> QGemm ->
    QLinearSoftmax, and the pooled features dequantized as a second output."""
    m = Model(name)
    m.input("image", RNG.uniform(-1, 1, size=(1, 3, 16, 16)).astype(np.float32))
    zero = 0 if dtype == np.uint8 else -10
    s = {k: m.scale("s_" + k, v) for k, v in
         dict(in_=0.008, c1=0.03, c2=0.03, add=0.05, act=0.05, pool=0.04, sig=1 / 256.0,
              cat=0.05, gap=0.03, fc=0.1).items()}
    z = {k: m.zp("z_" + k, dtype, zero if k != "sig" else (0 if dtype == np.uint8 else -128))
         for k in ["in_", "c1", "c2", "add", "act", "pool", "sig", "cat", "gap", "fc"]}
    x = m.node("QuantizeLinear", ["image", s["in_"], z["in_"]], ["x_q"], domain="")
    c1 = qconv(m, x, s["in_"], z["in_"], "conv1", 8, 3, 3, s["c1"], z["c1"], pads=[1, 1, 1, 1])
    c2 = qconv(m, c1, s["c1"], z["c1"], "conv2", 8, 8, 3, s["c2"], z["c2"], pads=[1, 1, 1, 1])
    add = m.node("QLinearAdd", [c1, s["c1"], z["c1"], c2, s["c2"], z["c2"], s["add"], z["add"]], ["add"])
    act = m.node("QLinearLeakyRelu", [add, s["add"], z["add"], s["act"], z["act"]], ["act"], alpha=0.1)
    pool = m.node("QLinearAveragePool", [act, s["act"], z["act"], s["pool"], z["pool"]], ["pool"],
                  kernel_shape=[2, 2], strides=[2, 2])
    sig = m.node("QLinearSigmoid", [pool, s["pool"], z["pool"], s["sig"], z["sig"]], ["sig"])
    cat = m.node("QLinearConcat", [s["cat"], z["cat"], pool, s["pool"], z["pool"], sig, s["sig"],
                                   z["sig"]], ["cat"], axis=1)
    gap = m.node("QLinearGlobalAveragePool", [cat, s["cat"], z["cat"], s["gap"], z["gap"]], ["gap"],
                 channels_last=0)
    flat = m.node("Flatten", [gap], ["flat"], domain="", axis=1)
    fc_w = m.const("fc_w", q_random(np.int8, (10, 16)))
    fc_ws = m.const("fc_ws", RNG.uniform(0.01, 0.03, 10).astype(np.float32))
    fc_wz = m.const("fc_wz", np.zeros(10, dtype=np.int8))
    fc_b = m.const("fc_b", RNG.randint(-500, 500, 10).astype(np.int32))
    fc = m.node("QGemm", [flat, s["gap"], z["gap"], fc_w, fc_ws, fc_wz, fc_b, s["fc"], z["fc"]], ["fc"],
                transB=1)
    m.node("QLinearSoftmax", [fc, s["fc"], z["fc"], s["sig"], z["sig"]], ["probs"], axis=-1, opset=13)
    m.node("DequantizeLinear", [gap, s["gap"], z["gap"]], ["features"], domain="")
    m.output("probs", qt(dtype))
    m.output("fc", qt(dtype))
    m.output("features", TensorProto.FLOAT, 0.03)
    for t in ["x_q", "conv1", "conv2", "add", "act", "pool", "sig", "cat", "gap"]:
        m.output(t, qt(dtype))
    return m


def mobilenet_block(name, dtype):
    """The shape of a QOperator MobileNet-V2 from the model zoo, small:
    stem conv (stride 2) -> inverted residual (1x1 expand, 3x3 depthwise,
    1x1 project, QLinearAdd with the block input) -> QLinearGlobalAveragePool
    -> QGemm classifier -> DequantizeLinear; scales of calibrated-looking
    values (no decimal ties). Every intermediate tensor is an output."""
    m = Model(name)
    m.input("image", RNG.uniform(-1, 1, size=(1, 3, 32, 32)).astype(np.float32))
    zero = 0 if dtype == np.uint8 else -128
    names = ["in_", "stem", "expand", "dw", "project", "add", "gap", "fc"]
    vals = [0.0078431, 0.0231947, 0.0235294, 0.0235294, 0.0418272, 0.0519834, 0.0197311, 0.0871564]
    s = {k: m.scale("s_" + k, v) for k, v in zip(names, vals)}
    # activations after ReLU6 use the whole range from the zero point up
    z = {k: m.zp("z_" + k, dtype, zero if k in ("stem", "expand", "dw", "gap") else
                 (128 if dtype == np.uint8 else 0)) for k in names}
    x = m.node("QuantizeLinear", ["image", s["in_"], z["in_"]], ["x_q"], domain="")
    stem = qconv(m, x, s["in_"], z["in_"], "stem", 16, 3, 3, s["stem"], z["stem"], pads=[1, 1, 1, 1],
                 strides=[2, 2])
    ex = qconv(m, stem, s["stem"], z["stem"], "expand", 48, 16, 1, s["expand"], z["expand"])
    dw = qconv(m, ex, s["expand"], z["expand"], "dw", 48, 1, 3, s["dw"], z["dw"], pads=[1, 1, 1, 1],
               group=48)
    pr = qconv(m, dw, s["dw"], z["dw"], "project", 16, 48, 1, s["project"], z["project"])
    add = m.node("QLinearAdd", [stem, s["stem"], z["stem"], pr, s["project"], z["project"], s["add"],
                                z["add"]], ["add"])
    gap = m.node("QLinearGlobalAveragePool", [add, s["add"], z["add"], s["gap"], z["gap"]], ["gap"],
                 channels_last=0)
    flat = m.node("Flatten", [gap], ["flat"], domain="", axis=1)
    fc = m.node("QGemm", [flat, s["gap"], z["gap"], m.const("fc_w", q_random(np.int8, (10, 16))),
                          m.const("fc_ws", RNG.uniform(0.002, 0.004, 10).astype(np.float32)),
                          m.const("fc_wz", np.zeros(10, dtype=np.int8)),
                          m.const("fc_b", RNG.randint(-3000, 3000, 10).astype(np.int32)),
                          s["fc"], z["fc"]], ["fc"], transB=1)
    m.node("DequantizeLinear", [fc, s["fc"], z["fc"]], ["logits"], domain="")
    m.output("logits", TensorProto.FLOAT, vals[-1])
    for t in ["x_q", "stem", "expand", "dw", "project", "add", "gap", "fc"]:
        m.output(t, qt(dtype))
    return m


def all_models():
    u8, i8 = np.uint8, np.int8
    return [
        binary("QLinearAdd", u8, (2, 3, 4, 5), (3, 1, 5), (0.05, 0.07, 0.06), (120, 130, 128), "qadd_u8_bcast"),
        binary("QLinearAdd", i8, (4, 33), (1,), (0.1, 0.2, 0.05), (-3, 4, 0), "qadd_i8_saturating"),
        binary("QLinearAdd", u8, (3, 1, 7), (1, 4, 7), (0.05, 0.05, 0.1), (128, 128, 100), "qadd_u8_dyn",
               dynamic=True),
        binary("QLinearMul", u8, (2, 8, 9), (8, 1), (0.02, 0.03, 0.01), (128, 120, 10), "qmul_u8_bcast"),
        binary("QLinearMul", i8, (5, 6), (5, 6), (0.05, 0.04, 0.01), (0, -2, 3), "qmul_i8"),
        lookup("QLinearSigmoid", u8, (3, 40), 0.05, 128, 1 / 256.0, 0, "qsigmoid_u8"),
        lookup("QLinearSigmoid", i8, (300,), 0.04, -3, 1 / 256.0, -128, "qsigmoid_i8_dyn", dynamic=True),
        lookup("QLinearLeakyRelu", u8, (2, 50), 0.1, 100, 0.08, 60, "qleakyrelu_u8", alpha=0.1),
        lookup("QLinearLeakyRelu", i8, (7, 9), 0.1, 5, 0.05, -20, "qleakyrelu_i8", alpha=0.3),
        avgpool(u8, (2, 3, 9, 9), "qavgpool_u8_pads", kernel_shape=[3, 3], strides=[2, 2],
                pads=[1, 1, 1, 1]),
        avgpool(i8, (1, 4, 7, 8), "qavgpool_i8_include_pad", kernel_shape=[3, 2], strides=[2, 1],
                pads=[1, 0, 1, 1], count_include_pad=1),
        avgpool(u8, (2, 6, 5, 3), "qavgpool_u8_nhwc", kernel_shape=[2, 2], strides=[1, 1],
                channels_last=1),
        avgpool(i8, (1, 2, 10), "qavgpool_i8_1d_ceil", kernel_shape=[3], strides=[2], ceil_mode=1),
        global_pool(u8, (2, 5, 6, 7), 0, "qglobalpool_u8"),
        global_pool(i8, (3, 4, 5, 6), 1, "qglobalpool_i8_nhwc"),
        concat(u8, [(2, 3, 4), (2, 1, 4), (2, 5, 4)], [0.05, 0.1, 0.02], [128, 100, 128], 0.05, 128, 1,
               "qconcat_u8_axis1"),
        concat(i8, [(3, 2), (3, 5)], [0.3, 0.1], [0, -4], 0.1, -4, -1, "qconcat_i8_last_axis"),
        softmax(u8, (4, 10), 0.1, 13, -1, "qsoftmax_u8_last"),
        softmax(i8, (2, 6, 3), 0.05, 13, 1, "qsoftmax_i8_axis1"),
        softmax(u8, (3, 2, 5), 0.08, 12, 1, "qsoftmax_u8_opset12"),
        qgemm(u8, i8, 5, 17, 6, "qgemm_u8_i8"),
        qgemm(u8, u8, 4, 9, 7, "qgemm_u8_u8_trans", trans_a=1, trans_b=1, per_column=False,
              bias_shape=(7,)),
        qgemm(i8, i8, 3, 12, 5, "qgemm_i8_bias_rows", bias_shape=(3, 1), alpha=0.5),
        qgemm(u8, i8, 6, 10, 4, "qgemm_float_out", float_out=True, bias_shape=(1, 4), trans_b=1),
        dynamic_quantize_matmul(i8, (2, 3, 16), 16, 5, "dqmm_i8"),
        dynamic_quantize_matmul(u8, (7, 20), 20, 3, "dqmm_u8"),
        matmul_integer_to_float(u8, i8, (2, 4, 12), 12, 6, "mmitf_u8_i8"),
        dynamic_matmul_chain((2, 5, 24), 24, 10, "dynamic_matmul_chain"),
        dynamic_matmul_chain((9, 32), 32, 7, "dynamic_matmul_chain_per_column", per_column=True),
        qattention("qattention_mask_end", 2, 5, 12, 8, 2, mask=[5, 3]),
        qattention("qattention_raw_mask_causal", 2, 4, 8, 12, 3,
                   mask=[[1, 1, 0, 1], [1, 1, 1, 1]], unidirectional=1, per_column=True),
        qattention("qattention_past_start_end", 1, 3, 8, 8, 2, mask=[4, 1], past_len=2),
        contrib_qdq("ms_qdq_u16", np.uint16, 0.001, 32768),
        contrib_qdq("ms_qdq_i16_axis", np.int16, [0.001, 0.002, 0.0005], [0, -100, 7], axis=1),
        contrib_qdq("ms_qdq_i8_axis", i8, [0.02, 0.03, 0.01], [1, -2, 0], axis=1),
        cnn("qoperator_cnn_u8", u8),
        cnn("qoperator_cnn_i8", i8),
        mobilenet_block("qoperator_mobilenet_block_u8", u8),
        mobilenet_block("qoperator_mobilenet_block_i8", i8),
    ]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for m in all_models():
        m.write(sys.argv[1])


if __name__ == "__main__":
    main()
