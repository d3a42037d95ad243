// The CUDA backend's device code compiled for the host (host_shim.h says
// how), for the emulated tests: the same source the fatbins come from.
#include "tests/cuda/host_shim.h"

#include "core/cuda/elementwise.cu"
#include "core/cuda/pad.cu"
#include "core/cuda/pool.cu"
#include "core/cuda/resize.cu"
#include "core/cuda/rows.cu"
#include "core/cuda/tensor.cu"
