# Cross build for 64-bit ARM Linux with Debian's gcc-aarch64-linux-gnu;
# ctest runs the test programs under qemu-aarch64 (Debian qemu-user):
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-linux-gnu.cmake \
#         -DKILN_WITH_DNNL=OFF
# Target libraries (Criterion for the tests) come from Debian's arm64
# multiarch packages (dpkg --add-architecture arm64; libcriterion-dev:arm64):
# pkg-config is pointed at /usr/lib/aarch64-linux-gnu below.
# scripts/test_aarch64.sh does all of it.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(KILN_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${KILN_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${KILN_CROSS_TRIPLE}-g++)

# The cross toolchain's own sysroot plus the multiarch library folder.
set(CMAKE_FIND_ROOT_PATH /usr/${KILN_CROSS_TRIPLE} /usr/lib/${KILN_CROSS_TRIPLE})
set(CMAKE_LIBRARY_ARCHITECTURE ${KILN_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config: only the arm64 .pc files (not the host's x86-64 ones).
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${KILN_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# ctest (and add_test COMMAND <target>) runs target programs through this.
# -L: the dynamic loader and libc of the cross sysroot; multiarch arm64
# libraries in /usr/lib/aarch64-linux-gnu are found by the loader's
# default search path under that prefix or by the rpath CMake sets.
find_program(KILN_QEMU_AARCH64 qemu-aarch64)
if(KILN_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${KILN_QEMU_AARCH64} -L /usr/${KILN_CROSS_TRIPLE}
    CACHE STRING "runs aarch64 programs on the build machine")
endif()
