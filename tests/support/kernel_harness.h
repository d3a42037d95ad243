/* Runs a single kernel outside any graph, for kernel unit tests: build a
 * node with attributes, give input tensors, get outputs. */
#ifndef KILN_KERNEL_HARNESS_H
#define KILN_KERNEL_HARNESS_H

#include "core/kernel/backend.h"
#include "core/kernel/op.h"

/* The oneDNN backend's descriptor (core/dnnl/, or its never-available
 * absent/ variant): tests name it to run its kernels. */
extern const kn_backend kn_backend_dnnl;

#define KH_MAX_ATTRS 16
#define KH_MAX_IO 16

typedef struct kh_case {
    kn_node node;
    kn_attr attrs[KH_MAX_ATTRS];
    int32_t in_ids[KH_MAX_IO], out_ids[KH_MAX_IO];
    kn_tensor in[KH_MAX_IO];   /* fill dtype/rank/dims/data; data NULL = omitted input */
    kn_tensor out[KH_MAX_IO];  /* filled by kh_run; data malloc'd, freed by kh_free */
    int32_t n_in, n_out;
    int64_t opset;
    /* 1: inputs are shown to prepare() as constants (data visible), the way
     * folded/initializer inputs are; 0: data hidden during prepare(). */
    int inputs_constant_in_prepare;
    /* the kernel variant prepare builds (kn_kctx.variant), and how many
     * variants prepare reported (kn_kctx.n_variants) */
    int32_t variant, n_variants;
    kn_err err;
} kh_case;

/* Starts a case for op_type (domain "") with n_in inputs and n_out outputs. */
void kh_init(kh_case *c, const char *op_type, int64_t opset, int32_t n_in, int32_t n_out);
void kh_attr_int(kh_case *c, const char *name, int64_t v);
void kh_attr_float(kh_case *c, const char *name, float v);
void kh_attr_string(kh_case *c, const char *name, const char *v);
void kh_attr_ints(kh_case *c, const char *name, const int64_t *v, int32_t n);
void kh_attr_floats(kh_case *c, const char *name, const float *v, int32_t n);
void kh_attr_tensor(kh_case *c, const char *name, const kn_tensor *t);
/* Sets input i (data is borrowed). rank dims given as an array. */
void kh_input(kh_case *c, int32_t i, int32_t dtype, const int64_t *dims, int32_t rank,
              const void *data);
/* Finds the CPU kernel (by input 0's dtype), prepares and runs it with
 * `threads` threads; returns the status (message in c->err.msg). */
int kh_run(kh_case *c, int32_t threads);
/* kh_run with the kernel of `backend` for the node's domain, where prepare
 * sees the data of the inputs in const_mask only (bit i: input i). */
int kh_run_kernel(kh_case *c, int32_t threads, const kn_backend *backend, uint32_t const_mask);
/* Only prepares (and releases) that kernel; the scratch bytes it asked for
 * go to *scratch_bytes. Returns prepare's status. */
int kh_prepare_kernel(kh_case *c, const kn_backend *backend, uint32_t const_mask, size_t *scratch_bytes);
void kh_free(kh_case *c);

#endif
