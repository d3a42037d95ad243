/* The device code of the CUDA backend: each .cu file of core/cuda compiled by
 * nvcc into a fatbin (SASS for sm_80, 86, 89, 90 and PTX for compute_90,
 * which the driver compiles for newer GPUs) and embedded in the library as
 * bytes by cmake/KilnEmbedFatbins.cmake, so that one libkiln.so carries its
 * GPU kernels and needs no file beside it. The device loads each one with
 * cudaLibraryLoadData when it is opened. */
#ifndef KN_CUDA_FATBINS_H
#define KN_CUDA_FATBINS_H

#include <stddef.h>

/* Every fatbin begins with this 32-bit little-endian magic number. */
#define KN_CUDA_FATBIN_MAGIC 0xBA55ED50u

typedef struct kn_cuda_fatbin {
    const char *name; /* the .cu file's name without extension */
    const unsigned char *data;
    size_t size;
} kn_cuda_fatbin;

/* Ended by an entry with name NULL (generated: BUILD/cuda/kn_cuda_fatbins.c). */
extern const kn_cuda_fatbin kn_cuda_fatbins[];

#endif
