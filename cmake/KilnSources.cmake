# The library's sources, for every build of it (the native library, the
# WebAssembly module, the fuzzing library): everything under core/ and capi/
# except the backend folders, plus each backend's own sources or, where its
# toolkit is missing, its absent/ descriptor (core/backends.c lists every
# backend in every build). Likewise each library-backed image format in
# core/codec/ (jpeg, png, webp, jpeg2000): its own file when named in the
# optional codec list, else its absent/ variant. The CUDA backend's sources
# come in when the caller set KILN_CUDA_FATBIN_SOURCE (cmake/KilnCuda.cmake:
# its device code was compiled), else its absent/ descriptor; its library
# loader, core/cuda/cuda_libs.c, is in every build.
#   kiln_core_sources(OUT_VAR ROOT WITH_DNNL [CODEC...])
function(kiln_core_sources out root with_dnnl)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${root}/core/*.c)
  list(FILTER sources EXCLUDE REGEX "^${root}/core/dnnl/")
  list(FILTER sources EXCLUDE REGEX "^${root}/core/cuda/")
  list(FILTER sources EXCLUDE REGEX "^${root}/core/codec/(absent/)?(jpeg|png|webp|jpeg2000)\\.c$")
  file(GLOB capi CONFIGURE_DEPENDS ${root}/capi/*.c)
  if(with_dnnl)
    file(GLOB dnnl CONFIGURE_DEPENDS ${root}/core/dnnl/*.c)
  else()
    file(GLOB dnnl CONFIGURE_DEPENDS ${root}/core/dnnl/absent/*.c)
  endif()
  if(KILN_CUDA_FATBIN_SOURCE)
    file(GLOB cuda CONFIGURE_DEPENDS ${root}/core/cuda/*.c)
    list(APPEND cuda ${KILN_CUDA_FATBIN_SOURCE})
  else()
    file(GLOB cuda CONFIGURE_DEPENDS ${root}/core/cuda/absent/*.c)
    list(APPEND cuda ${root}/core/cuda/cuda_libs.c)
  endif()
  set(codecs "")
  foreach(codec jpeg png webp jpeg2000)
    if(codec IN_LIST ARGN)
      list(APPEND codecs ${root}/core/codec/${codec}.c)
    else()
      list(APPEND codecs ${root}/core/codec/absent/${codec}.c)
    endif()
  endforeach()
  set(${out} ${sources} ${capi} ${dnnl} ${cuda} ${codecs} PARENT_SCOPE)
endfunction()

# Kernel sources (gcc vectorises their loops only at -O3; they never read the
# floating-point exception flags, so trapping math can go too).
#   kiln_kernel_sources(OUT_VAR ROOT)
function(kiln_kernel_sources out root)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${root}/core/cpu/*.c ${root}/core/kernel/*.c
    ${root}/core/simd/*.c)
  set(${out} ${sources} PARENT_SCOPE)
endfunction()
