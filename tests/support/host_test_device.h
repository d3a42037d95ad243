/* A TEST DOUBLE of a device backend, "testdev", for the engine's device
 * execution tests only (never linked into the library). Its "device memory"
 * is host memory moved to another address range: a device pointer is the
 * host address plus KT_TESTDEV_OFFSET (2^47), which is no valid user-space
 * address on x86-64 or arm64, so any host read or write through a device
 * pointer faults at once (and AddressSanitizer names it). Its copies and
 * kernels do nothing when called: they go on the stream's queue and run,
 * in order, at stream_sync, so a sync the engine forgets gives wrong
 * results instead of passing by luck. It serves Relu, Add (same shape, or
 * a row broadcast over the last axis), MatMul (2-D) and Gemm (transA = 0)
 * on float32, and declines everything else. It captures graphs: between
 * graph_begin and graph_end queued work is recorded instead of run, and a
 * launch queues the recording again. Opt-in, like a GPU backend:
 * nothing probes it unless a session names it. Two devices, 0 and 1. */
#ifndef KILN_TEST_HOST_TEST_DEVICE_H
#define KILN_TEST_HOST_TEST_DEVICE_H

#include <stdint.h>

#include "core/kernel/backend.h"

#define KT_TESTDEV_OFFSET ((uintptr_t)1 << 47)

/* The double's device address of host memory: a test playing a caller
 * that holds its own device buffers fills (or reads) them on the host,
 * after a sync, and hands the library this address. */
static inline void *kt_testdev_address(void *host)
{
    return (void *)((uintptr_t)host + KT_TESTDEV_OFFSET);
}

extern const kn_backend kt_host_test_device;

/* What the double saw since kt_testdev_reset. */
typedef struct kt_testdev_counts {
    int64_t probes, opens, closes;
    int64_t allocs, frees, live_allocs, live_bytes;
    int64_t copies_to_device, copies_to_host, copies_on_device, syncs, kernels_run;
    int64_t streams_live;
    int64_t queued; /* operations waiting for a sync, on every stream */
    /* captured graphs: made by graph_end, alive, replays queued */
    int64_t graphs_captured, graphs_live, graph_launches;
} kt_testdev_counts;

void kt_testdev_reset(void);
kt_testdev_counts kt_testdev_counts_now(void);
/* What its probe answers (1 unless told otherwise). */
void kt_testdev_set_available(int available);
/* The next n kernel runs fail (KN_ERR_INTERNAL) instead of queueing. */
void kt_testdev_fail_kernels(int n);

#endif
