#!/usr/bin/python3
"""Export a wide benchmark set of real architectures to ONNX for Kiln's
side-by-side checks (beyond the six of tools/export_models.py).

    /usr/bin/python3 tools/export_wide_models.py OUTDIR [--models NAME,...] [--force]

Models (opset 17, static shapes, dynamo-free torch.onnx.export); unless said
otherwise the input is "input" float32 N(0, 1) and the output "output":
  Image classifiers, torchvision, input [1,3,224,224], output [1,1000]:
    googlenet           aux_logits=False, init_weights=True
    inception_v3        input [1,3,299,299]; aux_logits=False, init_weights=True
    convnext_tiny       layer scales drawn U(0.1, 0.5) per channel (see below)
    swin_t
    maxvit_t
    regnet_y_400mf
    mnasnet1_0
    shufflenet_v2_x1_0
    densenet121
    efficientnet_v2_s   at 224 (trained at 384; any size works)
    mobilenet_v3_large
  nhwc_keras            a MobileNetV2-like CNN written the way tf2onnx writes a
                        Keras model: input [1,224,224,3] NHWC, every Conv
                        wrapped in Transpose NHWC->NCHW and back, BatchNorm
                        folded into the Conv, ReLU6 (Clip), ZeroPadding2D-style
                        asymmetric Pads and residual Adds in NHWC, then
                        GlobalAveragePooling2D (ReduceMean over axes 1,2) and a
                        Dense layer as MatMul + Add; output [1,1000]. torch's
                        exporter drops the back-to-back Transpose pair between
                        two Convs (7 places), and computes each Pad's pads
                        with a small chain of shape ops where tf2onnx would
                        write a constant.
  Video: r3d_18         input [1,3,8,112,112] (8 frames), output [1,400]
  Optical flow: raft_small
                        inputs "image1", "image2" [1,3,128,128]; 4 flow
                        updates (12 in the paper) to keep it small; output
                        "flow" [1,2,128,128], the last of the flow estimates
  Segmentation, input [1,3,224,224], output "out" [1,21,224,224]:
    deeplabv3_mobilenet_v3_large   aux_loss=False
    lraspp_mobilenet_v3_large
  Detection, input [1,3,320,320] U(0, 1) (the detectors' image convention);
  each is wrapped to take one NCHW tensor instead of a list of images and to
  return the first image's "boxes" float [N,4], "scores" float [N] and
  "labels" int64 [N] (N depends on the data):
    ssdlite320_mobilenet_v3_large  score_thresh=0.01, detections_per_img=30
    fasterrcnn_mobilenet_v3_large_320_fpn
                        box_score_thresh=0.05, box_detections_per_img=30
  Audio (torchaudio; skipped with a message when it is not installed):
    wav2vec2_base       input "waveform" [1,16000] (1 s at 16 kHz), output
                        the last layer's features [1,49,768]
    conformer           Conformer(input_dim=80, num_heads=4, ffn_dim=256,
                        num_layers=4, depthwise_conv_kernel_size=31); inputs
                        "features" float [1,200,80] and "lengths" int64 [1] =
                        200; output the encoded features [1,200,80]

Writes OUTDIR/NAME/model.onnx and OUTDIR/NAME/input_K.pb (serialized
TensorProtos named after the graph inputs), like tools/export_models.py.
Models already present are skipped unless --force. Prints each model's size,
node count, op histogram, output std and export time. A model that fails to
export is reported and the rest go on; the exit code is then 1.

Why the weights are adjusted: pretrained weights cannot be downloaded here, so
weights are random but seeded, adjusted as tools/export_models.py does (its
docstring has the full argument) so that activations stay of order one and
every term of the graph matters: every BatchNorm gets random affine
parameters and running statistics measured on one random calibration batch
of the model's own input kind (images, clips, spectrogram features...);
LayerNorms and GroupNorms get random affine parameters; parameters torch
initialises to exactly zero get small random values. Three model-specific
adjustments on top:
  - ConvNeXt initialises its per-channel layer scales to 1e-6, which makes
    every residual block a near-identity that a comparison cannot see; they
    are drawn U(0.1, 0.5) instead, the range of a trained ConvNeXt's.
  - MobileNetV3's classifier Linears are initialised N(0, 0.01): the hidden
    layer's values are ~0.01, where Hardswish is nearly linear, and the
    logits' std is ~0.02. Both Linears are rescaled to output std 1 on the
    calibration batch.
  - The detectors' classification layers (SSD's per-level class logits,
    Faster R-CNN's RPN objectness and box classifier) are rescaled so that
    their logits have std 2 on the calibration batch. At initialisation the
    logits are ~0, so every score is ~1/91 (or ~0.5 for objectness) and the
    top-k, score-threshold and NMS decisions hinge on differences of 1e-6:
    rounding alone would change which boxes come out. With spread logits the
    kept scores are well separated; the thresholds above are set so that
    some tens of boxes survive (the defaults keep none for Faster R-CNN and
    hundreds of near-ties for SSD), and the per-image limit keeps the
    outputs small.
The output std checked against export_models.STD_FAIL is the first output's;
for the detectors it is the std of boxes / image size (labels are integer
class ids and are not checked; scores are probabilities, bounded by
construction), and at least one detection must survive.

Faster R-CNN needs one exporter fix: torchvision 0.14 exports roi_align
without RoiAlign-16's coordinate_transformation_mode, which at opset 17 then
defaults to the aligned=True convention; roi_align_opset16 below writes the
mode, without which ONNX Runtime's detections differ from torch's.
"""
import argparse
import collections
import os
import shutil
import sys
import tempfile
import time
import traceback
import typing
import warnings

import numpy as np
import onnx
import onnx.numpy_helper
import torch
import torch.nn.functional as F
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_models as em  # noqa: E402  (the shared weight adjustments and constants)

# The exporter warns about tracing Python values, constant folding and the like.
warnings.filterwarnings("ignore")

RAFT_FLOW_UPDATES = 4
DETECTION_SIDE = 320
DETECTIONS_PER_IMAGE = 30
SSD_SCORE_THRESH = 0.01
FASTER_RCNN_SCORE_THRESH = 0.05
DETECTION_LOGIT_STD = 2.0
CONVNEXT_LAYER_SCALE = (0.1, 0.5)
CONFORMER_FRAMES, CONFORMER_FEATURES = 200, 80


class Input(typing.NamedTuple):
    name: str
    shape: tuple
    kind: str = "normal"  # "normal": N(0, 1); "unit": U(0, 1) images; "length": int64 = fill
    fill: int = 0


class WideModel(typing.NamedTuple):
    build: typing.Callable[[], torch.nn.Module]
    inputs: list
    outputs: list
    # How many samples the BatchNorm calibration batch has (the first input
    # dim of each input replaced by this); large inputs use fewer.
    calibration_batch: int = em.CALIBRATION_BATCH
    # Called after the BatchNorm calibration with the calibration arguments,
    # for adjustments that need realistic activations (the detectors').
    after_calibration: typing.Optional[typing.Callable] = None
    detector: bool = False


def make_input(spec, rng, batch=None):
    shape = (batch,) + tuple(spec.shape[1:]) if batch else tuple(spec.shape)
    if spec.kind == "normal":
        return rng.randn(*shape).astype(np.float32)
    if spec.kind == "unit":
        return rng.rand(*shape).astype(np.float32)
    if spec.kind == "length":
        return np.full(shape, spec.fill, dtype=np.int64)
    raise ValueError(spec.kind)


# --- wrappers that give models with richer APIs one tensor-in, tensors-out forward


class FirstImageDetections(torch.nn.Module):
    """torchvision detectors take a list of CHW images and return a list of
    dicts; this takes one NCHW tensor and returns the first image's boxes,
    scores and labels. All images go in, so a calibration batch works."""

    def __init__(self, detector):
        super().__init__()
        self.detector = detector

    def forward(self, images):
        found = self.detector(list(images.unbind(0)))[0]
        return found["boxes"], found["scores"], found["labels"]


class SegmentationOut(torch.nn.Module):
    """torchvision segmenters return a dict; keep its "out" tensor."""

    def __init__(self, segmenter):
        super().__init__()
        self.segmenter = segmenter

    def forward(self, images):
        return self.segmenter(images)["out"]


class FinalFlow(torch.nn.Module):
    """RAFT returns the list of its iterative flow estimates; keep the last."""

    def __init__(self, raft, flow_updates):
        super().__init__()
        self.raft, self.flow_updates = raft, flow_updates

    def forward(self, image1, image2):
        return self.raft(image1, image2, num_flow_updates=self.flow_updates)[-1]


class FirstOutput(torch.nn.Module):
    """torchaudio encoders return (features, lengths); keep the features."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, *args):
        return self.model(*args)[0]


# --- nhwc_keras: a Keras model as tf2onnx writes it


class KerasConv(torch.nn.Module):
    """A Keras Conv2D + BatchNormalization in an NHWC graph, as tf2onnx
    exports it: Transpose to NCHW, Conv (the BatchNorm folded in), Transpose
    back. A strided conv gets Keras' ZeroPadding2D(((0, 1), (0, 1))) in NHWC
    before a 'valid' conv, as keras.applications writes its MobileNets."""

    def __init__(self, cin, cout, kernel, stride=1, groups=1):
        super().__init__()
        self.pad_bottom_right = stride == 2 and kernel > 1
        padding = 0 if self.pad_bottom_right else kernel // 2
        self.conv = torch.nn.Conv2d(cin, cout, kernel, stride, padding, groups=groups, bias=False)
        self.bn = torch.nn.BatchNorm2d(cout, eps=1e-3)  # Keras' epsilon

    def forward(self, x):
        if self.pad_bottom_right:
            x = F.pad(x, (0, 0, 0, 1, 0, 1))  # (C, W, H) pairs from the last dim: H and W by (0, 1)
        x = self.bn(self.conv(x.permute(0, 3, 1, 2)))
        return x.permute(0, 2, 3, 1)


def relu6(x):
    # One Clip(0, 6), as tf2onnx writes Keras' ReLU6 (F.relu6 exports as Relu + Clip).
    return x.clamp(0, 6)


class KerasInvertedResidual(torch.nn.Module):
    """MobileNetV2's block: 1x1 expand, ReLU6, 3x3 depthwise, ReLU6, 1x1
    linear projection, residual Add when the shape is kept; all in NHWC."""

    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        wide = cin * expand
        self.expand = KerasConv(cin, wide, 1) if expand != 1 else None
        self.depthwise = KerasConv(wide, wide, 3, stride, groups=wide)
        self.project = KerasConv(wide, cout, 1)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = relu6(self.expand(x)) if self.expand is not None else x
        y = self.project(relu6(self.depthwise(y)))
        return x + y if self.residual else y


class NhwcKeras(torch.nn.Module):
    # (in channels, out channels, stride, expansion) per block
    BLOCKS = [(32, 16, 1, 1), (16, 24, 2, 4), (24, 24, 1, 4), (24, 32, 2, 4), (32, 32, 1, 4),
              (32, 64, 2, 4), (64, 64, 1, 4), (64, 96, 1, 4), (96, 96, 1, 4), (96, 160, 2, 4),
              (160, 160, 1, 4), (160, 320, 1, 4)]
    FEATURES, CLASSES = 1280, 1000

    def __init__(self):
        super().__init__()
        self.stem = KerasConv(3, 32, 3, stride=2)
        self.blocks = torch.nn.Sequential(*(KerasInvertedResidual(*b) for b in self.BLOCKS))
        self.top = KerasConv(self.BLOCKS[-1][1], self.FEATURES, 1)
        # Keras Dense: kernel [in, out] used as x @ kernel + bias (MatMul + Add
        # in tf2onnx's output, not Gemm), Glorot-uniform kernel, zero bias.
        limit = (6 / (self.FEATURES + self.CLASSES)) ** 0.5
        self.dense_kernel = torch.nn.Parameter(torch.empty(self.FEATURES, self.CLASSES).uniform_(-limit, limit))
        self.dense_bias = torch.nn.Parameter(torch.zeros(self.CLASSES))

    def forward(self, x):
        x = relu6(self.stem(x))
        x = relu6(self.top(self.blocks(x)))
        x = x.mean(dim=(1, 2))  # GlobalAveragePooling2D over H, W of NHWC
        return x @ self.dense_kernel + self.dense_bias


# --- builders with the model-specific choices


def tv(builder, **kwargs):
    """A torchvision builder without pretrained weights (backbones included:
    several detectors and segmenters default to downloading one)."""
    return lambda: builder(weights=None, **kwargs)


def build_convnext_tiny():
    model = torchvision.models.convnext_tiny(weights=None)
    with torch.no_grad():
        for block in model.modules():
            if isinstance(block, torchvision.models.convnext.CNBlock):
                block.layer_scale.uniform_(*CONVNEXT_LAYER_SCALE)
    return model


def build_raft_small():
    return FinalFlow(torchvision.models.optical_flow.raft_small(weights=None), RAFT_FLOW_UPDATES)


def build_ssdlite():
    return FirstImageDetections(torchvision.models.detection.ssdlite320_mobilenet_v3_large(
        weights=None, weights_backbone=None, score_thresh=SSD_SCORE_THRESH,
        detections_per_img=DETECTIONS_PER_IMAGE))


def build_fasterrcnn():
    return FirstImageDetections(torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
        weights=None, weights_backbone=None, box_score_thresh=FASTER_RCNN_SCORE_THRESH,
        box_detections_per_img=DETECTIONS_PER_IMAGE))


def build_deeplabv3():
    return SegmentationOut(torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(
        weights=None, weights_backbone=None, aux_loss=False))


def build_lraspp():
    return SegmentationOut(torchvision.models.segmentation.lraspp_mobilenet_v3_large(
        weights=None, weights_backbone=None))


def torchaudio_models():
    """torchaudio.models, or None when it is not installed (Debian's
    python3-torchaudio)."""
    try:
        import torchaudio.models
    except ImportError:
        return None
    return torchaudio.models


def build_wav2vec2_base():
    return FirstOutput(torchaudio_models().wav2vec2_base())


def build_conformer():
    return FirstOutput(torchaudio_models().Conformer(
        input_dim=CONFORMER_FEATURES, num_heads=4, ffn_dim=256, num_layers=4,
        depthwise_conv_kernel_size=31))


@torch.onnx.symbolic_helper.parse_args("v", "v", "f", "i", "i", "i", "i")
def roi_align_opset16(g, features, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio,
                      aligned):
    """torchvision 0.14's ONNX symbolic for roi_align, plus the
    coordinate_transformation_mode attribute that opset 16 added.
    torchvision registers its symbolic for opset 11 and up without it, so at
    opset 17 every RoiAlign gets the new default "half_pixel" (aligned=True)
    while Faster R-CNN pools with aligned=False ("output_half_pixel"): the
    exported model then disagrees with torch's by a half-pixel shift of every
    pooled box, and its detections differ."""
    from torch.onnx.symbolic_opset9 import _cast_Long
    from torch.onnx.symbolic_opset11 import select, squeeze

    def column(*k):
        return select(g, rois, 1, g.op("Constant", value_t=torch.tensor(k, dtype=torch.long)))

    batch_indices = _cast_Long(g, squeeze(g, column(0), 1), False)
    return g.op("RoiAlign", features, column(1, 2, 3, 4), batch_indices,
                coordinate_transformation_mode_s="half_pixel" if aligned else "output_half_pixel",
                spatial_scale_f=spatial_scale, output_height_i=pooled_height,
                output_width_i=pooled_width,
                sampling_ratio_i=max(sampling_ratio, 0))  # ONNX has no negative (adaptive) ratio


# Registered for opset 16 and up, it takes precedence over torchvision's (11 and up) at opset 17.
torch.onnx.register_custom_op_symbolic("torchvision::roi_align", roi_align_opset16, 16)


def spread_logits(layers, target_std):
    """Returns an after_calibration step that rescales each layer's weight
    and bias so that its output std on the calibration batch is target_std
    (layers: model -> list of modules). One layer at a time, since a later
    layer's input can depend on an earlier one's output (Faster R-CNN's
    proposals on the RPN's objectness)."""

    def step(model, calibration_args):
        for layer in layers(model):
            seen = []
            hook = layer.register_forward_hook(lambda _m, _i, out: seen.append(out.detach()))
            try:
                with torch.no_grad():
                    model(*calibration_args)
            finally:
                hook.remove()
            std = float(torch.cat([s.flatten() for s in seen]).std())
            with torch.no_grad():
                layer.weight.mul_(target_std / std)
                if layer.bias is not None:
                    layer.bias.mul_(target_std / std)
        return f"{len(layers(model))} layers rescaled to output std {target_std:g}"

    return step


def mobilenet_v3_classifier_layers(model):
    # Linear(960, 1280), Hardswish, Dropout, Linear(1280, 1000)
    return [model.classifier[0], model.classifier[3]]


def ssd_logit_layers(model):
    # Each level's classification block ends in the 1x1 Conv writing logits.
    return [block[-1] for block in model.detector.head.classification_head.module_list]


def fasterrcnn_logit_layers(model):
    return [model.detector.rpn.head.cls_logits, model.detector.roi_heads.box_predictor.cls_score]


IMAGE = Input("input", (1, 3, 224, 224))
DETECTION_IMAGE = Input("input", (1, 3, DETECTION_SIDE, DETECTION_SIDE), "unit")

MODELS = {
    "googlenet": WideModel(tv(torchvision.models.googlenet, aux_logits=False, init_weights=True),
                           [IMAGE], ["output"]),
    "inception_v3": WideModel(tv(torchvision.models.inception_v3, aux_logits=False, init_weights=True),
                              [Input("input", (1, 3, 299, 299))], ["output"]),
    "convnext_tiny": WideModel(build_convnext_tiny, [IMAGE], ["output"]),
    "swin_t": WideModel(tv(torchvision.models.swin_t), [IMAGE], ["output"]),
    "maxvit_t": WideModel(tv(torchvision.models.maxvit_t), [IMAGE], ["output"]),
    "regnet_y_400mf": WideModel(tv(torchvision.models.regnet_y_400mf), [IMAGE], ["output"]),
    "mnasnet1_0": WideModel(tv(torchvision.models.mnasnet1_0), [IMAGE], ["output"]),
    "shufflenet_v2_x1_0": WideModel(tv(torchvision.models.shufflenet_v2_x1_0), [IMAGE], ["output"]),
    "densenet121": WideModel(tv(torchvision.models.densenet121), [IMAGE], ["output"]),
    "efficientnet_v2_s": WideModel(tv(torchvision.models.efficientnet_v2_s), [IMAGE], ["output"]),
    "mobilenet_v3_large": WideModel(tv(torchvision.models.mobilenet_v3_large), [IMAGE], ["output"],
                                    after_calibration=spread_logits(mobilenet_v3_classifier_layers, 1.0)),
    "nhwc_keras": WideModel(NhwcKeras, [Input("input", (1, 224, 224, 3))], ["output"]),
    "r3d_18": WideModel(tv(torchvision.models.video.r3d_18), [Input("input", (1, 3, 8, 112, 112))],
                        ["output"], calibration_batch=4),
    "raft_small": WideModel(build_raft_small, [Input("image1", (1, 3, 128, 128)),
                                               Input("image2", (1, 3, 128, 128))], ["flow"]),
    "deeplabv3_mobilenet_v3_large": WideModel(build_deeplabv3, [IMAGE], ["out"]),
    "lraspp_mobilenet_v3_large": WideModel(build_lraspp, [IMAGE], ["out"]),
    "ssdlite320_mobilenet_v3_large": WideModel(
        build_ssdlite, [DETECTION_IMAGE], ["boxes", "scores", "labels"], calibration_batch=4,
        after_calibration=spread_logits(ssd_logit_layers, DETECTION_LOGIT_STD), detector=True),
    "fasterrcnn_mobilenet_v3_large_320_fpn": WideModel(
        build_fasterrcnn, [DETECTION_IMAGE], ["boxes", "scores", "labels"], calibration_batch=4,
        after_calibration=spread_logits(fasterrcnn_logit_layers, DETECTION_LOGIT_STD), detector=True),
    "wav2vec2_base": WideModel(build_wav2vec2_base, [Input("waveform", (1, 16000))], ["output"]),
    "conformer": WideModel(build_conformer,
                           [Input("features", (1, CONFORMER_FRAMES, CONFORMER_FEATURES)),
                            Input("lengths", (1,), "length", CONFORMER_FRAMES)], ["output"]),
}
AUDIO_MODELS = {"wav2vec2_base", "conformer"}


def randomize_groupnorms(model):
    """Random affine GroupNorm parameters (wav2vec2's feature extractor),
    drawn like export_models.randomize_layernorms draws LayerNorm's."""
    norms = [m for m in model.modules() if isinstance(m, torch.nn.GroupNorm) and m.affine]
    gen = torch.Generator().manual_seed(em.LAYERNORM_SEED)
    with torch.no_grad():
        for gn in norms:
            gn.weight.copy_(torch.rand(gn.weight.shape, generator=gen) + 0.5)   # U(0.5, 1.5)
            gn.bias.copy_(torch.randn(gn.bias.shape, generator=gen) * 0.1)      # N(0, 0.1)
    return len(norms)


def calibrate_batchnorm(model, calibration_args):
    """export_models.calibrate_batchnorm on a batch of the model's own input
    kind. In training mode only the BatchNorms run so: dropout and
    stochastic depth would skew the statistics, and the detectors would
    take their training path (which wants targets)."""
    return em.calibrate_batchnorm(model, lambda gen: calibration_args)


def output_check(spec, outs):
    """The std to hold against STD_FAIL, and what it is a std of."""
    if spec.detector:
        boxes, scores, _labels = outs  # labels: integer class ids, no std to speak of
        if boxes.shape[0] == 0:
            return 0.0, "no detections survived"
        side = spec.inputs[0].shape[-1]
        return float((boxes / side).std()), (
            f"{boxes.shape[0]} detections, scores {scores.min():.3g}..{scores.max():.3g}, "
            f"boxes/{side} std")
    return float(outs[0].std()), "std"


def write_atomically(folder, write):
    """Writes into a temporary folder and renames it to folder, so an
    interrupted export never looks like a finished one to the skip check."""
    tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(folder)}.", dir=os.path.dirname(folder))
    try:
        write(tmp)
        if os.path.exists(folder):
            shutil.rmtree(folder)
        os.chmod(tmp, 0o755)  # mkdtemp makes it private
        os.rename(tmp, folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def export_one(name, folder):
    spec = MODELS[name]
    start = time.monotonic()
    torch.manual_seed(em.WEIGHT_SEED)  # same weights whatever else is exported
    model = spec.build()
    n_zero = em.fill_zero_parameters(model)
    n_ln = em.randomize_layernorms(model)
    n_gn = randomize_groupnorms(model)
    calibration_rng = np.random.RandomState(em.CALIBRATION_SEED)
    calibration_args = tuple(torch.from_numpy(make_input(i, calibration_rng, spec.calibration_batch))
                             for i in spec.inputs)
    n_bn = calibrate_batchnorm(model, calibration_args)
    extra = spec.after_calibration(model, calibration_args) if spec.after_calibration else None
    model.eval()

    rng = np.random.RandomState(em.INPUT_SEED)
    xs = [make_input(i, rng) for i in spec.inputs]
    args = tuple(torch.from_numpy(x) for x in xs)
    with torch.no_grad():
        outs = model(*args)
    outs = [o.numpy() for o in (outs if isinstance(outs, tuple) else (outs,))]
    std, std_what = output_check(spec, outs)

    def write(tmp):
        path = os.path.join(tmp, "model.onnx")
        # Not under no_grad: with gradients on, torch's transformer layers take
        # their exportable Python path instead of the fused fast-path kernels.
        torch.onnx.export(model, args, path, opset_version=17,
                          input_names=[i.name for i in spec.inputs], output_names=spec.outputs,
                          do_constant_folding=True)
        onnx.checker.check_model(path)
        for k, (i, x) in enumerate(zip(spec.inputs, xs)):
            with open(os.path.join(tmp, f"input_{k}.pb"), "wb") as f:
                f.write(onnx.numpy_helper.from_array(x, i.name).SerializeToString())

    write_atomically(folder, write)
    seconds = time.monotonic() - start

    graph = onnx.load(os.path.join(folder, "model.onnx"), load_external_data=False)
    ops = collections.Counter(n.op_type for n in graph.graph.node)
    size_mb = os.path.getsize(os.path.join(folder, "model.onnx")) / 2**20
    changed = [f"{n_bn} BatchNorms calibrated"] if n_bn else []
    changed += [f"{n_ln} LayerNorms randomized"] if n_ln else []
    changed += [f"{n_gn} GroupNorms randomized"] if n_gn else []
    changed += [f"{n_zero} zero parameters filled"] if n_zero else []
    changed += [extra] if extra else []
    shapes = ", ".join(f"{n} {o.dtype}{list(o.shape)}" for n, o in zip(spec.outputs, outs))
    print(f"{name}: {size_mb:.1f} MiB, {len(graph.graph.node)} nodes, "
          f"{', '.join(changed) or 'no weights adjusted'}, "
          f"outputs {shapes}, {std_what} {std:.3g}, exported in {seconds:.1f} s")
    print("  ops: " + ", ".join(f"{op} {n}" for op, n in sorted(ops.items())))
    if not em.STD_FAIL[0] <= std <= em.STD_FAIL[1]:
        print(f"{name}: output {std_what} {std:.3g} is degenerate; the comparison would be "
              "meaningless", file=sys.stderr)
        return False
    if not em.STD_IDEAL[0] <= std <= em.STD_IDEAL[1]:
        print(f"  note: output {std_what} {std:.3g} is outside {em.STD_IDEAL}")
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--models", default=",".join(MODELS),
                    help="comma-separated subset of: " + ", ".join(MODELS) + " (default: all)")
    ap.add_argument("--force", action="store_true", help="re-export models already present")
    args = ap.parse_args()

    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        ap.error(f"unknown models {unknown}; choose from {list(MODELS)}")
    os.makedirs(args.outdir, exist_ok=True)
    torch.set_num_threads(os.cpu_count() or 1)

    failed = []
    for name in names:
        folder = os.path.join(args.outdir, name)
        files = ["model.onnx"] + [f"input_{k}.pb" for k in range(len(MODELS[name].inputs))]
        if all(os.path.exists(os.path.join(folder, f)) for f in files) and not args.force:
            print(f"{name}: present in {folder}, skipped (--force to redo)")
            continue
        if name in AUDIO_MODELS and torchaudio_models() is None:
            print(f"{name}: skipped, torchaudio is not installed (apt-get install python3-torchaudio)")
            continue
        try:
            ok = export_one(name, folder)
        except Exception as e:  # one model's exporter limit must not stop the others
            traceback.print_exc()
            print(f"{name}: export failed: {type(e).__name__}: {e}", file=sys.stderr)
            ok = False
        if not ok:
            failed.append(name)
        sys.stdout.flush()
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
