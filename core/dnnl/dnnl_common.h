/* What the oneDNN kernels share: one primitive with its memory objects,
 * built in prepare() and only executed in run().
 *
 * A kn_dnnl_prim owns a CPU engine and stream, the primitive, and one
 * dnnl_memory_t per execution argument. Each argument is bound either to a
 * kernel input or output, to the kernel's scratch (the primitive's
 * scratchpad: scratchpad mode is "user", so oneDNN allocates none itself),
 * or to memory the state owns (weights reordered once into the layout the
 * primitive prefers). run() points the memories at this run's buffers, sets
 * the OpenMP thread count to the runtime's, and executes. */
#ifndef KN_DNNL_COMMON_H
#define KN_DNNL_COMMON_H

#include <oneapi/dnnl/dnnl.h>

#include "core/dnnl/dnnl_loader.h"

#include "core/kernel/op.h"
#include "core/simd/activation.h"

#define KN_DNNL_MAX_ARGS 16

enum { KN_DNNL_BIND_INPUT, KN_DNNL_BIND_OUTPUT, KN_DNNL_BIND_SCRATCH, KN_DNNL_BIND_OWNED };

typedef struct kn_dnnl_arg {
    int arg;          /* DNNL_ARG_* */
    int bind;         /* KN_DNNL_BIND_* */
    int32_t index;    /* input or output index */
    size_t offset;    /* into the scratch, for KN_DNNL_BIND_SCRATCH */
    dnnl_memory_t mem;
} kn_dnnl_arg;

typedef struct kn_dnnl_prim {
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    dnnl_primitive_t prim;
    kn_dnnl_arg args[KN_DNNL_MAX_ARGS];
    dnnl_exec_arg_t exec[KN_DNNL_MAX_ARGS];
    int32_t n_args;
    int32_t threads;
    void *owned;      /* reordered weights (kn_aligned_alloc), or NULL */
    /* Weights from the model's store (dnnl_shared_weights.c): a packed copy
     * it shares, or a reference to raw bytes read in place; released with
     * the primitive. */
    struct kn_weight_store *store;
    const void *shared;
    int32_t raw_value;
    uint8_t holds_raw;
    /* applied to output 0 by Kiln's vector kernel after each execution
     * (kn_dnnl_take_activation); KN_ACT_NONE: none */
    kn_activation after;
    /* KN_PRECISION_BF16: float primitives may compute in bfloat16
     * (oneDNN's fpmath mode), from the session */
    int32_t precision;
} kn_dnnl_prim;

/* Engine and stream; threads from the kernel's pool. */
int kn_dnnl_prim_init(kn_dnnl_prim *p, kn_kctx *k);
/* Frees everything p holds (NULL-safe members). */
void kn_dnnl_prim_destroy(kn_dnnl_prim *p);

/* The life of a oneDNN kernel's state, shared by every kernel here. The
 * state is state_bytes long and begins with its kn_dnnl_prim. prepare
 * allocates it, initialises the primitive's engine and stream, calls
 * build(k, prim, a, b) (which adds the arguments and kn_dnnl_finish-es),
 * and releases everything when that fails; run executes the primitive;
 * release frees the state. */
typedef int (*kn_dnnl_build_fn)(kn_kctx *k, kn_dnnl_prim *p, int a, int b);
int kn_dnnl_prepare(kn_kctx *k, size_t state_bytes, kn_dnnl_build_fn build, int a, int b);
int kn_dnnl_run(kn_kctx *k);
void kn_dnnl_release(kn_kctx *k);
/* KN_ERR_DECLINE "oneDNN <op>: why": the CPU kernel takes the node. */
int kn_dnnl_decline(kn_kctx *k, const char *why);

/* A primitive attribute with user scratchpad and the activation as eltwise
 * post-ops, after a sum post-op when with_sum is set. Returns
 * KN_ERR_DECLINE when oneDNN has no post-op for the activation. */
int kn_dnnl_attr_create(const kn_activation *act, int with_sum, dnnl_primitive_attr_t *attr,
                        kn_err *err);

/* Appends act's eltwise post-ops to po (nothing for KN_ACT_NONE); *missing
 * set when oneDNN has none for it. */
dnnl_status_t kn_dnnl_append_activation(dnnl_post_ops_t po, const kn_activation *act, int *missing);

/* Activations Kiln applies faster after the primitive than oneDNN 2.6 as
 * a post-op: moves such an *act into p->after, leaving *act NONE. */
void kn_dnnl_take_activation(kn_dnnl_prim *p, kn_activation *act);

/* The session allows bf16 and the CPU multiplies bf16 natively (AVX512-BF16
 * or AMX); elsewhere oneDNN would emulate it, slower than float32. */
int kn_dnnl_bf16_wanted(const kn_kctx *k);

/* Creates the primitive descriptor for op_desc, with the attribute of
 * kn_dnnl_attr_create(act or none when NULL, with_sum), on p's engine: the
 * implementation `prefer` ranks best (implementation-name prefixes,
 * dnnl_impl_choice.h), else or when NULL oneDNN's first. KN_ERR_DECLINE
 * when oneDNN has no implementation or only its slow reference one. */
int kn_dnnl_pd_create(const void *op_desc, const kn_activation *act, int with_sum,
                      const char *const *prefer, kn_dnnl_prim *p, dnnl_primitive_desc_t *pd,
                      kn_err *err);

/* kn_dnnl_pd_create with an attribute the caller built (and still owns). */
int kn_dnnl_pd_create_attr(const void *op_desc, const_dnnl_primitive_attr_t attr,
                           const char *const *prefer, kn_dnnl_prim *p, dnnl_primitive_desc_t *pd,
                           kn_err *err);

/* KN_ERR_DECLINE (and *pd destroyed) when pd is oneDNN's reference code. */
int kn_dnnl_pd_check(dnnl_primitive_desc_t *pd, kn_err *err);

/* Adds an execution argument bound as described, with memory of md. */
int kn_dnnl_add_arg(kn_dnnl_prim *p, int arg, int bind, int32_t index,
                    const dnnl_memory_desc_t *md, kn_err *err);

/* An argument bound to the kernel's scratch at byte `offset` (a buffer
 * between two primitives of one kernel), and moving it there later. */
int kn_dnnl_add_scratch_arg(kn_dnnl_prim *p, int arg, size_t offset,
                            const dnnl_memory_desc_t *md, kn_err *err);
void kn_dnnl_set_scratch_offset(kn_dnnl_prim *p, int arg, size_t offset);

/* Bytes of the scratchpad pd asks for (0 if none). */
size_t kn_dnnl_scratchpad_bytes(const_dnnl_primitive_desc_t pd);
/* p (uninitialized) becomes a reorder from -> to inside one kernel: kernel
 * input `input` into the scratch when input >= 0, else the scratch into
 * output 0; the scratch side at offset 0 until kn_dnnl_set_scratch_offset
 * places it. *sp_bytes: the reorder's own scratchpad. */
int kn_dnnl_reorder_build(kn_kctx *k, kn_dnnl_prim *p, const dnnl_memory_desc_t *from,
                          const dnnl_memory_desc_t *to, int32_t input, size_t *sp_bytes);

/* The source of p (primitive descriptor pd) computing in bf16 on float32
 * kernel input 0: to_bf16 (uninitialized) becomes the reorder of that input
 * (layout f32) into the scratch as `bf16`, placed after the larger of the
 * two primitives' scratchpads, and p's DNNL_ARG_SRC reads it there. Run
 * to_bf16 before p; after kn_dnnl_finish, k->scratch_bytes = *offset + the
 * copy's size (kn_dnnl_bf16_src_scratch). */
int kn_dnnl_add_bf16_src(kn_kctx *k, kn_dnnl_prim *p, kn_dnnl_prim *to_bf16,
                         const_dnnl_primitive_desc_t pd, const dnnl_memory_desc_t *f32,
                         const dnnl_memory_desc_t *bf16, size_t *offset);
size_t kn_dnnl_bf16_src_scratch(size_t offset, const dnnl_memory_desc_t *bf16);

/* Weights: when the primitive wants layout `want` other than the user's
 * `have`, reorders the constant data once into owned memory; else the
 * state keeps pointing at the constant (it lives as long as the model).
 * Adds the DNNL_ARG_WEIGHTS argument either way. */
int kn_dnnl_add_const_weights(kn_dnnl_prim *p, const dnnl_memory_desc_t *have,
                              const dnnl_memory_desc_t *want, const void *data, kn_err *err);

/* Weights input `input`, an initializer the model's store shares
 * (kn_weight_store_shares(k->weights, value) holds): the store's shared
 * copy packed as `want`, made once per model; or, when `want` is the
 * user's layout `have`, the raw bytes in place, kept resident while the
 * primitive lives. Adds the DNNL_ARG_WEIGHTS argument either way. one_way:
 * `want` cannot be reordered back to `have` exactly (Winograd's transformed
 * weights), so the store never restores the raw bytes from this copy. */
int kn_dnnl_add_shared_weights(kn_dnnl_prim *p, kn_kctx *k, int32_t input,
                               const dnnl_memory_desc_t *have, const dnnl_memory_desc_t *want,
                               int one_way);

/* Reorders src (layout `from`) into dst (layout `to`) now, on p's engine
 * and stream with p's threads. */
int kn_dnnl_reorder(kn_dnnl_prim *p, const dnnl_memory_desc_t *from, const dnnl_memory_desc_t *to,
                    const void *src, void *dst, kn_err *err);

/* Creates the primitive from pd (then destroyed), sizes k->scratch_bytes
 * for its scratchpad and adds the scratchpad argument. */
int kn_dnnl_finish(kn_dnnl_prim *p, dnnl_primitive_desc_t pd, kn_kctx *k);

/* Binds this run's buffers and executes. */
int kn_dnnl_execute(kn_dnnl_prim *p, kn_kctx *k);

/* Work (multiply-adds, or window taps for pools) below which a node is
 * left to Kiln's own kernels: a oneDNN call costs a few microseconds of
 * argument hashing, small heap allocations inside dnnl_primitive_execute and
 * OpenMP dispatch, about what Kiln's kernels need for the whole op. */
#define KN_DNNL_MIN_MACS 65536.0
#define KN_DNNL_MIN_POOL_TAPS 16384.0

/* Tensors beyond 2^31 elements are left to Kiln's kernels, which report
 * what does not fit; oneDNN's int-sized loop bounds would not hold them. */
static inline int kn_dnnl_too_large(const kn_tensor *t)
{
    int64_t n = kn_tensor_numel(t);
    return n < 0 || n > ((int64_t)1 << 31);
}

/* oneDNN status to a Kiln error naming what failed. */
int kn_dnnl_fail(kn_err *err, dnnl_status_t s, const char *what);

/* Plain (dense, row-major) memory descriptor for logical dims; tag picks
 * the physical order for rank 3..5 ("nhwc" when channels_last). */
int kn_dnnl_md_plain(dnnl_memory_desc_t *md, int32_t rank, const int64_t *dims,
                     int channels_last, kn_err *err);
/* The same for elements of `type`. */
int kn_dnnl_md_typed(dnnl_memory_desc_t *md, int32_t rank, const int64_t *dims,
                     dnnl_data_type_t type, int channels_last, kn_err *err);

#endif
