/* Which of oneDNN's implementations serves a convolution.
 *
 * oneDNN lists its implementations in the order its authors tuned for
 * their own cores, and dnnl_primitive_desc_create takes the first that
 * accepts the node. On cores that split 512-bit FMAs in two (AMD Zen 4,
 * kn_cpu_splits_512), two of those first choices lose to one further down
 * the list, measured per layer on MobileNet-V2 / EfficientNet-B0 shapes
 * (1 thread, NHWC, oneDNN 2.6; docs/design.md has the table):
 *  - depthwise: brdgmm_dw comes first, jit_dw is 10-35 % faster
 *    (3x3 over 144 channels at 56x56: 0.119 -> 0.084 ms);
 *  - 1x1 convolutions with 8 output channels past a 16-block (24, 40): the
 *    512-bit kernels fill a third of their last vector with padding,
 *    the 256-bit jit_1x1 none (144 -> 24 at 56x56: 0.256 -> 0.194 ms).
 * Elsewhere (and on every other CPU) oneDNN's own order stands. */
#ifndef KN_DNNL_IMPL_CHOICE_H
#define KN_DNNL_IMPL_CHOICE_H

#include <stdint.h>

/* Implementation-name prefixes (oneDNN's impl_info_str) to prefer, best
 * first, NULL-terminated; NULL to take oneDNN's first. group, cin and cout
 * are the convolution's; kernel_pixels the product of its kernel's spatial
 * dims; splits_512 kn_cpu_splits_512()'s answer. */
const char *const *kn_dnnl_conv_prefer(int64_t group, int64_t cin, int64_t cout,
                                       int64_t kernel_pixels, int splits_512);

/* Rank of implementation `impl` under `prefer`: the index of the first
 * prefix it starts with, or -1 when it matches none. */
int kn_dnnl_impl_rank(const char *const *prefer, const char *impl);

#endif
