# Initial cache (cmake -C) of the aarch64 build tested under qemu-aarch64 on
# an x86-64 machine: scripts/test_aarch64.sh and
# bench/arm64/count_instructions.sh --configure-scalar configure with it, so
# the two builds cannot drift apart.
# oneDNN has no aarch64 package here and the image libraries would need
# arm64 -dev packages: both off (the library says "unsupported" for them),
# and so is `kiln serve` (libmicrohttpd, cJSON). The CUDA backend is off
# too: the x86-64 toolkit's kernels would build, but no aarch64 CUDA
# runtime is here to load them, and nvcc would only lengthen the run.
# Criterion's runner
# re-executes /proc/self/exe, which the x86-64 kernel cannot run, so the
# suites link tests/support/criterion_lite.
set(CMAKE_TOOLCHAIN_FILE "${CMAKE_CURRENT_LIST_DIR}/toolchain-aarch64-linux-gnu.cmake" CACHE FILEPATH "")
set(CMAKE_BUILD_TYPE Release CACHE STRING "")
set(KILN_WITH_DNNL OFF CACHE STRING "")
set(KILN_WITH_IMAGE_LIBS OFF CACHE BOOL "")
set(KILN_WITH_SERVE OFF CACHE STRING "")
set(KILN_WITH_CUDA OFF CACHE STRING "")
set(KILN_WERROR ON CACHE BOOL "")
set(KILN_CRITERION_LITE ON CACHE BOOL "")
