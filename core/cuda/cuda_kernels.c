#include "core/cuda/cuda_kernels.h"

#include <string.h>

#include "core/kernel/backend.h"
#include "core/kernel/fused_common.h"

/* Activations travel to the device by kn_act_kind's number. */
#define SAME_NUMBER(a, b) ((int)(a) == (int)(b))
_Static_assert(SAME_NUMBER(KN_CUDA_U_RELU, KN_ACT_RELU) &&
                   SAME_NUMBER(KN_CUDA_U_CLIP, KN_ACT_CLIP) &&
                   SAME_NUMBER(KN_CUDA_U_LEAKY_RELU, KN_ACT_LEAKY_RELU) &&
                   SAME_NUMBER(KN_CUDA_U_SIGMOID, KN_ACT_SIGMOID) &&
                   SAME_NUMBER(KN_CUDA_U_HARD_SIGMOID, KN_ACT_HARD_SIGMOID) &&
                   SAME_NUMBER(KN_CUDA_U_TANH, KN_ACT_TANH) &&
                   SAME_NUMBER(KN_CUDA_U_HARD_SWISH, KN_ACT_HARD_SWISH) &&
                   SAME_NUMBER(KN_CUDA_U_SILU, KN_ACT_SILU) &&
                   SAME_NUMBER(KN_CUDA_U_GELU, KN_ACT_GELU) &&
                   (int)KN_ACT_COUNT <= (int)KN_CUDA_U_EXP,
               "device_params.h's activations must be kn_act_kind's numbers");
_Static_assert(KN_CUDA_MAX_DIMS >= KN_MAX_RANK, "a walk must hold every rank Kiln has");

int kn_cuda_same_shape(const kn_tensor *a, const kn_tensor *b)
{
    return kn_shape_equal(a->dims, a->rank, b->dims, b->rank);
}

/* Row-major element strides of t aligned to the last `rank` dims of an
 * output of that rank, 0 where t has size 1 (broadcast) or no dim. */
static void broadcast_strides(const kn_tensor *t, int32_t rank, const int64_t *out_dims,
                              int64_t *stride)
{
    int64_t step = 1;
    for (int32_t d = rank - 1; d >= 0; d--) {
        int32_t td = d - (rank - t->rank);
        if (td < 0) {
            stride[d] = 0;
            continue;
        }
        stride[d] = t->dims[td] == 1 && out_dims[d] != 1 ? 0 : step;
        step *= t->dims[td];
    }
}

void kn_cuda_walk_binary(kn_cuda_walk *w, const kn_tensor *y, const kn_tensor *a,
                         const kn_tensor *b)
{
    memset(w, 0, sizeof *w);
    w->n = kn_tensor_numel(y);
    w->rank = y->rank;
    memcpy(w->dims, y->dims, sizeof(int64_t) * (size_t)y->rank);
    w->flat = kn_cuda_same_shape(a, y) && (!b || kn_cuda_same_shape(b, y));
    broadcast_strides(a, y->rank, y->dims, w->stride[0]);
    if (b)
        broadcast_strides(b, y->rank, y->dims, w->stride[1]);
}

int kn_cuda_node_activation(kn_kctx *k, kn_cuda_act *act)
{
    kn_activation host;
    int rc = kn_fused_activation(k, &host);
    act->op = (int32_t)host.kind;
    act->alpha = host.alpha;
    act->beta = host.beta;
    return rc;
}

int kn_cuda_shapes_from_cpu(kn_kctx *k)
{
    int32_t dtype = k->in[0] ? k->in[0]->dtype : KN_UNDEFINED;
    const kn_op_def *def =
        kn_backend_kernel(&kn_backend_cpu, k->node->domain, k->node->op_type, k->opset, dtype);
    if (!def)
        return KN_ERR_DECLINE;
    kn_kctx host = *k;
    host.device = host.stream = NULL;
    host.state = NULL;
    host.scratch_bytes = 0;
    host.weights = NULL; /* only shapes are wanted: no packed weights */
    int rc = def->prepare(&host);
    if (def->release)
        def->release(&host);
    /* What the CPU kernel cannot shape (a form only oneDNN's kernel takes,
     * or a broken node) goes to the host backends, which serve it or name
     * the problem: a GPU session must never fail where a CPU one runs. A
     * value the shapes depend on (NEEDS_VALUE) and running out of memory
     * are the planner's to handle. */
    if (rc != KN_OK && rc != KN_ERR_NEEDS_VALUE && rc != KN_ERR_OUT_OF_MEMORY) {
        memset(k->err, 0, sizeof *k->err);
        return KN_ERR_DECLINE;
    }
    return rc;
}

int kn_cuda_bias_act(kn_kctx *k, float *y, const float *bias, int64_t n, int64_t inner,
                     int64_t channels, const kn_cuda_act *act)
{
    if (!bias && act->op == KN_CUDA_U_NONE)
        return KN_OK;
    kn_cudaKernel fn = kn_cuda_dev(k)->bias_act;
    kn_cuda_act a = *act;
    void *args[] = {&y, &bias, &n, &inner, &channels, &a};
    return kn_cuda_launch_1d(k, fn, n, args);
}

int kn_cuda_binary(kn_kctx *k, int op, const kn_tensor *a, const kn_tensor *b, kn_tensor *y,
                   const kn_cuda_act *act)
{
    kn_cudaKernel fn = kn_cuda_dev(k)->binary;
    kn_cuda_walk w;
    kn_cuda_walk_binary(&w, y, a, b);
    const void *pa = a->data, *pb = b->data;
    void *py = y->data;
    int opcode = op;
    kn_cuda_act act_copy = *act;
    void *args[] = {&pa, &pb, &py, &w, &opcode, &act_copy};
    return kn_cuda_launch_1d(k, fn, w.n, args);
}

int kn_cuda_window_read(kn_kctx *k, int32_t nsp, const int64_t *in, const int64_t *kernel,
                        int with_dilations, kn_cuda_window *w)
{
    memset(w, 0, sizeof *w);
    w->nsp = nsp;
    if (nsp < 1 || nsp > 3)
        return KN_ERR_DECLINE;
    int32_t n_pads = 0, n_strides = 0, n_dil = 0;
    const int64_t *pads = kn_attr_ints(k->node, "pads", &n_pads);
    const int64_t *strides = kn_attr_ints(k->node, "strides", &n_strides);
    const int64_t *dil = with_dilations ? kn_attr_ints(k->node, "dilations", &n_dil) : NULL;
    const char *auto_pad = kn_attr_string(k->node, "auto_pad", "NOTSET");
    int ceil_mode = kn_attr_int(k->node, "ceil_mode", 0) != 0;
    if ((n_pads && n_pads != 2 * nsp) || (n_strides && n_strides != nsp) || (n_dil && n_dil != nsp))
        return KN_ERR_DECLINE; /* malformed: the CPU kernel says what is wrong */
    for (int32_t d = 0; d < nsp; d++) {
        int64_t s = n_strides ? strides[d] : 1, dl = n_dil ? dil[d] : 1;
        if (s < 1 || dl < 1 || kernel[d] < 1)
            return KN_ERR_DECLINE;
        int64_t span = (kernel[d] - 1) * dl + 1, begin = 0, end = 0;
        if (strcmp(auto_pad, "SAME_UPPER") == 0 || strcmp(auto_pad, "SAME_LOWER") == 0) {
            int64_t out = (in[d] + s - 1) / s;
            int64_t total = (out - 1) * s + span - in[d];
            if (total < 0)
                total = 0;
            begin = auto_pad[5] == 'U' ? total / 2 : total - total / 2;
            end = total - begin;
        } else if (strcmp(auto_pad, "VALID") != 0 && n_pads) {
            begin = pads[d];
            end = pads[d + nsp];
        }
        if (begin != end || begin < 0)
            return KN_ERR_DECLINE;
        int64_t room = in[d] + begin + end - span;
        if (room < 0)
            return KN_ERR_DECLINE;
        w->out[d] = room / s + 1;
        if (ceil_mode && room % s != 0) {
            /* ceil_mode's extra window, unless it would start in the padding */
            if ((w->out[d]) * s < in[d] + begin)
                return KN_ERR_DECLINE;
        }
        w->pads[d] = (int)begin;
        w->strides[d] = (int)s;
        w->dilations[d] = (int)dl;
    }
    return KN_OK;
}

int kn_cuda_tensor_desc(kn_kctx *k, kn_cudnnTensorDesc *desc, const int64_t *dims, int32_t rank,
                        int nhwc)
{
    return kn_cuda_tensor_desc_typed(k, desc, dims, rank, nhwc, KN_CUDNN_DATA_FLOAT);
}

int kn_cuda_tensor_desc_typed(kn_kctx *k, kn_cudnnTensorDesc *desc, const int64_t *dims,
                              int32_t rank, int nhwc, int type)
{
    const kn_cuda_device *dev = kn_cuda_dev(k);
    int d32[5], s32[5];
    int64_t step = 1;
    /* channels-last: C steps by 1, then the spatial dims, then N */
    if (nhwc) {
        s32[1] = 1;
        step = dims[1];
        for (int32_t d = rank - 1; d >= 2; d--) {
            s32[d] = (int)step;
            step *= dims[d];
        }
        s32[0] = (int)step;
        step *= dims[0];
    }
    for (int32_t d = rank - 1; d >= 0; d--) {
        if (dims[d] > 0x7fffffff || step > 0x7fffffff)
            return KN_ERR_DECLINE; /* cuDNN's descriptors hold ints */
        d32[d] = (int)dims[d];
        if (!nhwc) {
            s32[d] = (int)step;
            step *= dims[d];
        }
    }
    int rc = kn_cudnn_check(dev, dev->api->cudnnCreateTensorDescriptor(desc),
                            "creating a tensor descriptor", k->err);
    if (rc == KN_OK)
        rc = kn_cudnn_check(dev, dev->api->cudnnSetTensorNdDescriptor(*desc, type, rank, d32, s32),
                            "describing a tensor", k->err);
    return rc;
}
