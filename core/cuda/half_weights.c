/* Half copies of constant weights for FP16 sessions (half_weights.h). */
#include <string.h>

#include "core/cuda/half_weights.h"
#include "core/kernel/backend.h"
#include "core/kernel/tensor_common.h"
#include "core/kernel/weights.h"

extern const kn_backend kn_backend_cuda; /* its memory hooks upload the copy */

/* The weight store's key: the layout and the element type of the copy.
 * Another backend or precision names another key, so copies never mix. */
typedef struct half_key {
    char layout[16]; /* "cuda fp16" */
    int32_t dtype;   /* KN_FLOAT16 */
    int32_t pad;
    int64_t n;
} half_key;

/* float32 <-> the key's dtype, element by element (kn_convert rounds to
 * nearest even and keeps denormals, infinities and NaN). */
static int convert_weight(const void *key, size_t key_len, int to_packed, const void *src,
                          void *dst, int32_t threads, kn_err *err)
{
    (void)threads, (void)err;
    half_key hk;
    if (key_len != sizeof hk)
        return kn_fail(err, KN_ERR_INTERNAL, "CUDA: a half weight's key has the wrong size");
    memcpy(&hk, key, sizeof hk);
    if (to_packed)
        kn_convert(KN_FLOAT, src, hk.dtype, dst, hk.n);
    else
        kn_convert(hk.dtype, src, KN_FLOAT, dst, hk.n);
    return KN_OK;
}

int kn_cuda_half_weight_wanted(const kn_kctx *k, int32_t input)
{
    const kn_tensor *t = input < k->n_in ? k->in[input] : NULL;
    return k->precision == KN_PRECISION_FP16 && k->weights && t && t->data &&
           t->dtype == KN_FLOAT && kn_tensor_numel(t) > 0 &&
           kn_weight_store_shares(k->weights, k->node->inputs[input]);
}

int kn_cuda_half_weight_acquire(kn_kctx *k, int32_t input, const void **half)
{
    const kn_tensor *t = k->in[input];
    half_key key;
    memset(&key, 0, sizeof key);
    strcpy(key.layout, "cuda fp16");
    key.dtype = KN_FLOAT16;
    key.n = kn_tensor_numel(t);
    void *ptr = NULL;
    int rc = kn_weight_store_acquire_device(
        k->weights, k->node->inputs[input], &key, sizeof key, (size_t)key.n * 2, convert_weight,
        &kn_backend_cuda.memory, k->device, kn_threadpool_threads(k->threads), &ptr, k->err);
    if (rc != KN_OK)
        return rc;
    *half = ptr;
    /* the node reads the half copy only: an input slot left empty is one
     * the engine neither uploads nor places */
    k->in[input] = NULL;
    return KN_OK;
}

void kn_cuda_half_weight_release(kn_kctx *k, const void *half)
{
    if (half)
        kn_weight_store_release_device(k->weights, half);
}

int kn_cuda_half_kernels_find(kn_kctx *k, kn_cuda_half_kernels *kernels)
{
    const kn_cuda_device *dev = kn_cuda_dev(k);
    kernels->to_half = kn_cuda_kernel(dev, "elementwise", "kn_f32_to_half", k->err);
    kernels->to_float =
        kernels->to_half ? kn_cuda_kernel(dev, "elementwise", "kn_half_to_f32", k->err) : NULL;
    return kernels->to_float ? KN_OK : k->err->code != KN_OK ? k->err->code : KN_ERR_INTERNAL;
}

int kn_cuda_to_half(kn_kctx *k, const kn_cuda_half_kernels *kernels, const float *x, void *y,
                    int64_t n)
{
    void *args[] = {&x, &y, &n};
    return n > 0 ? kn_cuda_launch_1d(k, kernels->to_half, n, args) : KN_OK;
}

int kn_cuda_to_float(kn_kctx *k, const kn_cuda_half_kernels *kernels, const void *x, float *y,
                     int64_t n)
{
    void *args[] = {&x, &y, &n};
    return n > 0 ? kn_cuda_launch_1d(k, kernels->to_float, n, args) : KN_OK;
}
