#!/bin/bash
# Builds Kiln's Java binding for Android (arm64-v8a) with the NDK and
# assembles kiln-android.aar. Not run in Kiln's CI: it needs an Android NDK,
# which Debian does not package (see README.md in this folder).
#
# Usage: ANDROID_NDK_HOME=/path/to/ndk packaging/android/build_android.sh [OUT_DIR]
#
# Environment: ANDROID_NDK_HOME (or ANDROID_NDK_ROOT), required;
#   KILN_ANDROID_ABI (default arm64-v8a), KILN_ANDROID_PLATFORM (default 33,
#   the first API level with java.lang.ref.Cleaner and Path.of).
# Needs on the host: cmake >= 3.24 (FindJNI for Android), ninja, a JDK 17
# (javac and jar for the classes), and the NDK's llvm-readelf.
set -euo pipefail

SRC_DIR=$(cd "$(dirname "$0")/../.." && pwd)
OUT_DIR=$(mkdir -p "${1:-$SRC_DIR/build-android}" && cd "${1:-$SRC_DIR/build-android}" && pwd)
NDK=${ANDROID_NDK_HOME:-${ANDROID_NDK_ROOT:-}}
ABI=${KILN_ANDROID_ABI:-arm64-v8a}
API=${KILN_ANDROID_PLATFORM:-33}
BUILD=$OUT_DIR/cmake-$ABI

die() {
    echo "build_android.sh: $*" >&2
    exit 1
}

[ -n "$NDK" ] || die "no Android NDK: neither ANDROID_NDK_HOME nor ANDROID_NDK_ROOT is set.
  Install an NDK r26 or newer (Android Studio's SDK Manager, or
  sdkmanager 'ndk;27.0.12077973'; Debian does not package one) and run
    ANDROID_NDK_HOME=\$HOME/Android/Sdk/ndk/27.0.12077973 $0 [OUT_DIR]
  (packaging/android/README.md says what was and was not verified without one)"
[ -d "$NDK" ] || die "ANDROID_NDK_HOME=$NDK: no such folder"
TOOLCHAIN=$NDK/build/cmake/android.toolchain.cmake
[ -f "$TOOLCHAIN" ] || die "no $TOOLCHAIN: $NDK is not an Android NDK (r26 or newer)"
for tool in javac jar; do
    command -v "$tool" >/dev/null || die "$tool (JDK 17) is needed"
done

# libkiln is linked into libkiln_jni (KILN_JAVA_LINK_STATIC, the default on
# Android): the APK carries one lib*.so per ABI. 16 KB pages: Android 15
# devices may use them, and Google Play requires libraries whose LOAD
# segments are aligned for them; bindings/java/CMakeLists.txt adds the same
# flag to libkiln_jni on Android, this covers everything else linked.
cmake -S "$SRC_DIR" -B "$BUILD" -G Ninja \
    -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" \
    -DANDROID_ABI="$ABI" \
    -DANDROID_PLATFORM="android-$API" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_SHARED_LINKER_FLAGS="-Wl,-z,max-page-size=16384" \
    -DKILN_BUILD_TESTS=OFF \
    -DKILN_WITH_DNNL=OFF \
    -DKILN_JAVA_LINK_STATIC=ON
cmake --build "$BUILD" --target kiln_jni kiln_java

LIB=$BUILD/bindings/java/libkiln_jni.so
CLASSES=$BUILD/bindings/java/classes
[ -f "$LIB" ] || die "the build made no $LIB (was the Java binding skipped? see the cmake output)"

# Check the alignment: every LOAD segment's Align must be at least 0x4000.
READELF=$(find "$NDK/toolchains/llvm/prebuilt" -name llvm-readelf -type f 2>/dev/null | head -n 1)
if [ -n "$READELF" ]; then
    while read -r -a field; do # the flags may be one word or two: Align is last
        [ "${field[0]:-}" = LOAD ] || continue
        align=${field[${#field[@]} - 1]}
        [ $((align)) -ge 16384 ] || die "$LIB has a LOAD segment aligned to $align, not 16 KB"
    done < <("$READELF" -lW "$LIB")
    echo "16 KB alignment: ok ($(basename "$LIB"))"
else
    echo "warning: no llvm-readelf in the NDK; alignment not checked" >&2
fi

# The .aar is a zip: AndroidManifest.xml, classes.jar, jni/<abi>/*.so and
# the R8/ProGuard rules its users' builds apply (proguard.txt).
STAGE=$OUT_DIR/aar
rm -rf "$STAGE"
mkdir -p "$STAGE/jni/$ABI"
cp "$LIB" "$STAGE/jni/$ABI/"
cp "$SRC_DIR/packaging/android/AndroidManifest.xml" "$STAGE/"
sed -i "s/@MIN_SDK@/$API/" "$STAGE/AndroidManifest.xml"
cp "$SRC_DIR/packaging/android/proguard.txt" "$STAGE/"
jar --create --file "$STAGE/classes.jar" -C "$CLASSES" .
: > "$STAGE/R.txt"
rm -f "$OUT_DIR/kiln-android.aar"
(cd "$STAGE" && jar --create --no-manifest --file "$OUT_DIR/kiln-android.aar" .)
echo "wrote $OUT_DIR/kiln-android.aar ($ABI, minSdk $API)"
