/* A test double of the CUDA runtime, cuBLASLt and cuDNN on host memory
 * (fake_cuda_libs.c): an emulated device whose library calls compute what
 * the real libraries document, so the CUDA backend's host code runs through
 * its real paths on a machine without a GPU. "Device" pointers are host
 * pointers. What the double records of the calls it received, and the
 * algorithms it offers, are declared here for the tests to read and reset. */
#ifndef KN_TEST_FAKE_CUDA_LIBS_H
#define KN_TEST_FAKE_CUDA_LIBS_H

#include <stddef.h>
#include <stdint.h>

#include "core/cuda/cuda_device.h"

/* The emulated device (made on first use, then the same one). */
kn_cuda_device *emulated_device(void);

/* Launches of a device kernel the double has no host version of: a test
 * that made one fails. */
extern int unemulated_launches;

/* Simulated device time for tuning: each product and convolution adds its
 * algorithm's cost; events record it. The counters say whether a kernel
 * timed anything. */
extern double device_clock_ms;
extern int event_records, device_mallocs;
extern int64_t device_malloc_bytes; /* what cudaMalloc was asked for, in all */

/* The algorithms cuBLASLt's heuristic offers, best first, with their cost
 * (the third is the fastest); an algorithm is its id, tile and stages, kept
 * in the first words of cublasLtMatmulAlgo_t. */
typedef struct fake_lt_algo {
    uint32_t id, tile, stages;
    double ms;
} fake_lt_algo;
enum { N_LT_ALGOS = 4 };
extern const fake_lt_algo lt_algos[N_LT_ALGOS];
extern uint32_t last_lt_algo;     /* the id the last product ran */
extern uint32_t last_lt_epilogue; /* its epilogue (CUBLASLT_EPILOGUE_*) */
extern int lt_requested;          /* results the last heuristic query asked for */
extern uint32_t rejected_lt_algo; /* an id cublasLtMatmulAlgoCheck refuses */

/* cuDNN's forward algorithms as its heuristic lists them (one that does
 * not run, one over Kiln's workspace limit, both cheapest; of the rest
 * Winograd, 6, is the fastest). */
typedef struct fake_dnn_algo {
    int algo, status;
    size_t memory;
    double ms;
} fake_dnn_algo;
enum { N_DNN_ALGOS = 6 };
extern const fake_dnn_algo dnn_algos[N_DNN_ALGOS];
extern int last_dnn_algo; /* the algorithm the last convolution ran */

/* What the last product and convolution asked cuBLASLt and cuDNN for. */
extern int last_compute_type, last_conv_math;

/* Products with half A and B, convolutions with half X, W and Y: the
 * double reads half operands as their float values, so results carry
 * half's rounding. */
extern int half_products, half_convolutions;

#endif
