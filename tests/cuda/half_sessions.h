/* FP16 sessions of a whole model on the device named "cuda" (the GPU, or
 * test_cuda_emulated's emulated backend) against an FP32 session of the
 * same model on that device: how far output 0 moves, what the model's
 * weight store holds on the device (core/engine/weight_store.h) for each
 * precision, and whether a second FP16 session uploads anything. Included
 * by the two CUDA suites (static: each links its own copy). */
#ifndef KN_TEST_CUDA_HALF_SESSIONS_H
#define KN_TEST_CUDA_HALF_SESSIONS_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api_helpers.h"
#include "api_internal.h"
#include "core/engine/weight_store.h"

typedef struct half_sessions {
    double worst;              /* max |FP16 - FP32| / max |FP32| over output 0 */
    double largest;            /* max |FP32| */
    int64_t fp32_weight_bytes; /* the store's device copies after the FP32 session */
    int64_t fp16_weight_bytes; /* ... in another model after one FP16 session */
    int64_t fp16_uploads[2];   /* uploads after the first and the second FP16 session */
    int second_same;           /* the second FP16 session's output is the first's */
    int tuned_same;            /* so is a third's, which times the libraries' algorithms */
    int64_t watched;           /* *watch after the second FP16 session (0 without one) */
} half_sessions;

/* Output 0 of one run of a new session of m at `precision` on "cuda"
 * (tuning its products and convolutions when tune, with no cache file),
 * its float inputs seeded values in [-1, 1) at their declared shapes (open
 * dims 1); malloc'd, *n elements. */
static float *half_sessions_run(kiln_model *m, int32_t precision, int tune, int64_t *n)
{
    kiln_options *o = NULL;
    kiln_session *s = NULL;
    KT_OK(kiln_options_create(&o));
    KT_OK(kiln_options_set_string(o, KILN_SOPT_DEVICE, "cuda"));
    KT_OK(kiln_options_set_int(o, KILN_OPT_PRECISION, precision));
    KT_OK(kiln_options_set_int(o, KILN_OPT_TUNE, tune));
    KT_OK(kiln_session_create(m, o, &s));
    kiln_options_destroy(o);
    int32_t inputs = 0;
    KT_OK(kiln_model_input_count(m, &inputs));
    for (int32_t i = 0; i < inputs; i++) {
        int32_t dtype = 0, rank = 0;
        int64_t dims[8];
        KT_OK(kiln_model_input_dtype(m, i, &dtype));
        KT_OK(kiln_model_input_shape(m, i, dims, 8, &rank));
        cr_assert_eq(dtype, KILN_DTYPE_FLOAT, "input %d is not float", i);
        size_t count = 1;
        for (int32_t d = 0; d < rank; d++)
            count *= (size_t)(dims[d] = dims[d] > 0 ? dims[d] : 1);
        float *x = malloc(count * sizeof *x + 4);
        uint32_t seed = 77u + (uint32_t)i;
        for (size_t j = 0; j < count; j++) {
            seed = seed * 1664525u + 1013904223u;
            x[j] = (float)(seed >> 8) / (float)(1u << 24) * 2.0f - 1.0f;
        }
        KT_OK(kiln_session_set_input_at(s, i, dtype, dims, rank, x, count * sizeof *x,
                                        KILN_INPUT_COPY));
        free(x);
    }
    KT_OK(kiln_session_run(s));
    size_t need = 0;
    kiln_session_output_copy(s, 0, NULL, 0, &need);
    float *y = malloc(need + 4);
    KT_OK(kiln_session_output_copy(s, 0, y, need, NULL));
    *n = (int64_t)(need / sizeof *y);
    kiln_session_destroy(s);
    return y;
}

static kn_weight_store_stats half_sessions_store(const kiln_model *m)
{
    kn_weight_store_stats st;
    kn_weight_store_get_stats(m->core->weights, &st);
    return st;
}

/* The model at path (relative to the source tree), loaded twice for the
 * device "cuda": one model runs an FP32 session, the other three FP16 ones
 * (the third tuned). watch: a counter of the caller's to read before the
 * tuned session (which allocates buffers to time on), or NULL. */
static void half_sessions_compare(const char *path, const int64_t *watch, half_sessions *r)
{
    memset(r, 0, sizeof *r);
    kiln_runtime *rt = kt_runtime(1);
    kiln_options *o = NULL;
    kiln_model *m32 = NULL, *m16 = NULL;
    KT_OK(kiln_options_create(&o));
    KT_OK(kiln_options_set_string(o, KILN_SOPT_DEVICE, "cuda"));
    KT_OK(kiln_model_load_file(rt, kt_src_path(path), o, &m32));
    KT_OK(kiln_model_load_file(rt, kt_src_path(path), o, &m16));
    kiln_options_destroy(o);
    int64_t n32 = 0, n16 = 0, n16b = 0, n16t = 0;
    float *y32 = half_sessions_run(m32, KILN_PRECISION_FP32, 0, &n32);
    r->fp32_weight_bytes = half_sessions_store(m32).device_bytes;
    float *y16 = half_sessions_run(m16, KILN_PRECISION_FP16, 0, &n16);
    kn_weight_store_stats st = half_sessions_store(m16);
    r->fp16_weight_bytes = st.device_bytes;
    r->fp16_uploads[0] = st.device_uploads;
    float *y16b = half_sessions_run(m16, KILN_PRECISION_FP16, 0, &n16b);
    r->fp16_uploads[1] = half_sessions_store(m16).device_uploads;
    r->watched = watch ? *watch : 0;
    float *y16t = half_sessions_run(m16, KILN_PRECISION_FP16, 1, &n16t);
    cr_assert(n32 == n16 && n16 == n16b && n32 > 0, "%s: outputs of %lld, %lld, %lld elements",
              path, (long long)n32, (long long)n16, (long long)n16b);
    double diff = 0;
    for (int64_t i = 0; i < n32; i++) {
        r->largest = fmax(r->largest, fabs((double)y32[i]));
        diff = fmax(diff, fabs((double)y16[i] - (double)y32[i]));
    }
    r->worst = diff / fmax(r->largest, 1e-30);
    r->second_same = memcmp(y16, y16b, (size_t)n16 * sizeof *y16) == 0;
    r->tuned_same = n16t == n16 && memcmp(y16, y16t, (size_t)n16 * sizeof *y16) == 0;
    free(y32);
    free(y16);
    free(y16b);
    free(y16t);
    kiln_model_destroy(m32);
    kiln_model_destroy(m16);
    kiln_runtime_destroy(rt);
}

#endif
