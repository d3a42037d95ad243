# CUDA backend (core/cuda/): AUTO builds it when nvcc is found, ON asks for
# it (a warning if nvcc is missing), OFF leaves it out. The backend's C code
# uses Kiln's own declarations of the CUDA libraries (core/cuda/cuda_api.h)
# and loads them at run time, so libkiln has no link dependency on CUDA;
# only its device code needs nvcc. Each core/cuda/*.cu becomes a fatbin
# (SASS for the GPUs below plus PTX for newer ones; never `native`, which
# would tie the build to the build machine's GPU), and the fatbins are
# embedded in the library as byte arrays (cmake/KilnEmbedFatbins.cmake),
# compressed (the driver unpacks them when loading: tensor.cu's five
# images of twelve kernels shrink from 851 to 84 KB). All
# of that is one target, kiln_cuda_fatbins. Without nvcc, core/cuda/absent/
# gives the backend list a descriptor that is never available.
#
# Sets KILN_CUDA_ENABLED, KILN_CUDA_FATBIN_SOURCE (the generated .c file
# kiln_core_sources compiles) and KILN_CUDA_INCLUDE_DIR (the toolkit's
# headers, for the declaration check in tests/cuda/, when they exist).
set(KILN_WITH_CUDA AUTO CACHE STRING "CUDA backend: AUTO, ON or OFF")
set_property(CACHE KILN_WITH_CUDA PROPERTY STRINGS AUTO ON OFF)
set(KILN_CUDA_ARCHS "80;86;89;90" CACHE STRING "GPU architectures to build SASS for")
set(KILN_CUDA_PTX_ARCH "90" CACHE STRING "Virtual architecture to embed PTX for (newer GPUs JIT it)")
option(KILN_CUDA_COMPRESS "Compress the embedded fatbins (the driver unpacks them at load)" ON)
set(KILN_CUDA_ENABLED OFF)
set(KILN_CUDA_FATBIN_SOURCE "")
set(KILN_CUDA_INCLUDE_DIR "")
if(NOT KILN_WITH_CUDA STREQUAL "OFF")
  find_program(KILN_NVCC nvcc HINTS ENV CUDA_PATH ENV CUDA_HOME PATH_SUFFIXES bin
    PATHS /usr/local/cuda/bin)
  if(KILN_NVCC)
    set(KILN_CUDA_ENABLED ON)
    get_filename_component(nvcc_bin ${KILN_NVCC} DIRECTORY)
    get_filename_component(nvcc_root ${nvcc_bin} DIRECTORY)
    if(EXISTS ${nvcc_root}/include/cuda_runtime_api.h AND EXISTS ${nvcc_root}/include/cublasLt.h
       AND EXISTS ${nvcc_root}/include/cudnn.h)
      set(KILN_CUDA_INCLUDE_DIR ${nvcc_root}/include)
    endif()
  elseif(KILN_WITH_CUDA STREQUAL "ON")
    message(WARNING "KILN_WITH_CUDA=ON but nvcc was not found (set CUDA_PATH): building without it")
  endif()
endif()
message(STATUS "Kiln CUDA backend: ${KILN_CUDA_ENABLED}")

if(KILN_CUDA_ENABLED)
  file(GLOB kiln_cu_files CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/core/cuda/*.cu)
  file(GLOB kiln_cu_headers CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/core/cuda/*.cuh
    ${CMAKE_CURRENT_SOURCE_DIR}/core/cuda/device_params.h)
  set(gencode "")
  foreach(arch ${KILN_CUDA_ARCHS})
    list(APPEND gencode -gencode arch=compute_${arch},code=sm_${arch})
  endforeach()
  list(APPEND gencode -gencode arch=compute_${KILN_CUDA_PTX_ARCH},code=compute_${KILN_CUDA_PTX_ARCH})
  set(compress "")
  if(KILN_CUDA_COMPRESS)
    set(compress -Xfatbin=-compress-all)
  endif()
  set(fatbin_dir ${CMAKE_CURRENT_BINARY_DIR}/cuda)
  set(fatbins "")
  set(names "")
  foreach(cu ${kiln_cu_files})
    get_filename_component(name ${cu} NAME_WE)
    set(fatbin ${fatbin_dir}/${name}.fatbin)
    add_custom_command(OUTPUT ${fatbin}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${fatbin_dir}
      COMMAND ${KILN_NVCC} --fatbin -O3 -std=c++17 -Werror all-warnings ${compress}
        -I${CMAKE_CURRENT_SOURCE_DIR} ${gencode} -o ${fatbin} ${cu}
      DEPENDS ${cu} ${kiln_cu_headers}
      COMMENT "nvcc: core/cuda/${name}.cu -> ${name}.fatbin"
      VERBATIM)
    list(APPEND fatbins ${fatbin})
    list(APPEND names ${name})
  endforeach()
  set(KILN_CUDA_FATBIN_SOURCE ${fatbin_dir}/kn_cuda_fatbins.c)
  string(REPLACE ";" "," names_arg "${names}")
  add_custom_command(OUTPUT ${KILN_CUDA_FATBIN_SOURCE}
    COMMAND ${CMAKE_COMMAND} -DNAMES=${names_arg} -DDIR=${fatbin_dir}
      -DOUT=${KILN_CUDA_FATBIN_SOURCE}
      -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/KilnEmbedFatbins.cmake
    DEPENDS ${fatbins} ${CMAKE_CURRENT_SOURCE_DIR}/cmake/KilnEmbedFatbins.cmake
    COMMENT "embedding ${names_arg} fatbins"
    VERBATIM)
  add_custom_target(kiln_cuda_fatbins DEPENDS ${KILN_CUDA_FATBIN_SOURCE})
endif()
