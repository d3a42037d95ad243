#!/bin/bash
# The java_binding test: the JUnit 5 suites of bindings/java/src/test, run by
# the JUnit console launcher (Debian's junit5; Maven is not used).
#
# Usage: run_tests.sh JAVA JUNIT_JAR JNI_LIB CLASSPATH SRC_DIR BUILD_DIR KILN_CLI [ABI_SHIM]
#
# ABI_SHIM: a library whose kiln_abi_version() returns another version,
# preloaded by LoadTest to see the binding refuse it (empty: that test skips).
#
# Exports squeezenet1_1 first (tools/export_models.py, cached in
# BUILD_DIR/models, shared with the ONNX Runtime comparison); without
# Debian's python3-torch the CNN test is skipped and says why. Exit 77
# (ctest's skip) when java or the JUnit jar is missing.
set -u
JAVA=$1 JUNIT_JAR=$2 JNI_LIB=$3 CLASSPATH=$4 SRC_DIR=$5 BUILD_DIR=$6 KILN_CLI=$7 ABI_SHIM=${8:-}
PY=/usr/bin/python3
MODELS=$BUILD_DIR/models

[ -x "$JAVA" ] || { echo "SKIP: no java at $JAVA (install default-jdk-headless)"; exit 77; }
[ -f "$JUNIT_JAR" ] || { echo "SKIP: no JUnit console launcher at $JUNIT_JAR (install junit5)"; exit 77; }

MODELS_SKIP=""
if [ ! -f "$MODELS/squeezenet1_1/model.onnx" ]; then
    if [ ! -x "$PY" ]; then
        MODELS_SKIP="$PY is not installed"
    # (Python never gets a sanitizer build's preloaded runtimes.)
    elif ! env -u LD_PRELOAD "$PY" -c 'import torch, torchvision, onnx' 2>/dev/null; then
        MODELS_SKIP="$PY cannot import torch, torchvision and onnx (python3-torch, python3-torchvision, python3-onnx)"
    elif ! env -u LD_PRELOAD "$PY" "$SRC_DIR/tools/export_models.py" "$MODELS" --models squeezenet1_1; then
        MODELS_SKIP="tools/export_models.py failed to export squeezenet1_1"
    fi
fi

# A fixed, pre-touched heap: RSS then moves only with native memory and the
# JVM's own metadata, which is what the leak check in ConcurrencyTest wants.
exec "$JAVA" -Xms192m -Xmx192m -XX:+AlwaysPreTouch \
    -Dkiln.library.path="$JNI_LIB" \
    -Dkiln.source.dir="$SRC_DIR" \
    -Dkiln.cli="$KILN_CLI" \
    -Dkiln.work.dir="$BUILD_DIR/java-test-work" \
    -Dkiln.models.dir="$MODELS" \
    -Dkiln.models.skip="$MODELS_SKIP" \
    -Dkiln.sanitized="${KILN_JAVA_SANITIZED:-}" \
    -Dkiln.test.classpath="$CLASSPATH" \
    -Dkiln.test.abi.shim="$ABI_SHIM" \
    -jar "$JUNIT_JAR" \
    --class-path "$CLASSPATH" \
    --scan-class-path \
    --fail-if-no-tests \
    --disable-banner \
    --disable-ansi-colors \
    --details=tree
