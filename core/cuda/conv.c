/* Conv, kiln.FusedConv(X, W, B?, Z?) and kiln.NhwcConv (FusedConv with X,
 * Z and Y channels-last) on cuDNN, float, 1-D to 3-D (1-D as 2-D with a
 * unit dim: cuDNN's descriptors start at 4-D).
 *
 * FusedConv's Y = act(Conv(X, W) + B + Z): with a Relu, a bias and a Z of
 * Y's shape (or none) the whole node is one
 * cudnnConvolutionBiasActivationForward, which is what the optimizer's
 * conv + bias + residual + relu fusion of ResNet blocks produces. Other
 * activations (and no bias) run the convolution, then Kiln's bias +
 * activation pass; a Z that only broadcasts to Y is added in that pass's
 * binary form. Asymmetric pads are declined (cuDNN pads a dim evenly).
 *
 * The algorithm is cuDNN's heuristic first choice for the shapes that fits
 * the workspace limit, or the tuned choice (cuda_tuning.h), taken in
 * prepare, its workspace the kernel's scratch. At KN_PRECISION_FP32 cuDNN
 * is held to float32 FMA math (its default allows TF32 tensor cores, which
 * round the inputs to 10 mantissa bits); TF32, BF16 and FP16 sessions get
 * Tensor Cores (core/cuda/cuda_precision.h).
 *
 * An FP16 session's shared filter is a half copy on the device
 * (half_weights.h). cuDNN's legacy API takes half data only as X, W and Y
 * all half with float32 arithmetic (its PSEUDO_HALF configuration: no half
 * input with a float output), so X is rounded to half into the scratch,
 * the convolution writes a half Y there too, and Y is widened to float32
 * into the node's output before Kiln's bias, residual and activation pass
 * (never the one cuDNN call, whose Z and Y would be half). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda/cuda_kernels.h"
#include "core/cuda/cuda_precision.h"
#include "core/cuda/cuda_tuning.h"
#include "core/cuda/cudnn_descs.h"
#include "core/cuda/half_weights.h"

typedef struct conv_state {
    kn_cudnn_descs d; /* x, y, b, w, conv; activation: the Relu of one_call */
    kn_cudnnConvolutionFwdAlgo algo;
    size_t workspace;
    int one_call; /* cudnnConvolutionBiasActivationForward does it all */
    int has_bias;
    int z_mode; /* 0 none, 1 Y's shape, 2 broadcast to Y */
    kn_cuda_act act;
    int64_t channels, inner;
    /* FP16 with a half filter: W's device copy and where the half X and Y
     * sit in the scratch after the workspace; w_half NULL otherwise */
    const void *w_half;
    kn_cuda_half_kernels half;
    int64_t x_elems, y_elems;
    size_t x_half_at, y_half_at;
} conv_state;

static void conv_release(kn_kctx *k)
{
    conv_state *st = k->state;
    if (!st)
        return;
    kn_cudnn_descs_destroy(kn_cuda_dev(k)->api, &st->d);
    kn_cuda_half_weight_release(k, st->w_half);
    free(st);
    k->state = NULL;
}

static int conv_run(kn_kctx *k);

/* The most workspace a convolution's algorithm may use. */
enum { CONV_MAX_WORKSPACE = 256 << 20, CONV_ALGOS = 8 /* cuDNN 9 has 8 forward algorithms */ };

/* cuDNN's heuristic candidates (cudnnGetConvolutionForwardAlgorithm_v7:
 * no timing, no workspace allocated) that run for the descriptors and fit
 * the workspace limit, best first. */
typedef struct conv_candidates {
    conv_state *st;
    kn_cudnnConvolutionFwdAlgoPerf usable[CONV_ALGOS];
    int n;
} conv_candidates;

/* The scratch a run needs with `workspace` bytes for cuDNN: with a half
 * filter, the half X and Y follow. */
static size_t scratch_for(conv_state *st, size_t workspace)
{
    if (!st->half.to_half)
        return workspace;
    return kn_cuda_half_region(kn_cuda_half_region(workspace, st->x_elems, &st->x_half_at),
                               st->y_elems, &st->y_half_at);
}

static void use_algo(kn_kctx *k, conv_state *st, const kn_cudnnConvolutionFwdAlgoPerf *perf)
{
    st->algo = perf->algo;
    st->workspace = perf->memory;
    k->scratch_bytes = scratch_for(st, st->workspace);
}

static int pick_candidate(kn_kctx *k, void *ctx, int i)
{
    conv_candidates *c = ctx;
    use_algo(k, c->st, &c->usable[i]);
    return KN_OK;
}

static int heuristic_candidates(kn_kctx *k, conv_candidates *c)
{
    kn_cuda_device *dev = kn_cuda_dev(k);
    kn_cudnnConvolutionFwdAlgoPerf perf[CONV_ALGOS];
    int found = 0;
    pthread_mutex_lock(&dev->dnn_lock);
    int rc = kn_cudnn_check(dev,
                            dev->api->cudnnGetConvolutionForwardAlgorithm_v7(
                                dev->dnn, c->st->d.x, c->st->d.w, c->st->d.conv, c->st->d.y,
                                CONV_ALGOS, &found, perf),
                            "choosing an algorithm", k->err);
    pthread_mutex_unlock(&dev->dnn_lock);
    c->n = 0;
    for (int i = 0; rc == KN_OK && i < found && i < CONV_ALGOS; i++)
        if (perf[i].status == KN_CUDNN_STATUS_SUCCESS && perf[i].memory <= CONV_MAX_WORKSPACE)
            c->usable[c->n++] = perf[i];
    return rc;
}

/* The convolution's algorithm (cuda_tuning.h): untuned, the heuristic's
 * first that fits; tuned, the cached algorithm when the heuristic still
 * offers it, else the fastest of its first KN_CUDA_TUNE_CANDIDATES, kept
 * in the cache by its cudnnConvolutionFwdAlgo_t value ("dnn:<algo>"). */
static int choose_algo(kn_kctx *k, conv_state *st)
{
    conv_candidates c = {.st = st};
    char word[64];
    int rc = heuristic_candidates(k, &c);
    if (rc != KN_OK)
        return rc;
    if (c.n == 0)
        return KN_ERR_DECLINE;
    int mode = kn_cuda_tuned_choice(k, word, sizeof word), at = 0, algo = -1, used = 0;
    if (mode == 1 && sscanf(word, "dnn:%d%n", &algo, &used) == 1 && word[used] == '\0')
        for (int i = 0; i < c.n; i++)
            if (c.usable[i].algo == algo) {
                at = i;
                break;
            }
    if (mode == 0) {
        int n = c.n < KN_CUDA_TUNE_CANDIDATES ? c.n : KN_CUDA_TUNE_CANDIDATES;
        size_t workspace = 0;
        for (int i = 0; i < n; i++)
            workspace = c.usable[i].memory > workspace ? c.usable[i].memory : workspace;
        if (n > 1)
            rc = kn_cuda_time_candidates(k, n, pick_candidate, &c, conv_run,
                                         scratch_for(st, workspace), &at);
        at = at < 0 ? 0 : at;
        snprintf(word, sizeof word, "dnn:%d", (int)c.usable[at].algo);
        if (rc == KN_OK)
            rc = kn_cuda_keep_choice(k, word);
    }
    use_algo(k, st, &c.usable[at]);
    return rc;
}

static int describe(kn_kctx *k, conv_state *st, const int64_t *xd, const int64_t *wd,
                    const int64_t *yd, int32_t rank, const kn_cuda_window *win, int64_t group,
                    int nhwc)
{
    kn_cuda_device *dev = kn_cuda_dev(k);
    const kn_cuda_api *api = dev->api;
    int data = st->half.to_half ? KN_CUDNN_DATA_HALF : KN_CUDNN_DATA_FLOAT;
    int rc = kn_cuda_tensor_desc_typed(k, &st->d.x, xd, rank, nhwc, data);
    if (rc == KN_OK)
        rc = kn_cuda_tensor_desc_typed(k, &st->d.y, yd, rank, nhwc, data);
    if (rc == KN_OK && st->has_bias) {
        int64_t bd[5] = {1, yd[1], 1, 1, 1};
        rc = kn_cuda_tensor_desc(k, &st->d.b, bd, rank, 0);
    }
    int w32[5];
    for (int32_t d = 0; d < rank; d++)
        w32[d] = (int)wd[d];
    if (rc == KN_OK)
        rc = kn_cudnn_check(dev, api->cudnnCreateFilterDescriptor(&st->d.w), "creating a filter",
                            k->err);
    if (rc == KN_OK)
        rc = kn_cudnn_check(
            dev, api->cudnnSetFilterNdDescriptor(st->d.w, data, KN_CUDNN_TENSOR_NCHW, rank, w32),
            "describing the filter", k->err);
    if (rc == KN_OK)
        rc = kn_cudnn_check(dev, api->cudnnCreateConvolutionDescriptor(&st->d.conv),
                            "creating the convolution", k->err);
    if (rc == KN_OK)
        rc = kn_cudnn_check(dev,
                            api->cudnnSetConvolutionNdDescriptor(
                                st->d.conv, rank - 2, win->pads, win->strides, win->dilations,
                                KN_CUDNN_CROSS_CORRELATION, KN_CUDNN_DATA_FLOAT),
                            "describing the convolution", k->err);
    if (rc == KN_OK)
        rc = kn_cudnn_check(dev, api->cudnnSetConvolutionGroupCount(st->d.conv, (int)group),
                            "setting the group count", k->err);
    int math = kn_cuda_conv_math(k->precision);
    if (rc == KN_OK)
        rc = kn_cudnn_check(dev, api->cudnnSetConvolutionMathType(st->d.conv, math),
                            "setting the math type", k->err);
    if (rc == KN_OK && st->one_call) {
        rc = kn_cudnn_check(dev, api->cudnnCreateActivationDescriptor(&st->d.activation),
                            "creating the activation", k->err);
        if (rc == KN_OK)
            rc = kn_cudnn_check(dev,
                                api->cudnnSetActivationDescriptor(st->d.activation,
                                                                  KN_CUDNN_ACTIVATION_RELU,
                                                                  KN_CUDNN_PROPAGATE_NAN, 0.0),
                                "describing the activation", k->err);
    }
    return rc == KN_OK ? choose_algo(k, st) : rc;
}

static int conv_prepare(kn_kctx *k)
{
    KN_CUDA_REQUIRE_DEVICE(k);
    int fused = k->node->domain && strcmp(k->node->domain, "kiln") == 0;
    int nhwc = fused && strcmp(k->node->op_type, "NhwcConv") == 0;
    const kn_tensor *x = k->in[0], *w = k->n_in > 1 ? k->in[1] : NULL;
    const kn_tensor *b = k->n_in > 2 ? k->in[2] : NULL, *z = k->n_in > 3 ? k->in[3] : NULL;
    if (!x || !w || x->dtype != KN_FLOAT || w->dtype != KN_FLOAT || (b && b->dtype != KN_FLOAT) ||
        (z && z->dtype != KN_FLOAT) || x->rank < 3 || x->rank > 5 || w->rank != x->rank ||
        (nhwc && x->rank != 4))
        return KN_ERR_DECLINE;
    int64_t xd[5], wd[5], yd[5];
    kn_cuda_nchw_dims(x, nhwc, xd);
    memcpy(wd, w->dims, sizeof(int64_t) * (size_t)w->rank); /* OIHW in both layouts */
    int64_t group = kn_attr_int(k->node, "group", 1);
    int64_t cout = w->dims[0];
    if (group < 1 || xd[1] != w->dims[1] * group || cout % group != 0 ||
        (b && kn_tensor_numel(b) != cout))
        return KN_ERR_DECLINE; /* malformed: the CPU kernel names the problem */
    kn_cuda_act act = {KN_CUDA_U_NONE, 0, 0};
    int rc;
    if (fused && (rc = kn_cuda_node_activation(k, &act)) != KN_OK)
        return rc;
    int32_t nsp = x->rank - 2;
    kn_cuda_window win;
    rc = kn_cuda_window_read(k, nsp, xd + 2, w->dims + 2, 1, &win);
    if (rc != KN_OK)
        return rc;

    kn_tensor *y = k->out[0];
    kn_cuda_window_output(y, xd, x->rank, cout, &win, nhwc, yd);

    conv_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Conv: out of memory");
    k->state = st;
    st->has_bias = b != NULL;
    st->z_mode = !z ? 0 : kn_cuda_same_shape(z, y) ? 1 : 2;
    if (st->z_mode == 2) {
        kn_tensor both;
        if (nhwc || kn_broadcast_shape(y, z, &both, k->err) != KN_OK ||
            !kn_cuda_same_shape(&both, y)) {
            conv_release(k);
            return KN_ERR_DECLINE;
        }
    }
    if (kn_cuda_half_weight_wanted(k, 1)) {
        st->x_elems = kn_tensor_numel(x);
        st->y_elems = kn_tensor_numel(y);
        rc = kn_cuda_half_kernels_find(k, &st->half);
        if (rc != KN_OK) {
            conv_release(k);
            return rc;
        }
    }
    st->one_call = act.op == KN_CUDA_U_RELU && b && st->z_mode != 2 && !st->half.to_half;
    st->act = act;
    st->channels = cout;
    /* the epilogue's channel of element i: (i / inner) % channels */
    st->inner = 1;
    for (int32_t d = 0; d < nsp && !nhwc; d++)
        st->inner *= win.out[d];

    /* 1-D: a unit second spatial dim */
    int32_t rank = x->rank == 3 ? 4 : x->rank;
    if (x->rank == 3) {
        xd[3] = wd[3] = yd[3] = 1;
        win.nsp = 2;
        win.pads[1] = 0;
        win.strides[1] = win.dilations[1] = 1;
    }
    rc = describe(k, st, xd, wd, yd, rank, &win, group, nhwc);
    /* taken once the plan stands, so a decline leaves no reference */
    if (rc == KN_OK && st->half.to_half)
        rc = kn_cuda_half_weight_acquire(k, 1, &st->w_half);
    if (rc != KN_OK)
        conv_release(k);
    return rc;
}

static int conv_run(kn_kctx *k)
{
    conv_state *st = k->state;
    kn_cuda_device *dev = kn_cuda_dev(k);
    const kn_cuda_api *api = dev->api;
    kn_tensor *y = k->out[0];
    /* (while candidates are timed W is still the float input's zeros) */
    const void *x = k->in[0]->data, *w = st->w_half ? st->w_half : k->in[1]->data;
    const void *bias = st->has_bias ? k->in[2]->data : NULL;
    void *out = y->data;
    const kn_tensor *z = st->z_mode ? k->in[3] : NULL;
    int64_t n = kn_tensor_numel(y);
    if (n == 0)
        return KN_OK;
    int rc = kn_cuda_use(dev, k->err);
    float one = 1.0f, zero = 0.0f;
    int half = st->half.to_half != NULL;
    if (rc == KN_OK && half) {
        void *x_half = (unsigned char *)k->scratch + st->x_half_at;
        rc = kn_cuda_to_half(k, &st->half, x, x_half, st->x_elems);
        x = x_half;
        out = (unsigned char *)k->scratch + st->y_half_at;
    }
    /* a residual of Y's shape accumulates: Y starts as Z (beta = 1); a
     * half Y adds Z after it is widened instead */
    int accumulate = st->z_mode == 1 && !st->one_call && !half;
    if (rc == KN_OK && accumulate)
        rc = kn_cuda_copy_on_device(k, y->data, z->data, (size_t)n * sizeof(float));
    if (rc != KN_OK)
        return rc;
    pthread_mutex_lock(&dev->dnn_lock);
    rc =
        kn_cudnn_check(dev, api->cudnnSetStream(dev->dnn, k->stream), "setting the stream", k->err);
    if (rc == KN_OK && st->one_call)
        rc = kn_cudnn_check(dev,
                            api->cudnnConvolutionBiasActivationForward(
                                dev->dnn, &one, st->d.x, x, st->d.w, w, st->d.conv, st->algo,
                                k->scratch, st->workspace, st->z_mode ? &one : &zero, st->d.y,
                                st->z_mode ? z->data : y->data, st->d.b, bias, st->d.activation,
                                st->d.y, y->data),
                            k->node->op_type, k->err);
    else if (rc == KN_OK)
        rc = kn_cudnn_check(dev,
                            api->cudnnConvolutionForward(
                                dev->dnn, &one, st->d.x, x, st->d.w, w, st->d.conv, st->algo,
                                k->scratch, st->workspace, accumulate ? &one : &zero, st->d.y, out),
                            k->node->op_type, k->err);
    pthread_mutex_unlock(&dev->dnn_lock);
    if (rc != KN_OK || st->one_call)
        return rc;
    if (half)
        rc = kn_cuda_to_float(k, &st->half, out, y->data, st->y_elems);
    if (rc != KN_OK)
        return rc;
    if (st->z_mode == 2 || (half && st->z_mode == 1)) {
        kn_cuda_act none = {KN_CUDA_U_NONE, 0, 0};
        rc = kn_cuda_bias_act(k, y->data, bias, n, st->inner, st->channels, &none);
        return rc == KN_OK ? kn_cuda_binary(k, KN_CUDA_B_ADD, y, z, y, &st->act) : rc;
    }
    return kn_cuda_bias_act(k, y->data, bias, n, st->inner, st->channels, &st->act);
}

#define F32 KN_BIT(KN_FLOAT)
const kn_op_def kn_cuda_Conv = {.op_type = "Conv",
                                .since_version = 1,
                                .dtypes = F32,
                                .prepare = conv_prepare,
                                .run = conv_run,
                                .release = conv_release};
/* FusedConv with X, Z and Y channels-last (the oneDNN layout pass's op,
 * when that pass ran for the model): cuDNN reads the strides */
const kn_op_def kn_cuda_kiln_NhwcConv = {.domain = "kiln",
                                         .op_type = "NhwcConv",
                                         .since_version = 1,
                                         .dtypes = F32,
                                         .prepare = conv_prepare,
                                         .run = conv_run,
                                         .release = conv_release};
const kn_op_def kn_cuda_kiln_FusedConv = {.domain = "kiln",
                                          .op_type = "FusedConv",
                                          .since_version = 1,
                                          .dtypes = F32,
                                          .prepare = conv_prepare,
                                          .run = conv_run,
                                          .release = conv_release};
