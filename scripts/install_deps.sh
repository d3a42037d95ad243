#!/usr/bin/env bash
# Installs the Debian 12 packages Kiln needs, skipping those already there.
#   usage: scripts/install_deps.sh [build|test|aarch64]
#   build: compiler, CMake, Ninja (enough for the library, CLI and example)
#   test:  also Criterion, ONNX test data, Python ONNX/NumPy/PyTorch (model
#          export), pytest and venv/pip/setuptools/wheel (the Python binding
#          and its wheel check), Node.js (the ONNX Runtime comparison),
#          valgrind, Graphviz (kiln info --svg), clang, the binding toolchains (Go, JDK + JUnit 5, libffi), Emscripten and
#          Chromium (the WebAssembly build and its browser tests), wrk,
#          python3-requests and curl (kiln serve's clients)
#   aarch64: the cross compiler, its C library and qemu-user (only those:
#          scripts/test_aarch64.sh)
set -euo pipefail
what=${1:-test}
# oneDNN is optional for the library; its CMake config needs the OpenCL
# loader headers even for the CPU engine. The image libraries are optional
# too (core/codec/: PNG, JPEG, WebP and JPEG 2000 decoding, `kiln run
# --image`); the conformance minimum counts those ImageDecoder cases.
# libmicrohttpd and cJSON build `kiln serve` (optional too).
packages=(build-essential cmake ninja-build pkg-config libdnnl-dev ocl-icd-opencl-dev
          libjpeg62-turbo-dev libpng-dev libwebp-dev libopenjp2-7-dev
          libmicrohttpd-dev libcjson-dev)
if [ "$what" = aarch64 ]; then
  packages=(cmake ninja-build gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)
fi
if [ "$what" = test ]; then
  packages+=(libcriterion-dev libonnx-testdata python3-onnx python3-numpy python3-pytest
             python3-venv python3-pip python3-setuptools python3-wheel python3-torch
             python3-torchvision valgrind golang-go default-jdk-headless junit5 libffi-dev
             emscripten chromium graphviz wrk python3-requests curl python3-yaml)
  command -v node >/dev/null 2>&1 || packages+=(nodejs npm)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
