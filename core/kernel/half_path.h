/* float16 and bfloat16 for kernels written for float: one wrapper that
 * widens a half node's inputs to float, runs the kernel's float path
 * unchanged, and narrows its outputs back (round to nearest even, through
 * kn_convert).
 *
 * A kernel opts in with a kn_half_spec naming its float prepare / run /
 * release, and op-def entry points that call kn_half_prepare, kn_half_run
 * and kn_half_release: those pass any node whose input 0 is not float16
 * or bfloat16 straight to the float functions, so float and double run
 * exactly as before. For a half node:
 *  - prepare() shows the float kernel float descriptors of the inputs in
 *    spec->widen (same shapes, data hidden), so it validates, shapes its
 *    outputs and sizes its own scratch as for float; outputs it types float
 *    become the node's half type. Inputs in spec->widen_once that are
 *    constant (weights) are widened here, once, into the wrapper's state,
 *    and the float kernel sees them as constants (Conv packs them);
 *  - scratch is the float kernel's own, then one 64-byte-aligned float
 *    slot per other widened input and per narrowed output;
 *  - run() widens into the slots, runs the float kernel on descriptors
 *    pointing at them, and narrows the output slots into the outputs.
 * run() allocates nothing; conversion is elementwise and split across the
 * pool, so results do not depend on the thread count. */
#ifndef KN_CPU_HALF_PATH_H
#define KN_CPU_HALF_PATH_H

#include <stdint.h>

#include "core/kernel/op.h"

/* Inputs and outputs a half node may have (the wrapper's fixed arrays). */
#define KN_HALF_MAX_IO 4

typedef struct kn_half_spec {
    int (*prepare)(kn_kctx *k);   /* the float kernel */
    int (*run)(kn_kctx *k);
    void (*release)(kn_kctx *k);  /* may be NULL */
    uint32_t widen;               /* bit i: input i has the node's type (T) and is widened */
    uint32_t widen_once;          /* bit i: input i, when constant in prepare, is widened there */
    int inplace;                  /* the float run may write output 0 over input 0 */
    int32_t bf16_since;           /* first opset whose schema allows bfloat16 */
} kn_half_spec;

/* 1 for KN_FLOAT16 and KN_BFLOAT16. */
int kn_is_half(int32_t dtype);

/* The op-def entry points (see above). */
int kn_half_prepare(kn_kctx *k, const kn_half_spec *spec);
int kn_half_run(kn_kctx *k, const kn_half_spec *spec);
void kn_half_release(kn_kctx *k, const kn_half_spec *spec);

/* Defines PREFIX_any_prepare, PREFIX_any_run and PREFIX_any_release, the
 * functions an op def names, over the kn_half_spec SPEC. */
#define KN_HALF_ENTRY_POINTS(PREFIX, SPEC)                                                         \
    static int PREFIX##_any_prepare(kn_kctx *k) { return kn_half_prepare(k, &(SPEC)); }            \
    static int PREFIX##_any_run(kn_kctx *k) { return kn_half_run(k, &(SPEC)); }                    \
    static void PREFIX##_any_release(kn_kctx *k) { kn_half_release(k, &(SPEC)); }

#endif
