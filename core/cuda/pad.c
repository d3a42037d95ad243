/* Pad on the GPU (pad.cu), opsets 2 on: modes constant, reflect, edge and
 * wrap (opset 19), negative pads (crops), opset 18's axes, for any dtype of
 * 1, 2, 4 or 8 bytes. Pads, axes and the constant must be constants of the
 * model (the output shape and the kernel's parameters are fixed when the
 * plan is built); computed at run time, the node is declined to the CPU.
 * The output shape comes from the CPU kernel's prepare. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda/cuda_kernels.h"
#include "core/cuda/xy_kernel.h"
#include "core/kernel/tensor_common.h"

/* Input i's integer values, or -1 when it is not a constant (0: omitted). */
static int const_ints(const kn_kctx *k, int32_t i, int64_t *v, int32_t cap, int32_t *n)
{
    const kn_tensor *t = i < k->n_in ? k->in[i] : NULL;
    if (!t)
        return 0;
    if (!t->data || kn_tensor_numel(t) > cap)
        return -1;
    *n = (int32_t)kn_tensor_numel(t);
    for (int32_t j = 0; j < *n; j++)
        v[j] = kn_read_int(t, j);
    return 1;
}

/* Each axis's front pad into p->begin and the constant into p->value, as
 * the node states them, or KN_ERR_DECLINE. */
static int read_pads(kn_kctx *k, size_t es, kn_cuda_pad *p)
{
    const kn_tensor *x = k->in[0];
    int64_t pads[2 * KN_MAX_RANK], ax[KN_MAX_RANK];
    int32_t npads = 0, naxes = x->rank, axes[KN_MAX_RANK];
    for (int32_t d = 0; d < x->rank; d++)
        axes[d] = d;
    if (k->opset < 11) {
        const int64_t *a = kn_attr_ints(k->node, "pads", &npads);
        if (!a || npads > 2 * KN_MAX_RANK)
            return KN_ERR_DECLINE;
        memcpy(pads, a, sizeof(int64_t) * (size_t)npads);
        if (!kn_convert_supported(x->dtype))
            return KN_ERR_DECLINE;
        kn_scalar_from_double(x->dtype, kn_attr_float(k->node, "value", 0), &p->value);
    } else {
        int32_t nax = 0;
        if (const_ints(k, 1, pads, 2 * KN_MAX_RANK, &npads) != 1)
            return KN_ERR_DECLINE;
        int has_axes = k->opset >= 18 ? const_ints(k, 3, ax, KN_MAX_RANK, &nax) : 0;
        if (has_axes < 0)
            return KN_ERR_DECLINE;
        for (int32_t i = 0; has_axes && i < nax; i++)
            if ((axes[i] = kn_norm_axis(ax[i], x->rank, k->err)) < 0)
                return KN_ERR_DECLINE; /* the CPU kernel has accepted it: cannot happen */
        if (has_axes)
            naxes = nax;
        const kn_tensor *v = k->n_in > 2 ? k->in[2] : NULL;
        if (v && kn_tensor_numel(v) > 0) {
            if (!v->data || v->dtype != x->dtype)
                return KN_ERR_DECLINE;
            memcpy(&p->value, v->data, es);
        }
    }
    if (npads != 2 * naxes)
        return KN_ERR_DECLINE;
    for (int32_t i = 0; i < naxes; i++)
        p->begin[axes[i]] = pads[i];
    return KN_OK;
}

static int pad_prepare(kn_kctx *k)
{
    KN_CUDA_REQUIRE_DEVICE(k);
    static const char *const modes[] = {"constant", "reflect", "edge", "wrap"};
    const kn_tensor *x = k->in[0];
    if (!x || x->rank < 1 || x->rank > KN_CUDA_MAX_DIMS || x->dtype == KN_STRING ||
        x->dtype <= KN_UNDEFINED || x->dtype >= KN_DTYPE_COUNT || k->opset < 2)
        return KN_ERR_DECLINE;
    size_t es = kn_dtype_size(x->dtype);
    if (!(es == 1 || es == 2 || es == 4 || es == 8))
        return KN_ERR_DECLINE;
    kn_cuda_pad p;
    memset(&p, 0, sizeof p);
    const char *mode = kn_attr_string(k->node, "mode", "constant");
    p.mode = -1;
    for (int32_t m = 0; m < 4; m++)
        if (strcmp(mode, modes[m]) == 0)
            p.mode = m;
    int rc;
    if (p.mode < 0 || (p.mode == KN_CUDA_PAD_WRAP && k->opset < 19) ||
        (rc = read_pads(k, es, &p)) != KN_OK)
        return KN_ERR_DECLINE;
    if ((rc = kn_cuda_shapes_from_cpu(k)) != KN_OK)
        return rc;
    const kn_tensor *y = k->out[0];
    p.n = kn_tensor_numel(y);
    p.rank = x->rank;
    int64_t stride = 1;
    for (int32_t d = x->rank - 1; d >= 0; d--) {
        p.in_dims[d] = x->dims[d];
        p.out_dims[d] = y->dims[d];
        p.in_stride[d] = stride;
        stride *= x->dims[d];
    }
    char name[24];
    snprintf(name, sizeof name, "kn_pad_%zu", es);
    return kn_cuda_xy_prepare(k, "pad", name, &p, sizeof p, p.n);
}

const kn_op_def kn_cuda_Pad = {.op_type = "Pad",
                               .since_version = 2,
                               .prepare = pad_prepare,
                               .run = kn_cuda_xy_run,
                               .release = kn_cuda_xy_release};
