"""ONNX Runtime as an exact reference for int8 models on CPUs without VNNI.

On x86 CPUs without AVX-VNNI or AVX512-VNNI, ONNX Runtime multiplies
uint8 activations by int8 weights with VPMADDUBSW, which adds two byte
products into a saturating int16: 255 x -128 twice is -65280, kept as
-32768. Its quantization guide says so ("might suffer from saturation
issues"; its answer is 7-bit weights or U8U8). Kiln's int8 kernels are
exact there, so comparing the two on such a CPU measures ONNX Runtime's
saturation, not Kiln (seen on an AMD EPYC Zen 3: thousands of steps apart
on products where Kiln matched NumPy's exact sum to 0.005 steps).

The reference those checks need is ONNX Runtime run on the same function
with its uint8 x uint8 kernels, which widen to int16 before multiplying and
do not saturate. `u8_weight_model` writes it: every int8 weight initializer
W with zero point Z, in the weight slot of a quantized product or in a
DequantizeLinear, becomes the uint8 W + 128 with zero point Z + 128 (the
differences W - Z are the same numbers, so the model computes the same
function). Used by tools/compare_with_ort.py and the int8 tests that compare
against ONNX Runtime.
"""
import os
import platform
import sys

import numpy as np
from onnx import TensorProto, load, numpy_helper, save

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cpu_info  # noqa: E402

# op type -> (weight input index, weight zero-point input index)
WEIGHT_SLOTS = {
    "QLinearConv": (3, 5),
    "QLinearMatMul": (3, 5),
    "MatMulInteger": (1, 3),
    "ConvInteger": (1, 3),
    "QGemm": (3, 5),
    "MatMulIntegerToFloat": (1, 5),
    "DynamicQuantizeMatMul": (1, 3),
    "QAttention": (1, 7),
    "DequantizeLinear": (0, 2),
}
# op type -> (activation input index, its zero point's index): only uint8
# activations meet the saturating kernels (int8 ones take ORT's exact int8 x
# int8 path, which has no int8 x uint8 counterpart). DynamicQuantizeMatMul
# quantizes its float input to uint8 itself; a DequantizeLinear weight meets
# whatever its consumer's activations are, and ORT runs an unfused pair in
# float, so those are always rewritten.
ACTIVATION_SLOTS = {
    "QLinearConv": (0, 2),
    "QLinearMatMul": (0, 2),
    "MatMulInteger": (0, 2),
    "ConvInteger": (0, 2),
    "QGemm": (0, 2),
    "MatMulIntegerToFloat": (0, 4),
    "QAttention": (0, 6),
}


def ort_saturates_u8s8():
    """Whether ONNX Runtime's uint8 x int8 products may saturate here: an
    x86-64 CPU without a VNNI byte dot product."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return False
    flags = cpu_info.cpu_flags()
    return not ({"avx512_vnni", "avx_vnni"} & flags)


def note():
    """One line saying why the reference model differs from the tested one."""
    return (f"note: ONNX Runtime's uint8 x int8 products saturate on this CPU ({cpu_info.describe_cpu()}, "
            "no VNNI); its reference runs the same model with int8 weights stored as uint8 "
            "(w + 128, zero point + 128), the same function on its exact uint8 x uint8 kernels")


def element_types(graph):
    """name -> TensorProto element type, where the graph declares it."""
    types = {t.name: t.data_type for t in graph.initializer}
    for v in list(graph.input) + list(graph.value_info) + list(graph.output):
        if v.type.HasField("tensor_type"):
            types.setdefault(v.name, v.type.tensor_type.elem_type)
    # the quantizers' outputs, which models seldom declare
    for node in graph.node:
        if node.op_type == "DynamicQuantizeLinear":
            types.setdefault(node.output[0], TensorProto.UINT8)
        elif node.op_type == "QuantizeLinear":
            zp = node.input[2] if len(node.input) > 2 else ""
            types.setdefault(node.output[0], types.get(zp, TensorProto.UINT8))
    return types


def activation_is_u8(node, types):
    slots = ACTIVATION_SLOTS.get(node.op_type)
    if slots is None:
        return True
    for at in slots:
        if len(node.input) > at and node.input[at] in types:
            return types[node.input[at]] == TensorProto.UINT8
    return False  # unknown: leave the weight as it is


def u8_weight_model(src, dst):
    """Writes to dst the model src with its int8 weight initializers as
    uint8 (see the module's text). Returns how many weights changed."""
    model = load(src)
    changed = 0
    for graph in [model.graph]:
        inits = {t.name: t for t in graph.initializer}
        types = element_types(graph)
        made = {}

        def shifted(name, dtype_needed, like=None):
            """The uint8 + 128 copy of int8 initializer `name` (or, for an
            absent zero point, a uint8 128 shaped like `like`)."""
            key = (name, like)
            if key in made:
                return made[key]
            if name:
                values = numpy_helper.to_array(inits[name]).astype(np.int16) + 128
                new_name = name + "__u8"
            else:
                shape = numpy_helper.to_array(inits[like]).shape if like in inits else ()
                values = np.full(shape, 128, np.int16)
                new_name = (like or "zero_point") + "__u8_zero_point"
            graph.initializer.append(numpy_helper.from_array(values.astype(np.uint8), new_name))
            made[key] = new_name
            return new_name

        for node in graph.node:
            slots = WEIGHT_SLOTS.get(node.op_type)
            if not slots:
                continue
            w_at, z_at = slots
            if len(node.input) <= w_at or node.input[w_at] not in inits:
                continue
            w = inits[node.input[w_at]]
            if w.data_type != TensorProto.INT8 or not activation_is_u8(node, types):
                continue
            zp = node.input[z_at] if len(node.input) > z_at else ""
            if zp and (zp not in inits or inits[zp].data_type != TensorProto.INT8):
                continue
            if node.op_type == "DequantizeLinear":
                # an absent zero point is shaped like the scale (input 1)
                new_zp = shifted(zp, TensorProto.UINT8, None if zp else node.input[1])
            else:
                # an absent weight zero point of these ops is a scalar 0
                new_zp = shifted(zp, TensorProto.UINT8, None)
            node.input[w_at] = shifted(w.name, TensorProto.UINT8)
            while len(node.input) <= z_at:
                node.input.append("")
            node.input[z_at] = new_zp
            changed += 1
    if changed:
        # the "__u8" copies replace the originals wherever they were used
        used = {i for n in model.graph.node for i in n.input}
        keep = [t for t in model.graph.initializer if t.name in used or t.name in
                {o.name for o in model.graph.output}]
        del model.graph.initializer[:]
        model.graph.initializer.extend(keep)
    save(model, dst)
    return changed


def reference_model(src, dst):
    """The model ONNX Runtime should run as the reference for src: dst (the
    u8-weight model) where its products would saturate and src has int8
    weights; otherwise src itself. Returns (path, note or None)."""
    if not ort_saturates_u8s8():
        return src, None
    if u8_weight_model(src, dst) == 0:
        return src, None
    return dst, note()
