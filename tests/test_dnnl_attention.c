/* kiln.Attention on oneDNN (core/dnnl/dnnl_attention.c) against a plain
 * reference written here and against Kiln's blocked CPU kernel: rank 2 to
 * 4, K plain or transposed, Sq != Sk and Dv != D, 1 and 2 threads; its
 * scratch holds every head's scores; and what it leaves to the CPU kernel
 * (masks, broadcast batch dims, tiny or huge score tensors). */
#include "test_dnnl_util.h"

#ifdef KILN_WITH_DNNL

typedef struct att_spec {
    int32_t rank;
    int64_t batch[2]; /* the leading rank - 2 dims */
    int64_t sq, sk, d, dv;
    int k_transposed;
    float scale;
} att_spec;

static void att_case(kh_case *c, const att_spec *s, int32_t n_in)
{
    kh_init(c, "Attention", 1, n_in, 1);
    c->node.domain = "kiln";
    kh_attr_float(c, "scale", s->scale);
    kh_attr_int(c, "k_transposed", s->k_transposed);
    int64_t q[4], k[4], v[4];
    int32_t nb = s->rank - 2;
    for (int32_t i = 0; i < nb; i++)
        q[i] = k[i] = v[i] = s->batch[i];
    q[nb] = s->sq, q[nb + 1] = s->d;
    k[nb] = s->k_transposed ? s->d : s->sk, k[nb + 1] = s->k_transposed ? s->sk : s->d;
    v[nb] = s->sk, v[nb + 1] = s->dv;
    dt_input(c, 0, q, s->rank, 21);
    dt_input(c, 1, k, s->rank, 22);
    dt_input(c, 2, v, s->rank, 23);
}

/* softmax(scale Q K') V, one batch entry after another, in double */
static float *reference(const kh_case *c, const att_spec *s, int64_t batches)
{
    const float *q = c->in[0].data, *k = c->in[1].data, *v = c->in[2].data;
    float *y = malloc(sizeof(float) * (size_t)(batches * s->sq * s->dv));
    double *p = malloc(sizeof(double) * (size_t)s->sk);
    for (int64_t b = 0; b < batches; b++) {
        const float *qb = q + b * s->sq * s->d, *kb = k + b * s->sk * s->d;
        const float *vb = v + b * s->sk * s->dv;
        for (int64_t i = 0; i < s->sq; i++) {
            double top = -INFINITY, sum = 0;
            for (int64_t j = 0; j < s->sk; j++) {
                double dot = 0;
                for (int64_t t = 0; t < s->d; t++)
                    dot += (double)qb[i * s->d + t] *
                           (s->k_transposed ? kb[t * s->sk + j] : kb[j * s->d + t]);
                p[j] = s->scale * dot;
                top = p[j] > top ? p[j] : top;
            }
            for (int64_t j = 0; j < s->sk; j++)
                sum += p[j] = exp(p[j] - top);
            for (int64_t o = 0; o < s->dv; o++) {
                double acc = 0;
                for (int64_t j = 0; j < s->sk; j++)
                    acc += p[j] / sum * vb[j * s->dv + o];
                y[(b * s->sq + i) * s->dv + o] = (float)acc;
            }
        }
    }
    free(p);
    return y;
}

static void check(const att_spec *s, const char *what)
{
    kh_case c;
    att_case(&c, s, 3);
    int64_t batches = 1;
    for (int32_t i = 0; i < s->rank - 2; i++)
        batches *= s->batch[i];
    size_t scratch = 0;
    cr_assert_eq(kh_prepare_kernel(&c, &kn_backend_dnnl, 0, &scratch), KN_OK, "%s: %s", what,
                 c.err.msg);
    cr_assert_geq(scratch, sizeof(float) * (size_t)(batches * s->sq * s->sk),
                  "%s: the scores of every head live in scratch", what);
    float *want = reference(&c, s, batches);
    for (int32_t threads = 1; threads <= 2; threads++) {
        float *got = NULL;
        kn_tensor gd;
        cr_assert_eq(dt_run(&c, &kn_backend_dnnl, 0, threads, &got, &gd), KN_OK, "%s: %s", what,
                     c.err.msg);
        cr_assert_eq(gd.rank, s->rank);
        cr_assert_eq(gd.dims[s->rank - 2], s->sq);
        cr_assert_eq(gd.dims[s->rank - 1], s->dv);
        dt_assert_close(got, want, batches * s->sq * s->dv, 2e-5, what);
        free(got);
        dt_check(&c, 0, threads, what); /* and the CPU kernel agrees */
    }
    free(want);
    dt_free_inputs(&c);
}

Test(dnnl_attention, matches_reference)
{
    check(&(att_spec){3, {12}, 128, 128, 64, 64, 0, 0.125f}, "BERT-base heads");
    check(&(att_spec){3, {12}, 128, 128, 64, 64, 1, 0.125f}, "K transposed");
    check(&(att_spec){4, {2, 3}, 17, 45, 40, 24, 0, 0.3f}, "rank 4, Sq != Sk, Dv != D");
    check(&(att_spec){4, {2, 3}, 17, 45, 40, 24, 1, 1.0f}, "rank 4, K transposed, scale 1");
    check(&(att_spec){2, {0}, 50, 60, 32, 16, 0, 0.5f}, "rank 2");
}

Test(dnnl_attention, declines)
{
    att_spec s = {3, {4}, 32, 32, 16, 16, 0, 0.25f};
    kh_case c;
    att_case(&c, &s, 4);
    dt_input(&c, 3, (int64_t[]){32, 32}, 2, 24);
    dt_check_declines(&c, 0, "a mask");
    dt_free_inputs(&c);

    att_case(&c, &s, 3);
    free(c.in[1].data);
    dt_input(&c, 1, (int64_t[]){1, 32, 16}, 3, 22); /* K's batch broadcasts */
    dt_check_declines(&c, 0, "broadcast batch dims");
    dt_free_inputs(&c);

    att_case(&c, &(att_spec){3, {1}, 4, 4, 4, 4, 0, 1.0f}, 3);
    dt_check_declines(&c, 0, "too small");
    dt_free_inputs(&c);

    att_case(&c, &(att_spec){3, {1}, 2100, 2100, 8, 8, 0, 1.0f}, 3);
    dt_check_declines(&c, 0, "17.6 MB of scores");
    dt_free_inputs(&c);
}

#else

Test(dnnl_attention, needs_onednn)
{
    cr_skip_test("Kiln was built without oneDNN (KILN_WITH_DNNL): no oneDNN kernels to test");
}

#endif
