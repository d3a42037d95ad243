/* The CUDA suites' shared inputs and kernel-against-CPU check (cuda_cases.h). */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel/backend.h"
#include "tests/cuda/cuda_cases.h"

extern const kn_backend kn_backend_cuda;

void fill(float *x, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
    }
}

void rand_input(kh_case *c, int32_t i, const int64_t *dims, int32_t rank, unsigned seed)
{
    size_t n = (size_t)kn_shape_numel(dims, rank);
    float *x = malloc(n * sizeof *x + 4);
    fill(x, n, seed);
    kh_input(c, i, KN_FLOAT, dims, rank, x);
}

void free_inputs(kh_case *c)
{
    for (int32_t i = 0; i < c->n_in; i++) {
        free(c->in[i].data);
        c->in[i].data = NULL;
    }
}

/* Output i of the CUDA kernel (host copy `got`) against the CPU's `want`. */
static void compare_output(const kn_tensor *got_t, const void *got, const kn_tensor *want_t,
                           int32_t i, double tol, const char *what)
{
    int64_t n = kn_tensor_numel(got_t), where = 0;
    cr_assert_eq(got_t->dtype, want_t->dtype, "%s: output %d's dtype", what, i);
    if (got_t->dtype != KN_FLOAT) {
        cr_assert(memcmp(got, want_t->data, (size_t)kn_tensor_nbytes(got_t)) == 0,
                  "%s: output %d differs from the CPU kernel's", what, i);
        return;
    }
    const float *g = got, *w = want_t->data;
    double worst = 0;
    for (int64_t e = 0; e < n; e++) {
        double d = fabs((double)g[e] - w[e]) / fmax(1.0, fabs(w[e]));
        if (!(d <= worst)) { /* a NaN counts as the worst */
            worst = d == d ? d : INFINITY;
            where = e;
        }
    }
    cr_assert(worst <= tol, "%s: output %d element %lld: CUDA %g, CPU %g (tolerance %g)", what, i,
              (long long)where, g[where], w[where], tol);
    cr_log_info("%s: output %d, %lld elements, worst relative error %.2e", what, i, (long long)n,
                worst);
}

void cuda_case_check(const cuda_target *t, kh_case *c, uint32_t const_mask, double tol,
                     const char *what)
{
    kh_case ref = *c;
    cr_assert_eq(kh_run_kernel(&ref, 1, &kn_backend_cpu, const_mask), KN_OK, "%s: CPU: %s", what,
                 ref.err.msg);
    int32_t dtype = c->n_in > 0 ? c->in[0].dtype : 0;
    const kn_op_def *def =
        kn_backend_kernel(&kn_backend_cuda, c->node.domain, c->node.op_type, c->opset, dtype);
    cr_assert_not_null(def, "%s: no CUDA kernel", what);

    kn_err err = {0};
    kn_tensor in_view[KH_MAX_IO], out[KH_MAX_IO], *in_ptrs[KH_MAX_IO], *out_ptrs[KH_MAX_IO];
    for (int32_t i = 0; i < c->n_in; i++) {
        in_view[i] = c->in[i];
        if (!(const_mask >> i & 1u))
            in_view[i].data = NULL;
        in_ptrs[i] = c->in[i].data ? &in_view[i] : NULL;
    }
    memset(out, 0, sizeof out);
    for (int32_t i = 0; i < c->n_out; i++)
        out_ptrs[i] = &out[i];
    kn_kctx k = {.node = &c->node,
                 .opset = c->opset,
                 .n_in = c->n_in,
                 .n_out = c->n_out,
                 .in = in_ptrs,
                 .out = out_ptrs,
                 .err = &err,
                 .device = t->device,
                 .stream = t->stream};
    int rc = def->prepare(&k);
    cr_assert_eq(rc, KN_OK, "%s: CUDA prepare returned %d: %s", what, rc, err.msg);

    for (int32_t i = 0; i < c->n_in; i++)
        if (c->in[i].data)
            in_view[i].data = t->upload(t, c->in[i].data, (size_t)kn_tensor_nbytes(&c->in[i]));
    for (int32_t i = 0; i < c->n_out; i++) {
        cr_assert(kn_shape_equal(out[i].dims, out[i].rank, ref.out[i].dims, ref.out[i].rank),
                  "%s: output %d's shape differs from the CPU kernel's", what, i);
        out[i].data = t->alloc(t, (size_t)kn_tensor_nbytes(&out[i]));
    }
    k.scratch = k.scratch_bytes ? t->alloc(t, k.scratch_bytes) : NULL;
    rc = def->run(&k);
    cr_assert_eq(rc, KN_OK, "%s: CUDA run returned %d: %s", what, rc, err.msg);

    for (int32_t i = 0; i < c->n_out; i++) {
        size_t bytes = (size_t)kn_tensor_nbytes(&out[i]);
        void *host = malloc(bytes + 4);
        t->download(t, host, out[i].data, bytes);
        compare_output(&out[i], host, &ref.out[i], i, tol, what);
        free(host);
    }
    if (def->release)
        def->release(&k);
    for (int32_t i = 0; i < c->n_in; i++)
        if (c->in[i].data)
            t->release(t, in_view[i].data);
    for (int32_t i = 0; i < c->n_out; i++)
        t->release(t, out[i].data);
    t->release(t, k.scratch);
    kh_free(&ref);
}
