/* Shared pieces of the kiln-domain fused kernels (fused_*.c): reading the
 * `activation` / `activation_params` attributes, running a standard kernel
 * (Gemm, MatMul) inside a fused one, and parallel epilogues. */
#ifndef KN_CPU_FUSED_COMMON_H
#define KN_CPU_FUSED_COMMON_H

#include "core/kernel/op.h"
#include "core/simd/activation.h"

/* The `activation` attribute's value for a kind ("" for none), and back
 * (-1 for an unknown name); activation_params count per kind (0 to 2). */
const char *kn_fused_act_name(kn_act_kind kind);
int kn_fused_act_from_name(const char *name);
int kn_fused_act_param_count(kn_act_kind kind);

/* Reads the node's activation attributes into *act; KN_ERR_INVALID_MODEL
 * naming the problem for an unknown name or a wrong parameter count. */
int kn_fused_activation(kn_kctx *k, kn_activation *act);

/* A standard op run on the fused node's inputs [0, n_in) and output 0:
 * its kernel reads the attributes it knows from the fused node and
 * ignores the rest. */
typedef struct kn_inner_op {
    const kn_op_def *def;
    kn_kctx k;
} kn_inner_op;

/* Prepares op_type (default domain, at `opset`) for input 0's dtype; the
 * fused kernel's scratch then is the inner kernel's. */
int kn_inner_prepare(kn_inner_op *in, kn_kctx *outer, const char *op_type, int64_t opset,
                     int32_t n_in);
int kn_inner_run(kn_inner_op *in, kn_kctx *outer);
void kn_inner_release(kn_inner_op *in);

/* y = act(y) over n floats, in parallel. */
void kn_fused_act(kn_threadpool *pool, float *y, int64_t n, const kn_activation *act);
/* y[r][c] = act(y[r][c] + bias[c]) for rows x cols floats (bias may be NULL). */
void kn_fused_bias_act_rows(kn_threadpool *pool, float *y, int64_t rows, int64_t cols,
                            const float *bias, const kn_activation *act);
/* y = act(y + z) where z broadcasts (numpy rules) to y's shape. */
void kn_fused_add_act(kn_threadpool *pool, kn_tensor *y, const kn_tensor *z,
                      const kn_activation *act);

#endif
