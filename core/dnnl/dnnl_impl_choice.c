#include "core/dnnl/dnnl_impl_choice.h"

#include <string.h>

static const char *const depthwise[] = {"jit_dw:", NULL};
static const char *const narrow_tail_1x1[] = {"jit_1x1:avx2", NULL};

const char *const *kn_dnnl_conv_prefer(int64_t group, int64_t cin, int64_t cout,
                                       int64_t kernel_pixels, int splits_512)
{
    if (!splits_512)
        return NULL;
    if (group > 1 && group == cin && group == cout)
        return depthwise;
    if (group == 1 && kernel_pixels == 1 && cout % 16 == 8)
        return narrow_tail_1x1;
    return NULL;
}

int kn_dnnl_impl_rank(const char *const *prefer, const char *impl)
{
    for (int i = 0; prefer && impl && prefer[i]; i++)
        if (strncmp(impl, prefer[i], strlen(prefer[i])) == 0)
            return i;
    return -1;
}
