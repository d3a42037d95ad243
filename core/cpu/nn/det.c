/* Det (opsets 11, 22): determinants of square matrices, input [*, M, M],
 * output [*]. Each matrix is copied to the task's scratch slot as double
 * and reduced by Gaussian elimination with partial pivoting (the largest
 * magnitude in the column becomes the pivot, for stability); the
 * determinant is the product of the pivots, negated once per row swap. A
 * zero column makes it exactly 0. Matrices are split over the tasks. */
#include <math.h>
#include <stdlib.h>

#include "core/cpu/reduce/reduce_common.h"
#include "core/kernel/tensor_common.h"

typedef struct det_state {
    int32_t dtype;
    int64_t batch, m;
    int32_t tasks;
} det_state;

typedef struct det_job {
    const det_state *s;
    const char *x;
    char *y;
    double *slots;
} det_job;

static double det_one(double *a, int64_t m)
{
    double det = 1;
    for (int64_t c = 0; c < m; c++) {
        int64_t p = c;
        for (int64_t r = c + 1; r < m; r++)
            if (fabs(a[r * m + c]) > fabs(a[p * m + c]))
                p = r;
        if (a[p * m + c] == 0)
            return 0;
        if (p != c) {
            for (int64_t i = c; i < m; i++) {
                double t = a[c * m + i];
                a[c * m + i] = a[p * m + i];
                a[p * m + i] = t;
            }
            det = -det;
        }
        double piv = a[c * m + c];
        det *= piv;
        for (int64_t r = c + 1; r < m; r++) {
            double f = a[r * m + c] / piv;
            if (f != 0)
                for (int64_t i = c + 1; i < m; i++)
                    a[r * m + i] -= f * a[c * m + i];
        }
    }
    return det;
}

static void det_task(void *ctx, int64_t begin, int64_t end)
{
    const det_job *j = ctx;
    const det_state *s = j->s;
    size_t es = kn_dtype_size(s->dtype), mm = (size_t)(s->m * s->m);
    for (int64_t t = begin; t < end; t++) {
        double *a = j->slots + (size_t)t * mm;
        for (int64_t b = s->batch * t / s->tasks; b < s->batch * (t + 1) / s->tasks; b++) {
            rd_to_f64(s->dtype, j->x + (size_t)b * mm * es, a, (int64_t)mm);
            double d = det_one(a, s->m);
            kn_convert(KN_DOUBLE, &d, s->dtype, j->y + (size_t)b * es, 1);
        }
    }
}

static int det_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    int32_t dt = x->dtype;
    if (dt != KN_FLOAT && dt != KN_DOUBLE && dt != KN_FLOAT16 && dt != KN_BFLOAT16)
        return kn_fail(k->err, KN_ERR_DTYPE, "Det: input type %s is not supported",
                       kn_dtype_name(dt));
    if (x->rank < 2 || x->dims[x->rank - 1] != x->dims[x->rank - 2]) {
        char sx[128];
        kn_shape_format(x->dims, x->rank, sx, sizeof sx);
        return kn_fail(k->err, KN_ERR_SHAPE, "Det: input %s is not a batch of square matrices", sx);
    }
    det_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Det: out of memory");
    k->state = s;
    s->dtype = dt;
    s->m = x->dims[x->rank - 1];
    s->batch = kn_shape_numel(x->dims, x->rank - 2);
    int32_t threads = kn_threadpool_threads(k->threads);
    if (s->batch * s->m * s->m * s->m < KN_GRAIN)
        threads = 1; /* too little work to share */
    s->tasks = s->batch < threads ? (int32_t)(s->batch > 0 ? s->batch : 1) : threads;
    /* at least one element, so 0x0 matrices (determinant 1) get a real pointer */
    k->scratch_bytes = ((size_t)s->tasks * (size_t)(s->m * s->m) + 1) * sizeof(double);
    kn_tensor *y = k->out[0];
    y->dtype = dt;
    y->rank = x->rank - 2;
    for (int32_t i = 0; i < y->rank; i++)
        y->dims[i] = x->dims[i];
    return KN_OK;
}

static int det_run(kn_kctx *k)
{
    const det_state *s = k->state;
    if (s->batch <= 0)
        return KN_OK;
    det_job j = {s, k->in[0]->data, k->out[0]->data, k->scratch};
    kn_parallel_for(k->threads, s->tasks, 1, det_task, &j);
    return KN_OK;
}

static void det_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_Det = {
    .op_type = "Det", .since_version = 11,
    .dtypes = KN_MASK_FLOATS | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16), .prepare = det_prepare,
    .run = det_run, .release = det_release
};
