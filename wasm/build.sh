#!/bin/bash
# Builds Kiln for WebAssembly with Emscripten: the single-threaded engine
# into build-wasm and the pthreads engine into build-wasm-mt (each with the
# JS API copied next to it), printing the .wasm sizes.
#
#   wasm/build.sh [--single] [-- extra cmake arguments, e.g. -DKILN_WASM_OPT=-Oz]
#
# Environment: BUILD_WASM / BUILD_WASM_MT override the two folders.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
st=${BUILD_WASM:-$src/build-wasm}
mt=${BUILD_WASM_MT:-$src/build-wasm-mt}
single=0
extra=()
while (($#)); do
  case $1 in
    --single) single=1 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "usage: wasm/build.sh [--single] [-- cmake args]" >&2; exit 2 ;;
  esac
  shift
done
command -v emcmake >/dev/null || { echo "build.sh: emcmake not found (Debian package emscripten)" >&2; exit 1; }
# Emscripten 3.1.6's JS optimiser needs Debian's node modules (acorn).
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
gen=(-G Ninja)
command -v ninja >/dev/null || gen=()

emcmake cmake -S "$src/wasm" -B "$st" "${gen[@]}" "${extra[@]}" >/dev/null
cmake --build "$st" -j 2
if ((!single)); then
  emcmake cmake -S "$src/wasm" -B "$mt" "${gen[@]}" -DKILN_WASM_THREADS=ON "${extra[@]}" >/dev/null
  cmake --build "$mt" -j 2
fi
echo "sizes:"
bash "$src/wasm/print_sizes.sh" "$st/kiln-core.wasm"
((single)) || bash "$src/wasm/print_sizes.sh" "$mt/kiln-core-mt.wasm"
