# kiln_wasm_direct_clang(): sets CMAKE_C_COMPILER_LAUNCHER to
# wasm/compile_direct.sh when Emscripten's clang, given the flags
# `emcc --cflags` prints, compiles a probe file of Kiln's to the same object
# bytes as emcc does; otherwise leaves emcc alone and says why.
function(kiln_wasm_direct_clang)
  set(mode_flags "")
  if(KILN_WASM_THREADS)
    set(mode_flags -pthread)
  endif()
  execute_process(COMMAND ${CMAKE_C_COMPILER} ${mode_flags} --cflags
    OUTPUT_VARIABLE cflags OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
  execute_process(COMMAND em-config LLVM_ROOT
    OUTPUT_VARIABLE llvm_root OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc2 ERROR_QUIET)
  if(NOT rc EQUAL 0 OR NOT rc2 EQUAL 0 OR NOT EXISTS "${llvm_root}/clang")
    message(STATUS "wasm: compiling through emcc (no `emcc --cflags` or clang under LLVM_ROOT)")
    return()
  endif()
  set(flags_file ${CMAKE_CURRENT_BINARY_DIR}/emcc_cflags.txt)
  file(WRITE ${flags_file} "${cflags}\n")

  # The probe: a kernel source with SIMD, compiled with the target's options.
  set(probe ${KILN_ROOT}/core/cpu/elementwise/unary.c)
  set(common -I${KILN_ROOT}/capi -I${KILN_ROOT} ${KILN_WASM_OPT} -msimd128 -fno-trapping-math
    -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE ${mode_flags} -c ${probe})
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/direct_clang_probe)
  file(MAKE_DIRECTORY ${dir})
  execute_process(COMMAND ${CMAKE_C_COMPILER} ${common} -o ${dir}/emcc.o RESULT_VARIABLE a ERROR_QUIET)
  separate_arguments(cflag_list UNIX_COMMAND "${cflags}")
  execute_process(COMMAND ${llvm_root}/clang ${cflag_list} ${common} -o ${dir}/clang.o
    RESULT_VARIABLE b ERROR_QUIET)
  if(a EQUAL 0 AND b EQUAL 0)
    file(SHA256 ${dir}/emcc.o ha)
    file(SHA256 ${dir}/clang.o hb)
  endif()
  if(NOT a EQUAL 0 OR NOT b EQUAL 0 OR NOT ha STREQUAL hb)
    message(STATUS "wasm: compiling through emcc (clang with `emcc --cflags` gave another object)")
    return()
  endif()
  set(CMAKE_C_COMPILER_LAUNCHER ${CMAKE_CURRENT_SOURCE_DIR}/compile_direct.sh
    ${llvm_root}/clang ${flags_file} PARENT_SCOPE)
  message(STATUS "wasm: compiling with ${llvm_root}/clang directly (same objects as emcc)")
endfunction()
