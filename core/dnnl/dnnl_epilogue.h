/* Activations Kiln applies after a oneDNN primitive instead of as its
 * eltwise post-op. oneDNN 2.6's swish and logistic post-ops cost about
 * 0.5 ns per element on AVX-512 (measured on a 1x1 convolution writing
 * 1.2 M values: 0.44 ms plain, 1.08 ms with swish), Kiln's vector SiLU
 * about 0.3 ns, so one extra pass over the output, usually still in cache,
 * is cheaper. The other activations stay post-ops: oneDNN's are as fast
 * or faster than ours there. */
#ifndef KN_DNNL_EPILOGUE_H
#define KN_DNNL_EPILOGUE_H

#include "core/op.h"
#include "core/simd/activation.h"

/* Splits act into what the post-op does (*post) and what Kiln does after
 * the primitive (*after); either may come back KN_ACT_NONE. */
void kn_dnnl_split_activation(const kn_activation *act, kn_activation *post,
                              kn_activation *after);

/* Applies `after` in place over the float output y, split across the
 * kernel's pool; nothing when it is KN_ACT_NONE. */
void kn_dnnl_apply_after(kn_kctx *k, const kn_activation *after, kn_tensor *y);

#endif
