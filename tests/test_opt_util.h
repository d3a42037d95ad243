/* Helpers for the graph optimizer's suites (tests/test_opt*.c): load a
 * model at an optimization level, count its ops, and run it at two levels
 * on the same inputs comparing every output. */
#ifndef KILN_TEST_OPT_UTIL_H
#define KILN_TEST_OPT_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api_helpers.h"

/* Loads path at `level`, with oneDNN kernels allowed or not. */
static inline kiln_model *opt_load_dnnl(kiln_runtime *rt, const char *path, int32_t level,
                                        int32_t use_dnnl)
{
    kiln_options *o = NULL;
    kiln_model *m = NULL;
    KT_OK(kiln_options_create(&o));
    KT_OK(kiln_options_set_int(o, KILN_OPT_OPTIMIZE, level));
    KT_OK(kiln_options_set_int(o, KILN_OPT_USE_DNNL, use_dnnl));
    KT_OK(kiln_model_load_file(rt, path, o, &m));
    kiln_options_destroy(o);
    return m;
}

static inline kiln_model *opt_load(kiln_runtime *rt, const char *path, int32_t level)
{
    return opt_load_dnnl(rt, path, level, 0);
}

/* Loads path at `level` (oneDNN allowed or not) on a fresh one-thread
 * runtime, returned in *rt; opt_drop frees both. */
static inline kiln_model *opt_load_fresh(const char *path, int32_t level, int32_t use_dnnl,
                                         kiln_runtime **rt)
{
    *rt = kt_runtime(1);
    return opt_load_dnnl(*rt, path, level, use_dnnl);
}

static inline void opt_drop(kiln_model *m, kiln_runtime *rt)
{
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

/* Nodes of op_type in domain ("" = ai.onnx). */
static inline int opt_count_op(const kiln_model *m, const char *op_type, const char *domain)
{
    int32_t n = 0, hits = 0;
    KT_OK(kiln_model_node_count(m, &n));
    for (int32_t i = 0; i < n; i++) {
        char op[64], dom[64];
        KT_OK(kiln_model_node_op(m, i, op, sizeof op, dom, sizeof dom, NULL));
        hits += strcmp(op, op_type) == 0 && strcmp(dom, domain) == 0;
    }
    return hits;
}

static inline int opt_node_count(const kiln_model *m)
{
    int32_t n = 0;
    KT_OK(kiln_model_node_count(m, &n));
    return n;
}

/* Deterministic inputs from the declared (static) shapes: floats in
 * [-1, 1], integers in [0, 10). */
typedef struct opt_inputs {
    int32_t n;
    void *data[16];
    size_t nbytes[16];
    int32_t dtype[16], rank[16];
    int64_t dims[16][8];
} opt_inputs;

static inline void opt_make_inputs(const kiln_model *m, opt_inputs *in)
{
    memset(in, 0, sizeof *in);
    KT_OK(kiln_model_input_count(m, &in->n));
    cr_assert_leq(in->n, 16);
    uint32_t seed = 12345;
    for (int32_t i = 0; i < in->n; i++) {
        KT_OK(kiln_model_input_dtype(m, i, &in->dtype[i]));
        KT_OK(kiln_model_input_shape(m, i, in->dims[i], 8, &in->rank[i]));
        int64_t count = 1;
        for (int32_t d = 0; d < in->rank[i]; d++) {
            cr_assert_geq(in->dims[i][d], 0, "input %d has a dynamic dim", (int)i);
            count *= in->dims[i][d];
        }
        int is_float = in->dtype[i] == KILN_DTYPE_FLOAT;
        cr_assert(is_float || in->dtype[i] == KILN_DTYPE_INT64, "input dtype %d", (int)in->dtype[i]);
        in->nbytes[i] = (size_t)count * (is_float ? 4 : 8);
        in->data[i] = malloc(in->nbytes[i] ? in->nbytes[i] : 1);
        for (int64_t e = 0; e < count; e++) {
            seed = seed * 1664525u + 1013904223u;
            if (is_float)
                ((float *)in->data[i])[e] = (float)(seed >> 8) / 8388608.0f - 1.0f;
            else
                ((int64_t *)in->data[i])[e] = (int64_t)((seed >> 8) % 10);
        }
    }
}

static inline void opt_free_inputs(opt_inputs *in)
{
    for (int32_t i = 0; i < in->n; i++)
        free(in->data[i]);
}

/* Runs m on in; returns the session (outputs readable). */
static inline kiln_session *opt_run(kiln_model *m, const opt_inputs *in)
{
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, NULL, &s));
    for (int32_t i = 0; i < in->n; i++)
        KT_OK(kiln_session_set_input_at(s, i, in->dtype[i], in->dims[i], in->rank[i], in->data[i],
                                        in->nbytes[i], 0));
    KT_OK(kiln_session_run(s));
    return s;
}

/* Every float output of a and b agrees: |x - y| <= tol * (1 + |x|), or with
 * scale_by_max, |x - y| <= tol * max |x| over the output. Returns the
 * largest difference seen. */
static inline double opt_compare_sessions(const kiln_session *a, const kiln_session *b,
                                          int32_t n_out, double tol, int scale_by_max)
{
    double worst = 0;
    for (int32_t o = 0; o < n_out; o++) {
        const void *pa, *pb;
        size_t na, nb;
        int32_t dta, dtb, ra, rb;
        int64_t da[8], db[8];
        KT_OK(kiln_session_output_info(a, o, &dta, da, 8, &ra));
        KT_OK(kiln_session_output_info(b, o, &dtb, db, 8, &rb));
        cr_assert_eq(dta, dtb, "output %d dtype", (int)o);
        cr_assert_eq(ra, rb, "output %d rank", (int)o);
        for (int32_t d = 0; d < ra; d++)
            cr_assert_eq(da[d], db[d], "output %d dim %d", (int)o, (int)d);
        KT_OK(kiln_session_output_view(a, o, &pa, &na));
        KT_OK(kiln_session_output_view(b, o, &pb, &nb));
        cr_assert_eq(na, nb);
        if (dta != KILN_DTYPE_FLOAT) {
            cr_assert(memcmp(pa, pb, na) == 0, "output %d differs", (int)o);
            continue;
        }
        const float *x = pa, *y = pb;
        size_t n = na / 4;
        double maxabs = 0;
        for (size_t i = 0; i < n; i++)
            maxabs = fmax(maxabs, fabs((double)x[i]));
        for (size_t i = 0; i < n; i++) {
            double diff = fabs((double)x[i] - (double)y[i]);
            double bound = scale_by_max ? tol * maxabs : tol * (1.0 + fabs((double)x[i]));
            cr_assert(diff <= bound && !isnan(y[i]) == !isnan(x[i]),
                      "output %d element %zu: %.9g vs %.9g (bound %.3g)", (int)o, i, x[i], y[i],
                      bound);
            worst = fmax(worst, diff);
        }
    }
    return worst;
}

/* opt_check_same_outputs on a runtime of `threads` threads, the optimized
 * model loaded with oneDNN allowed or not (level 0 always without). */
static inline void opt_check_same_outputs_on(const char *path, int32_t level, double tol,
                                             int32_t threads, int32_t use_dnnl)
{
    kiln_runtime *rt = kt_runtime(threads);
    kiln_model *m0 = opt_load(rt, path, 0), *m2 = opt_load_dnnl(rt, path, level, use_dnnl);
    opt_inputs in;
    opt_make_inputs(m0, &in);
    kiln_session *s0 = opt_run(m0, &in), *s2 = opt_run(m2, &in);
    int32_t n_out = 0;
    KT_OK(kiln_model_output_count(m0, &n_out));
    opt_compare_sessions(s0, s2, n_out, tol, 0);
    kiln_session_destroy(s0);
    kiln_session_destroy(s2);
    opt_free_inputs(&in);
    kiln_model_destroy(m0);
    kiln_model_destroy(m2);
    kiln_runtime_destroy(rt);
}

/* Loads path at levels 0 and `level`, runs both on the same inputs and
 * compares every output within tol (relative, per element). */
static inline void opt_check_same_outputs(const char *path, int32_t level, double tol)
{
    opt_check_same_outputs_on(path, level, tol, 1, 0);
}

#endif
