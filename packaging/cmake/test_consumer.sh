#!/bin/bash
# Test c_package_consumer: installs the build into a temporary prefix and
# builds packaging/cmake/consumer/main.c against it twice, with pkg-config
# and with find_package(kiln CONFIG), runs both on a digits sample, and
# checks that the version requirement of the CMake package is enforced.
# Usage: test_consumer.sh BUILD_DIR SOURCE_DIR [CC]
# KILN_CONSUMER_CFLAGS adds compiler flags (a sanitizer build of the library
# needs the same -fsanitize flags in the program).
set -euo pipefail
build=$1 src=$2 cc=${3:-cc}
extra=${KILN_CONSUMER_CFLAGS:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
model=$src/examples/digits/digits.onnx
sample=$src/examples/digits/samples/digit_00_label_5.pb

fail() { echo "FAILED: $*"; exit 1; }

cmake --install "$build" --prefix "$prefix" > "$work/install.log" || {
    cat "$work/install.log"; fail "cmake --install"; }
[ -f "$prefix/include/kiln.h" ] || fail "kiln.h not installed in $prefix/include"
pc=$(find "$prefix" -name kiln.pc)
[ -n "$pc" ] || fail "kiln.pc not installed"
config=$(find "$prefix" -name kilnConfig.cmake)
[ -n "$config" ] || fail "kilnConfig.cmake not installed"

# The installed tree is moved before use: both packages must be relocatable.
mv "$prefix" "$work/moved"
prefix=$work/moved

# 1. pkg-config
pc_relative=${pc#"$work/prefix/"}
export PKG_CONFIG_PATH=$prefix/$(dirname "$pc_relative")
version=$(pkg-config --modversion kiln)
want=$(sed -n 's/^project(kiln VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
[ "$version" = "$want" ] || fail "pkg-config reports version '$version', CMakeLists.txt says '$want'"
libdir=$(pkg-config --variable=libdir kiln)
# shellcheck disable=SC2046 # pkg-config's flags are meant to split
# shellcheck disable=SC2086 # $extra is a list of flags
"$cc" -std=c11 -Wall -Wextra -Werror $extra -o "$work/consumer_pc" "$src/packaging/cmake/consumer/main.c" \
    $(pkg-config --cflags --libs kiln) -Wl,-rpath,"$libdir"
resolved=$(ldd "$work/consumer_pc" | awk '/libkiln/ {print $3}')
case "$resolved" in "$prefix"/*) ;; *) fail "pkg-config build resolves libkiln to '$resolved', not the install";; esac
"$work/consumer_pc" "$model" "$sample" 5 || fail "pkg-config build gave the wrong class"

# 2. find_package(kiln CONFIG)
cmake -S "$src/packaging/cmake/consumer" -B "$work/cmake_build" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$extra" > "$work/configure.log" 2>&1 || {
    cat "$work/configure.log"; fail "configuring the consumer with find_package(kiln)"; }
cmake --build "$work/cmake_build" > "$work/build.log" 2>&1 || {
    cat "$work/build.log"; fail "building the consumer"; }
"$work/cmake_build/kiln_consumer" "$model" "$sample" 5 || fail "find_package build gave the wrong class"

# 3. The version file refuses an incompatible request.
if cmake -S "$src/packaging/cmake/consumer" -B "$work/cmake_build99" -DCMAKE_PREFIX_PATH="$prefix" \
    -DKILN_WANT_VERSION=99.0 > "$work/configure99.log" 2>&1; then
    fail "find_package(kiln 99.0) succeeded against version $version"
fi
grep -q 'requested version "99.0"' "$work/configure99.log" || {
    cat "$work/configure99.log"; fail "find_package(kiln 99.0) failed for another reason"; }
echo "c_package_consumer: pkg-config and find_package builds of an installed kiln $version classify correctly"
