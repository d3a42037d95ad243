#!/bin/sh
# CMake compiler launcher for the WebAssembly build: runs a compile step
# straight on Emscripten's clang with the flags `emcc --cflags` printed at
# configure time, instead of through emcc.
#
#   compile_direct.sh CLANG FLAGS_FILE EMCC ARGS...   (CMake appends EMCC ARGS)
#
# Why: emcc is a Python program, and on Debian's Emscripten 3.1.6 starting it
# costs about a second per source file before clang does any work, which made
# the two WebAssembly builds most of the test run's wall time. The objects are
# the same bytes (wasm/CMakeLists.txt compares a probe file both ways at
# configure time and keeps emcc when they differ). Links still go through emcc.
clang=$1 flags=$2
shift 3
# shellcheck disable=SC2046 # the flags file is a whitespace-separated list
exec "$clang" $(cat "$flags") "$@"
