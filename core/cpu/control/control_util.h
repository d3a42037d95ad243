/* Helpers the control-flow kernels share: tensors that own their bytes
 * (loop-carried values outlive the subgraph run that produced them) and
 * slicing along an axis. */
#ifndef KN_CONTROL_UTIL_H
#define KN_CONTROL_UTIL_H

#include "core/kernel/op.h"

typedef struct kn_owned {
    kn_tensor t; /* t.data is malloc'd (at least 1 byte) */
} kn_owned;

/* Replaces o's content with a copy of src. */
int kn_owned_set(kn_owned *o, const kn_tensor *src, kn_err *err);
void kn_owned_free(kn_owned *o);

/* Copies the slice at `index` along `axis` of src into dst (src's shape
 * without that axis). */
void kn_slice_axis(const kn_tensor *src, int32_t axis, int64_t index, void *dst);
/* Writes slice (dst's shape without `axis`) at `index` along `axis` of dst. */
void kn_place_axis(kn_tensor *dst, int32_t axis, int64_t index, const void *slice);

/* Copies a kept result into the node's output. String characters are
 * copied into plan memory (engine alloc), since the kept copy dies with the
 * kernel's state. Control-flow nodes only run while the plan is built
 * (their prepare needs values), so this never allocates in a planned run. */
int kn_copy_result(const kn_kctx *k, kn_tensor *dst, const kn_tensor *src);

/* A subgraph attribute, or an error naming it. */
const kn_graph *kn_graph_attr(const kn_kctx *k, const char *name);
/* Runs g and reports its errors with the kernel's context. */
int kn_run_body(const kn_kctx *k, const kn_graph *g, const kn_tensor *const *inputs, int32_t n,
                kn_subgraph_result **result);

#endif
