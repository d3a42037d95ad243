#!/bin/sh
# `kiln quantize --calib-images DIR`: every image file of a folder is one
# calibration sample of the model's image input, made as `kiln run --image`
# makes it.
#   - digits: its 20 real held-out samples written as 8-bit PGM images
#     (python3-onnx reads the .pb files) plus the committed PNG and JPEG of
#     sample 0; the QDQ model's top-1 equals float's on every image, and the
#     float model reads the PGM digits' labels (the images are the data);
#   - squeezenet1_1 (exported into BUILD_DIR/models by export_models, random
#     weights) on the repository's test images (tests/data/images) with
#     ImageNet's mean and std: int8 top-1 equals float's on each;
#   - sorted file order and --max-samples, files not named as images left
#     out, and the errors: no images, an undecodable file (named, with the
#     decoder's reason), models whose inputs images cannot feed alone.
#
# Usage: test_quantize_images.sh BUILD_DIR SRC_DIR. Exit 77 (skip) only when
# neither python3-onnx (for the PGM digits) nor libpng (for the committed
# PNG) is there to make a digit image folder.
set -u
BUILD_DIR=$(cd "${1:?usage: $0 BUILD_DIR SRC_DIR}" && pwd)
SRC_DIR=$(cd "${2:?usage: $0 BUILD_DIR SRC_DIR}" && pwd)
KILN=$BUILD_DIR/kiln
PY=/usr/bin/python3
IMAGES=$SRC_DIR/tests/data/images
DIGITS=$SRC_DIR/examples/digits/digits.onnx
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kiln-quantize-images.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM

failures=0
pass() { echo "ok   - $1"; }
fail() { echo "FAIL - $1"; failures=$((failures + 1)); }

top1() { # MODEL IMAGE [image options...]: the argmax `kiln run --image` prints
    m=$1 img=$2
    shift 2
    "$KILN" run "$m" --image "$img" "$@" 2>&1 | sed -n 's/^ *argmax: //p' | head -1
}

# ---- a folder of digit images ----
DIGIT_DIR=$WORK/digits
mkdir -p "$DIGIT_DIR"
pgm=0
if $PY -c 'import onnx, numpy' 2>/dev/null; then
    # Pixel values k/16 become round(255 k / 16): within half a grey level.
    $PY - "$SRC_DIR/examples/digits/samples" "$DIGIT_DIR" <<'EOF' && pgm=1
import glob, os, sys
import numpy as np
from onnx import TensorProto, numpy_helper
src, dst = sys.argv[1], sys.argv[2]
for path in sorted(glob.glob(os.path.join(src, "*.pb"))):
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    pixels = np.clip(np.rint(numpy_helper.to_array(t)[0, 0] * 255), 0, 255).astype(np.uint8)
    name = os.path.splitext(os.path.basename(path))[0] + ".pgm"
    with open(os.path.join(dst, name), "wb") as f:
        f.write(b"P5\n8 8\n255\n" + pixels.tobytes())
EOF
fi
png=0
if "$KILN" run "$DIGITS" --image "$IMAGES/digit_00_label_5.png" >/dev/null 2>&1; then
    png=1
    cp "$IMAGES/digit_00_label_5.png" "$DIGIT_DIR/"
    "$KILN" run "$DIGITS" --image "$IMAGES/digit_00_label_5.jpg" >/dev/null 2>&1 &&
        cp "$IMAGES/digit_00_label_5.jpg" "$DIGIT_DIR/"
fi
if [ "$pgm" = 0 ] && [ "$png" = 0 ]; then
    echo "SKIP: no digit images to calibrate on: python3-onnx (to write the samples as PGM) and a build with libpng are both missing"
    exit 77
fi
echo "a README, not an image" >"$DIGIT_DIR/README.txt"
count=$(find "$DIGIT_DIR" -type f ! -name README.txt | wc -l | tr -d ' ')

if "$KILN" quantize "$DIGITS" -o "$WORK/digits_int8.onnx" --calib-images "$DIGIT_DIR" \
    >"$WORK/digits.log" 2>&1 &&
    grep -q "on $count images" "$WORK/digits.log" &&
    grep -q "^left out 1 file of .* not named as images" "$WORK/digits.log" &&
    grep -q "^quantized 5 activations, 3 weights, 3 biases" "$WORK/digits.log"; then
    pass "kiln quantize digits --calib-images: $count images, README.txt left out"
else
    fail "kiln quantize digits --calib-images: $(cat "$WORK/digits.log")"
fi

agree=0 right=0 labelled=0
for img in "$DIGIT_DIR"/*; do
    case $img in *.txt) continue ;; esac
    f=$(top1 "$DIGITS" "$img")
    q=$(top1 "$WORK/digits_int8.onnx" "$img")
    [ -n "$f" ] && [ "$f" = "$q" ] && agree=$((agree + 1))
    case $img in
    *.pgm)
        labelled=$((labelled + 1))
        label=$(basename "$img" .pgm | sed 's/.*_label_//')
        [ "$f" = "$label" ] && right=$((right + 1))
        ;;
    esac
done
if [ "$agree" = "$count" ]; then pass "digits int8 top-1 = float top-1 on $agree/$count images"
else fail "digits int8 top-1 agrees with float on only $agree/$count images"; fi
if [ "$pgm" = 1 ]; then
    if [ "$labelled" = 20 ] && [ "$right" -ge 19 ]; then
        pass "the float model reads $right/20 PGM digits as their labels"
    else
        fail "the float model reads only $right/$labelled PGM digits as their labels"
    fi
fi

# ---- file order and --max-samples: a folder whose last file (by name) is
# not an image; the first two calibrate ----
ORDER=$WORK/order
mkdir -p "$ORDER"
for f in $(ls "$DIGIT_DIR" | grep -v README | head -2); do cp "$DIGIT_DIR/$f" "$ORDER/a_$f"; done
echo "not an image" >"$ORDER/z_broken.png"
if "$KILN" quantize "$DIGITS" -o "$WORK/order.onnx" --calib-images "$ORDER" --max-samples 2 \
    >"$WORK/order.log" 2>&1 && grep -q "on 2 images" "$WORK/order.log"; then
    pass "--max-samples 2 takes the first two files by name"
else
    fail "--max-samples 2 with a broken last file: $(cat "$WORK/order.log")"
fi

# ---- squeezenet1_1 on the repository's images ----
SQ=$BUILD_DIR/models/squeezenet1_1/model.onnx
if [ -f "$SQ" ]; then
    SQ_DIR=$WORK/squeezenet
    mkdir -p "$SQ_DIR"
    # The formats this build decodes (BMP, PNM and TIFF always).
    for img in "$IMAGES"/pattern*.* "$IMAGES"/digit_00_label_5.*; do
        case $img in *.py) continue ;; esac
        "$KILN" run "$DIGITS" --image "$img" >/dev/null 2>&1 && cp "$img" "$SQ_DIR/"
    done
    n=$(ls "$SQ_DIR" | wc -l | tr -d ' ')
    NORM="--mean 0.485,0.456,0.406 --std 0.229,0.224,0.225"
    # shellcheck disable=SC2086
    if "$KILN" quantize "$SQ" -o "$WORK/sq_int8.onnx" --calib-images "$SQ_DIR" $NORM \
        >"$WORK/sq.log" 2>&1 && grep -q "on $n images" "$WORK/sq.log"; then
        pass "kiln quantize squeezenet1_1 --calib-images: $n images, $(grep '^quantized' "$WORK/sq.log")"
    else
        fail "kiln quantize squeezenet1_1 --calib-images: $(cat "$WORK/sq.log")"
    fi
    agree=0
    for img in "$SQ_DIR"/*; do
        # shellcheck disable=SC2086
        f=$(top1 "$SQ" "$img" $NORM)
        # shellcheck disable=SC2086
        q=$(top1 "$WORK/sq_int8.onnx" "$img" $NORM)
        [ -n "$f" ] && [ "$f" = "$q" ] && agree=$((agree + 1))
    done
    if [ "$agree" = "$n" ]; then pass "squeezenet1_1 int8 top-1 = float top-1 on $agree/$n images"
    else fail "squeezenet1_1 int8 top-1 agrees with float on only $agree/$n images"; fi
else
    echo "note: squeezenet1_1 not exported in $BUILD_DIR/models (export_models): its part skipped"
fi

# ---- errors in the user's terms ----
expect_error() { # DESCRIPTION TEXT COMMAND...: fails non-zero, saying TEXT
    desc=$1 text=$2
    shift 2
    if "$@" >"$WORK/err.log" 2>&1; then fail "$desc: succeeded"
    elif grep -q -- "$text" "$WORK/err.log"; then pass "$desc"
    else fail "$desc: said '$(cat "$WORK/err.log")', not '$text'"; fi
}
mkdir -p "$WORK/empty" "$WORK/text_only" "$WORK/broken"
echo "labels" >"$WORK/text_only/labels.txt"
expect_error "an empty folder" "has no image files" \
    "$KILN" quantize "$DIGITS" -o "$WORK/x.onnx" --calib-images "$WORK/empty"
expect_error "a folder without image files names one of its files" "e.g. 'labels.txt'" \
    "$KILN" quantize "$DIGITS" -o "$WORK/x.onnx" --calib-images "$WORK/text_only"
expect_error "a missing folder" "cannot read --calib-images folder" \
    "$KILN" quantize "$DIGITS" -o "$WORK/x.onnx" --calib-images "$WORK/nope"
echo "not an image" >"$WORK/broken/a.png"
expect_error "an undecodable file is named, with the decoder's reason" \
    "cannot decode $WORK/broken/a.png: .*unrecognised image format" \
    "$KILN" quantize "$DIGITS" -o "$WORK/x.onnx" --calib-images "$WORK/broken"
expect_error "without --max-samples the broken last file stops calibration, named" \
    "z_broken.png" \
    "$KILN" quantize "$DIGITS" -o "$WORK/x.onnx" --calib-images "$ORDER"
if [ "$png" = 1 ]; then
    mkdir -p "$WORK/cut"
    head -c 100 "$IMAGES/digit_00_label_5.png" >"$WORK/cut/cut.png"
    expect_error "a truncated PNG" "cut.png: .*PNG image: truncated" \
        "$KILN" quantize "$DIGITS" -o "$WORK/x.onnx" --calib-images "$WORK/cut"
fi
expect_error "a model with two float inputs lists them" \
    "has 2 inputs: 'X' (float32, 2x3), 'Y' (float32, 2x3); each of them needs a value" \
    "$KILN" quantize "$SRC_DIR/tests/data/models/add_relu.onnx" -o "$WORK/x.onnx" \
    --calib-images "$DIGIT_DIR"
expect_error "a model whose one input is not an image" "input 'X' (float32, ?x4) is not an image" \
    "$KILN" quantize "$SRC_DIR/tests/data/models/dynamic_mlp.onnx" -o "$WORK/x.onnx" \
    --calib-images "$DIGIT_DIR"
expect_error "three means for a one-channel input" "has one channel; give --mean and --std one value" \
    "$KILN" quantize "$DIGITS" -o "$WORK/x.onnx" --calib-images "$DIGIT_DIR" --mean 0.1,0.2,0.3
expect_error "--calib and --calib-images together" "give --calib or --calib-images, not both" \
    "$KILN" quantize "$DIGITS" -o "$WORK/x.onnx" --calib "$WORK/empty" --calib-images "$DIGIT_DIR"
expect_error "image options without --calib-images" "go with --calib-images" \
    "$KILN" quantize "$DIGITS" -o "$WORK/x.onnx" --calib "$WORK/empty" --size 8x8

echo "$failures failed"
[ "$failures" = 0 ]
