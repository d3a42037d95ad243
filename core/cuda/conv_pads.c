/* Convolutions whose pads differ on the two sides of a dim (TensorFlow's
 * SAME padding with an even window or a stride, exported as explicit pads
 * or as auto_pad): cuDNN pads both sides of a dim alike, so conv.c's kernel
 * declines them. Here X is first padded with zeros on the device (pad.cu's
 * kernel, into scratch) and conv.c's kernel runs on the padded X with no
 * pads. table.c lists these wrappers for Conv, kiln.FusedConv and
 * kiln.NhwcConv; a node conv.c's kernel takes as it is goes straight to it,
 * and one it declines for any other reason stays declined. */
#include <stdlib.h>
#include <string.h>

#include "core/cuda/cuda_kernels.h"

extern const kn_op_def kn_cuda_Conv, kn_cuda_kiln_FusedConv, kn_cuda_kiln_NhwcConv;

enum { PADDED_MAX_INPUTS = 4 }; /* X, W, B, Z */

typedef struct padded_conv {
    const kn_op_def *inner;
    int padded;        /* 0: the inner kernel took the node as it is */
    void *inner_state; /* when not padded */
    kn_kctx ik;        /* the inner kernel's view: the node without pads, X padded */
    kn_node node;
    kn_attr *attrs;
    int64_t zero_pads[6];
    kn_tensor x; /* padded X; its data in scratch, at x_off */
    kn_tensor *in[PADDED_MAX_INPUTS];
    size_t x_off;
    kn_cudaKernel pad_fn;
    kn_cuda_pad p;
} padded_conv;

static const kn_op_def *inner_of(const kn_kctx *k)
{
    if (strcmp(k->node->op_type, "Conv") == 0)
        return &kn_cuda_Conv;
    return strcmp(k->node->op_type, "NhwcConv") == 0 ? &kn_cuda_kiln_NhwcConv
                                                     : &kn_cuda_kiln_FusedConv;
}

static void padded_free(padded_conv *st)
{
    free(st->attrs);
    free(st);
}

/* Each spatial dim's front and back pads as the node states them (auto_pad
 * SAME from the output length ONNX gives it); 0 when they cannot be read. */
static int read_pads(const kn_kctx *k, int nhwc, int64_t *begin, int64_t *end)
{
    const kn_tensor *x = k->in[0], *w = k->in[1];
    int32_t nsp = x->rank - 2, n_pads = 0, n_strides = 0, n_dil = 0;
    const int64_t *pads = kn_attr_ints(k->node, "pads", &n_pads);
    const int64_t *strides = kn_attr_ints(k->node, "strides", &n_strides);
    const int64_t *dil = kn_attr_ints(k->node, "dilations", &n_dil);
    const char *auto_pad = kn_attr_string(k->node, "auto_pad", "NOTSET");
    if (!w || w->rank != x->rank || (n_pads && n_pads != 2 * nsp) ||
        (n_strides && n_strides != nsp) || (n_dil && n_dil != nsp))
        return 0;
    int same = strncmp(auto_pad, "SAME_", 5) == 0, notset = strcmp(auto_pad, "NOTSET") == 0;
    for (int32_t d = 0; d < nsp; d++) {
        int64_t in = x->dims[nhwc ? 1 + d : 2 + d], s = n_strides ? strides[d] : 1;
        int64_t span = (w->dims[2 + d] - 1) * (n_dil ? dil[d] : 1) + 1;
        begin[d] = notset && n_pads ? pads[d] : 0;
        end[d] = notset && n_pads ? pads[nsp + d] : 0;
        if (same && s > 0) {
            int64_t total = ((in + s - 1) / s - 1) * s + span - in;
            total = total < 0 ? 0 : total;
            begin[d] = auto_pad[5] == 'U' ? total / 2 : total - total / 2;
            end[d] = total - begin[d];
        }
        if (begin[d] < 0 || end[d] < 0)
            return 0;
    }
    return 1;
}

/* The node's attributes with pads all 0 and auto_pad NOTSET. */
static int strip_pads(padded_conv *st, const kn_node *node, int32_t nsp)
{
    st->node = *node;
    st->attrs = calloc((size_t)node->n_attrs + 1, sizeof *st->attrs);
    if (!st->attrs)
        return 0;
    memcpy(st->attrs, node->attrs, sizeof *st->attrs * (size_t)node->n_attrs);
    for (int32_t i = 0; i < node->n_attrs; i++) {
        kn_attr *a = &st->attrs[i];
        if (strcmp(a->name, "pads") == 0) {
            a->ints = st->zero_pads;
            a->count = 2 * nsp;
        } else if (strcmp(a->name, "auto_pad") == 0) {
            a->s = "NOTSET";
            a->s_len = 6;
        }
    }
    st->node.attrs = st->attrs;
    return 1;
}

static int padded_prepare(kn_kctx *k)
{
    const kn_op_def *inner = inner_of(k);
    int rc = inner->prepare(k);
    if (rc == KN_OK) {
        padded_conv *st = calloc(1, sizeof *st);
        if (!st) {
            if (inner->release)
                inner->release(k);
            return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
        }
        st->inner = inner;
        st->inner_state = k->state;
        k->state = st;
        return KN_OK;
    }
    const kn_tensor *x = k->in[0];
    int nhwc = inner == &kn_cuda_kiln_NhwcConv;
    int64_t begin[3], end[3];
    if (rc != KN_ERR_DECLINE || !k->device || !x || x->dtype != KN_FLOAT || x->rank < 3 ||
        x->rank > 5 || k->n_in < 2 || k->n_in > PADDED_MAX_INPUTS ||
        !read_pads(k, nhwc, begin, end))
        return rc;
    int32_t nsp = x->rank - 2, uneven = 0;
    for (int32_t d = 0; d < nsp; d++)
        uneven |= begin[d] != end[d];
    if (!uneven)
        return KN_ERR_DECLINE; /* declined for another reason */

    padded_conv *st = calloc(1, sizeof *st);
    if (!st || !strip_pads(st, k->node, nsp)) {
        free(st);
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    }
    st->inner = inner;
    st->padded = 1;
    st->x = (kn_tensor){.dtype = KN_FLOAT, .rank = x->rank};
    memcpy(st->x.dims, x->dims, sizeof(int64_t) * (size_t)x->rank);
    st->p = (kn_cuda_pad){.rank = x->rank, .mode = KN_CUDA_PAD_CONSTANT};
    for (int32_t d = 0; d < nsp; d++) {
        int32_t axis = nhwc ? 1 + d : 2 + d;
        st->x.dims[axis] += begin[d] + end[d];
        st->p.begin[axis] = begin[d];
    }
    int64_t stride = 1;
    for (int32_t d = x->rank - 1; d >= 0; d--) {
        st->p.in_dims[d] = x->dims[d];
        st->p.out_dims[d] = st->x.dims[d];
        st->p.in_stride[d] = stride;
        stride *= x->dims[d];
    }
    st->p.n = kn_tensor_numel(&st->x);
    st->in[0] = &st->x;
    for (int32_t j = 1; j < k->n_in; j++)
        st->in[j] = k->in[j];
    st->ik = *k;
    st->ik.node = &st->node;
    st->ik.in = st->in;
    st->ik.state = NULL;
    st->ik.scratch_bytes = 0;
    rc = inner->prepare(&st->ik);
    if (rc != KN_OK) {
        padded_free(st);
        return rc;
    }
    st->pad_fn = kn_cuda_kernel(kn_cuda_dev(k), "pad", "kn_pad_4", k->err);
    if (!st->pad_fn) {
        if (inner->release)
            inner->release(&st->ik);
        padded_free(st);
        return k->err->code;
    }
    /* an FP16 inner kernel that took the filter's half copy cleared its
     * view's slot: the node's too, so the engine uploads no float filter */
    if (!st->in[1])
        k->in[1] = NULL;
    k->n_variants = st->ik.n_variants;
    st->x_off = (st->ik.scratch_bytes + 255) & ~(size_t)255;
    k->scratch_bytes = st->x_off + (size_t)kn_tensor_nbytes(&st->x);
    k->state = st;
    return KN_OK;
}

/* The inner kernel's context for this run: the engine points the node's
 * tensors (device copies), scratch and stream at their places after
 * prepare, so they are taken from k each time. */
static kn_kctx inner_view(kn_kctx *k, padded_conv *st)
{
    if (!st->padded) {
        kn_kctx ik = *k;
        ik.state = st->inner_state;
        return ik;
    }
    kn_kctx ik = st->ik;
    for (int32_t j = 1; j < k->n_in; j++)
        st->in[j] = k->in[j];
    ik.out = k->out;
    ik.scratch = k->scratch;
    ik.device = k->device;
    ik.stream = k->stream;
    ik.err = k->err;
    ik.threads = k->threads;
    return ik;
}

static int padded_run(kn_kctx *k)
{
    padded_conv *st = k->state;
    kn_kctx ik = inner_view(k, st);
    if (st->padded && st->p.n > 0) {
        const void *x = k->in[0]->data;
        void *xp = (unsigned char *)k->scratch + st->x_off;
        void *args[] = {&x, &xp, &st->p};
        int rc = kn_cuda_launch_1d(k, st->pad_fn, st->p.n, args);
        if (rc != KN_OK)
            return rc;
        st->x.data = xp;
    }
    return st->inner->run(&ik);
}

static void padded_release(kn_kctx *k)
{
    padded_conv *st = k->state;
    if (!st)
        return;
    kn_kctx ik = inner_view(k, st);
    if (st->inner->release)
        st->inner->release(&ik);
    padded_free(st);
    k->state = NULL;
}

#define F32 KN_BIT(KN_FLOAT)
const kn_op_def kn_cuda_padded_Conv = {.op_type = "Conv",
                                       .since_version = 1,
                                       .dtypes = F32,
                                       .prepare = padded_prepare,
                                       .run = padded_run,
                                       .release = padded_release};
const kn_op_def kn_cuda_padded_FusedConv = {.domain = "kiln",
                                            .op_type = "FusedConv",
                                            .since_version = 1,
                                            .dtypes = F32,
                                            .prepare = padded_prepare,
                                            .run = padded_run,
                                            .release = padded_release};
const kn_op_def kn_cuda_padded_NhwcConv = {.domain = "kiln",
                                           .op_type = "NhwcConv",
                                           .since_version = 1,
                                           .dtypes = F32,
                                           .prepare = padded_prepare,
                                           .run = padded_run,
                                           .release = padded_release};
