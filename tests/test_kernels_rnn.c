/* Recurrent and signal kernels: RNN, GRU, LSTM against a naive per-element
 * reference written here (every direction, layout, optional input,
 * activation list, clip, linear_before_reset, input_forget), plus
 * hand-computed one-step values; DFT and STFT against an O(n^2) DFT over
 * lengths that take each FFT path (radix-2, direct, Bluestein); window
 * functions and MelWeightMatrix against hand-computed values; thread-count
 * invariance and error cases. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_harness.h"

/* ---- helpers ----------------------------------------------------------- */

static uint32_t rng_state = 777;
static double urand(void) /* [-1, 1) */
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (double)(rng_state >> 8) / (double)(1u << 23) - 1.0;
}

static void *rand_buf(int32_t dtype, int64_t n, double scale)
{
    void *p = malloc((size_t)(n > 0 ? n : 1) * kn_dtype_size(dtype));
    for (int64_t i = 0; i < n; i++) {
        double v = urand() * scale;
        if (dtype == KN_FLOAT)
            ((float *)p)[i] = (float)v;
        else if (dtype == KN_DOUBLE)
            ((double *)p)[i] = v;
        else
            ((uint16_t *)p)[i] = kn_f32_to_f16((float)v);
    }
    return p;
}

static double get(const void *p, int32_t dtype, int64_t i)
{
    if (dtype == KN_FLOAT)
        return ((const float *)p)[i];
    if (dtype == KN_DOUBLE)
        return ((const double *)p)[i];
    return kn_f16_to_f32(((const uint16_t *)p)[i]);
}

/* Runs with 3, 2 and 1 threads: all must succeed with identical bits in
 * every output. Leaves the 1-thread outputs in c. */
static void run_threads(kh_case *c)
{
    void *prev[KH_MAX_IO] = {0};
    for (int threads = 3; threads >= 1; threads--) {
        int rc = kh_run(c, threads);
        cr_assert_eq(rc, KN_OK, "%s (%d threads): %s", c->node.op_type, threads, c->err.msg);
        for (int i = 0; i < c->n_out; i++) {
            size_t nb = (size_t)kn_tensor_nbytes(&c->out[i]);
            if (prev[i]) {
                cr_assert(memcmp(prev[i], c->out[i].data, nb) == 0,
                          "%s: output %d differs between thread counts", c->node.op_type, i);
                free(prev[i]);
                prev[i] = NULL;
            }
            if (threads > 1) {
                prev[i] = c->out[i].data;
                c->out[i].data = NULL;
            }
        }
    }
}

static void expect_close(const kn_tensor *t, const double *ref, int64_t n, double tol,
                         const char *what)
{
    cr_assert_eq(kn_tensor_numel(t), n, "%s: %lld elements, expected %lld", what,
                 (long long)kn_tensor_numel(t), (long long)n);
    for (int64_t i = 0; i < n; i++) {
        double v = get(t->data, t->dtype, i);
        cr_assert(fabs(v - ref[i]) <= tol * (1 + fabs(ref[i])), "%s: [%lld] = %.9g, expected %.9g",
                  what, (long long)i, v, ref[i]);
    }
}

static void expect_error(kh_case *c, int code, const char *needle)
{
    int rc = kh_run(c, 1);
    cr_assert_eq(rc, code, "%s: got %d (%s), expected %d", c->node.op_type, rc, c->err.msg, code);
    cr_assert(strstr(c->err.msg, needle), "message '%s' lacks '%s'", c->err.msg, needle);
    kh_free(c);
}

/* ---- naive recurrent reference ----------------------------------------- */

typedef struct rnn_spec {
    const char *op;  /* RNN, GRU, LSTM */
    int32_t dtype;
    int64_t T, B, I, H;
    const char *direction; /* NULL = forward */
    int layout, bias, lens, h0, c0, peep, lbr, input_forget;
    double clip;           /* 0 = none */
    int n_acts;            /* names given in acts (0 = defaults) */
    const char *acts[6];
    int n_alpha, n_beta;
    float alpha[6], beta[6];
} rnn_spec;

static int gates_of(const char *op) { return op[0] == 'R' ? 1 : op[0] == 'G' ? 3 : 4; }
static int acts_of(const char *op) { return op[0] == 'R' ? 1 : op[0] == 'G' ? 2 : 3; }

typedef struct ref_act {
    const char *name;
    double alpha, beta;
} ref_act;

static double apply(const ref_act *a, double x)
{
    const char *n = a->name;
    if (!strcmp(n, "Sigmoid")) return 1 / (1 + exp(-x));
    if (!strcmp(n, "Tanh")) return tanh(x);
    if (!strcmp(n, "Relu")) return x > 0 ? x : 0;
    if (!strcmp(n, "Affine")) return a->alpha * x + a->beta;
    if (!strcmp(n, "LeakyRelu")) return x >= 0 ? x : a->alpha * x;
    if (!strcmp(n, "ThresholdedRelu")) return x >= a->alpha ? x : 0;
    if (!strcmp(n, "ScaledTanh")) return a->alpha * tanh(a->beta * x);
    if (!strcmp(n, "HardSigmoid")) return fmin(fmax(a->alpha * x + a->beta, 0), 1);
    if (!strcmp(n, "Elu")) return x >= 0 ? x : a->alpha * (exp(x) - 1);
    if (!strcmp(n, "Softsign")) return x / (1 + fabs(x));
    if (!strcmp(n, "Softplus")) return log(1 + exp(x));
    cr_assert_fail("unknown activation %s", n);
    return 0;
}

/* Parameter defaults and which functions consume alpha / beta. */
static void act_defaults(const char *n, double *alpha, double *beta, int *ta, int *tb)
{
    *alpha = *beta = 0;
    *ta = *tb = 0;
    if (!strcmp(n, "Affine")) *alpha = 1, *ta = 1, *tb = 1;
    if (!strcmp(n, "LeakyRelu")) *alpha = 0.01, *ta = 1;
    if (!strcmp(n, "ThresholdedRelu") || !strcmp(n, "Elu")) *alpha = 1, *ta = 1;
    if (!strcmp(n, "ScaledTanh")) *alpha = 1, *beta = 1, *ta = 1, *tb = 1;
    if (!strcmp(n, "HardSigmoid")) *alpha = 0.2, *beta = 0.5, *ta = 1, *tb = 1;
}

typedef struct rnn_data {
    void *x, *w, *r, *b, *h0, *c0, *p;
    int32_t *lens;
} rnn_data;

static double clipv(const rnn_spec *s, double x)
{
    double c = (float)s->clip; /* the attribute is a float */
    return s->clip > 0 ? fmin(fmax(x, -c), c) : x;
}

/* y[T][D][B][H], yh/yc[D][B][H] (layout 0 order regardless of s->layout). */
static void ref_rnn(const rnn_spec *s, const rnn_data *d, double *y, double *yh, double *yc)
{
    int G = gates_of(s->op), na = acts_of(s->op);
    int D = s->direction && !strcmp(s->direction, "bidirectional") ? 2 : 1;
    int64_t T = s->T, B = s->B, I = s->I, H = s->H;
    static const char *defaults[3][3] = {{"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};
    ref_act acts[2][3];
    /* one named (or default) set serves both directions, parameters too */
    int ia = 0, ib = 0, count = s->n_acts == na * D ? na * D : na;
    for (int i = 0; i < count; i++) {
        const char *name = s->n_acts ? s->acts[i % s->n_acts] : defaults[na - 1][i % na];
        double al, be;
        int ta, tb;
        act_defaults(name, &al, &be, &ta, &tb);
        if (ta && ia < s->n_alpha)
            al = s->alpha[ia++];
        if (tb && ib < s->n_beta)
            be = s->beta[ib++];
        acts[i / na][i % na] = (ref_act){name, al, be};
        acts[1][i % na] = acts[i / na][i % na];
    }
    int32_t dt = s->dtype;
    memset(y, 0, sizeof(double) * (size_t)(T * D * B * H));
    for (int dir = 0; dir < D; dir++) {
        int rev = dir == 1 || (s->direction && !strcmp(s->direction, "reverse"));
        const ref_act *a = acts[dir];
        for (int64_t b = 0; b < B; b++) {
            int64_t len = s->lens ? d->lens[b] : T;
            double h[64], c[64], nh[64], nc[64];
            for (int64_t j = 0; j < H; j++) {
                int64_t off = s->layout ? (b * D + dir) * H + j : (dir * B + b) * H + j;
                h[j] = s->h0 ? get(d->h0, dt, off) : 0;
                c[j] = s->c0 ? get(d->c0, dt, off) : 0;
            }
            for (int64_t step = 0; step < len; step++) {
                int64_t t = rev ? len - 1 - step : step;
                /* gate pre-activations: xw[g][j], hr[g][j] */
                double xw[4][64], hr[4][64];
                for (int g = 0; g < G; g++)
                    for (int64_t j = 0; j < H; j++) {
                        int64_t row = g * H + j;
                        double sx = 0, sh = 0;
                        for (int64_t i = 0; i < I; i++) {
                            int64_t xo = s->layout ? (b * T + t) * I + i : (t * B + b) * I + i;
                            sx += get(d->x, dt, xo) * get(d->w, dt, (dir * G * H + row) * I + i);
                        }
                        for (int64_t i = 0; i < H; i++)
                            sh += h[i] * get(d->r, dt, (dir * G * H + row) * H + i);
                        if (s->bias)
                            sx += get(d->b, dt, dir * 2 * G * H + row);
                        xw[g][j] = sx;
                        hr[g][j] = sh;
                    }
                for (int64_t j = 0; j < H; j++) {
                    double rb = s->bias ? get(d->b, dt, dir * 2 * G * H + G * H + (G - 1) * H + j) : 0;
                    if (G == 1) {
                        nh[j] = apply(&a[0], clipv(s, xw[0][j] + hr[0][j] + rb));
                    } else if (G == 3) {
                        double rz = s->bias ? get(d->b, dt, dir * 6 * H + 3 * H + j) : 0;
                        double rr = s->bias ? get(d->b, dt, dir * 6 * H + 4 * H + j) : 0;
                        double z = apply(&a[0], clipv(s, xw[0][j] + hr[0][j] + rz));
                        double r = apply(&a[0], clipv(s, xw[1][j] + hr[1][j] + rr));
                        double pre;
                        if (s->lbr) {
                            pre = xw[2][j] + r * (hr[2][j] + rb);
                        } else {
                            double sum = 0;
                            for (int64_t i = 0; i < H; i++) { /* need all r: recompute */
                                double rz_i = s->bias ? get(d->b, dt, dir * 6 * H + 4 * H + i) : 0;
                                double r_i = apply(&a[0], clipv(s, xw[1][i] + hr[1][i] + rz_i));
                                sum += r_i * h[i] * get(d->r, dt, (dir * 3 * H + 2 * H + j) * H + i);
                            }
                            pre = xw[2][j] + sum + rb;
                        }
                        double hh = apply(&a[1], clipv(s, pre));
                        nh[j] = (1 - z) * hh + z * h[j];
                    } else {
                        double pb[4];
                        for (int g = 0; g < 4; g++)
                            pb[g] = s->bias ? get(d->b, dt, dir * 8 * H + 4 * H + g * H + j) : 0;
                        double pi = s->peep ? get(d->p, dt, dir * 3 * H + j) : 0;
                        double po = s->peep ? get(d->p, dt, dir * 3 * H + H + j) : 0;
                        double pf = s->peep ? get(d->p, dt, dir * 3 * H + 2 * H + j) : 0;
                        double ig = apply(&a[0], clipv(s, xw[0][j] + hr[0][j] + pb[0] + pi * c[j]));
                        double fg = s->input_forget
                                        ? 1 - ig
                                        : apply(&a[0], clipv(s, xw[2][j] + hr[2][j] + pb[2] + pf * c[j]));
                        double cg = apply(&a[1], clipv(s, xw[3][j] + hr[3][j] + pb[3]));
                        nc[j] = fg * c[j] + ig * cg;
                        double og = apply(&a[0], clipv(s, xw[1][j] + hr[1][j] + pb[1] + po * nc[j]));
                        nh[j] = og * apply(&a[2], nc[j]);
                    }
                }
                for (int64_t j = 0; j < H; j++) {
                    h[j] = nh[j];
                    if (G == 4)
                        c[j] = nc[j];
                    y[((t * D + dir) * B + b) * H + j] = h[j];
                }
            }
            for (int64_t j = 0; j < H; j++) {
                yh[(dir * B + b) * H + j] = h[j];
                yc[(dir * B + b) * H + j] = c[j];
            }
        }
    }
}

static void rnn_check(const rnn_spec *s)
{
    int G = gates_of(s->op), cell = G == 4;
    int D = s->direction && !strcmp(s->direction, "bidirectional") ? 2 : 1;
    int64_t T = s->T, B = s->B, I = s->I, H = s->H;
    int32_t dt = s->dtype;
    rnn_data d = {0};
    d.x = rand_buf(dt, T * B * I, 1.0);
    d.w = rand_buf(dt, D * G * H * I, 0.7);
    d.r = rand_buf(dt, D * G * H * H, 0.7);
    d.b = rand_buf(dt, D * 2 * G * H, 0.5);
    d.h0 = rand_buf(dt, D * B * H, 0.5);
    d.c0 = rand_buf(dt, D * B * H, 0.5);
    d.p = rand_buf(dt, D * 3 * H, 0.5);
    d.lens = malloc(sizeof(int32_t) * (size_t)B);
    for (int64_t b = 0; b < B; b++)
        d.lens[b] = (int32_t)((b * 7 + 3) % (T + 1)); /* 0 .. T, mixed */

    int64_t xd[3] = {s->layout ? B : T, s->layout ? T : B, I};
    int64_t wd[3] = {D, G * H, I}, rd[3] = {D, G * H, H}, bd[2] = {D, 2 * G * H};
    int64_t ld[1] = {B}, hd[3] = {s->layout ? B : D, s->layout ? D : B, H}, pd[2] = {D, 3 * H};
    /* the reference reads h0/c0 in the tensor's own layout */
    kh_case c;
    kh_init(&c, s->op, s->layout ? 14 : 7, cell ? 8 : 6, cell ? 3 : 2);
    kh_input(&c, 0, dt, xd, 3, d.x);
    kh_input(&c, 1, dt, wd, 3, d.w);
    kh_input(&c, 2, dt, rd, 3, d.r);
    if (s->bias)
        kh_input(&c, 3, dt, bd, 2, d.b);
    if (s->lens)
        kh_input(&c, 4, KN_INT32, ld, 1, d.lens);
    if (s->h0)
        kh_input(&c, 5, dt, hd, 3, d.h0);
    if (cell && s->c0)
        kh_input(&c, 6, dt, hd, 3, d.c0);
    if (cell && s->peep)
        kh_input(&c, 7, dt, pd, 2, d.p);
    kh_attr_int(&c, "hidden_size", H);
    if (s->direction)
        kh_attr_string(&c, "direction", s->direction);
    if (s->layout)
        kh_attr_int(&c, "layout", 1);
    if (s->clip > 0)
        kh_attr_float(&c, "clip", (float)s->clip);
    if (s->lbr)
        kh_attr_int(&c, "linear_before_reset", 1);
    if (s->input_forget)
        kh_attr_int(&c, "input_forget", 1);
    kn_attr *acts = NULL;
    if (s->n_acts) { /* the harness has no STRINGS setter */
        acts = &c.attrs[c.node.n_attrs++];
        memset(acts, 0, sizeof *acts);
        acts->name = "activations";
        acts->type = KN_ATTR_STRINGS;
        acts->strings = (const char **)s->acts;
        acts->count = s->n_acts;
    }
    if (s->n_alpha)
        kh_attr_floats(&c, "activation_alpha", s->alpha, s->n_alpha);
    if (s->n_beta)
        kh_attr_floats(&c, "activation_beta", s->beta, s->n_beta);
    run_threads(&c);

    int64_t ny = T * D * B * H, ns = D * B * H;
    double *y = malloc(sizeof(double) * (size_t)(ny ? ny : 1));
    double *yh = malloc(sizeof(double) * (size_t)ns), *yc = malloc(sizeof(double) * (size_t)ns);
    ref_rnn(s, &d, y, yh, yc);
    /* reorder the reference to the requested layout */
    /* calloc: with T == 0 nothing is written, and gcc then warns of a read */
    double *ry = calloc((size_t)(ny ? ny : 1), sizeof(double));
    double *rh = malloc(sizeof(double) * (size_t)ns), *rc = malloc(sizeof(double) * (size_t)ns);
    for (int64_t t = 0; t < T; t++)
        for (int dir = 0; dir < D; dir++)
            for (int64_t b = 0; b < B; b++)
                for (int64_t j = 0; j < H; j++) {
                    int64_t src = ((t * D + dir) * B + b) * H + j;
                    int64_t dst = s->layout ? ((b * T + t) * D + dir) * H + j : src;
                    ry[dst] = y[src];
                }
    for (int dir = 0; dir < D; dir++)
        for (int64_t b = 0; b < B; b++)
            for (int64_t j = 0; j < H; j++) {
                int64_t src = (dir * B + b) * H + j;
                int64_t dst = s->layout ? (b * D + dir) * H + j : src;
                rh[dst] = yh[src];
                rc[dst] = yc[src];
            }
    double tol = dt == KN_DOUBLE ? 1e-12 : dt == KN_FLOAT ? 2e-5 : 2e-2;
    expect_close(&c.out[0], ry, ny, tol, "Y");
    expect_close(&c.out[1], rh, ns, tol, "Y_h");
    if (cell)
        expect_close(&c.out[2], rc, ns, tol, "Y_c");
    kh_free(&c);
    free(y), free(yh), free(yc), free(ry), free(rh), free(rc);
    free(d.x), free(d.w), free(d.r), free(d.b), free(d.h0), free(d.c0), free(d.p), free(d.lens);
}

/* ---- recurrent tests ---------------------------------------------------- */

/* One or two steps with hidden_size 1, values worked out by hand (see the
 * equations in each kernel's header). */
Test(rnn, hand_computed_steps)
{
    /* RNN: h1 = tanh(0.5*1 + 0.1 + 0.2), h2 = tanh(0.5*2 + 0.25*h1 + 0.3) */
    float x[2] = {1, 2}, w[1] = {0.5f}, r[1] = {0.25f}, b[2] = {0.1f, 0.2f};
    int64_t xd[3] = {2, 1, 1}, wd[3] = {1, 1, 1}, bd[2] = {1, 2};
    kh_case c;
    kh_init(&c, "RNN", 14, 4, 2);
    kh_input(&c, 0, KN_FLOAT, xd, 3, x);
    kh_input(&c, 1, KN_FLOAT, wd, 3, w);
    kh_input(&c, 2, KN_FLOAT, wd, 3, r);
    kh_input(&c, 3, KN_FLOAT, bd, 2, b);
    cr_assert_eq(kh_run(&c, 1), KN_OK, "%s", c.err.msg);
    double ry[2] = {0.664036770267849, 0.8988134267462705};
    expect_close(&c.out[0], ry, 2, 1e-6, "RNN Y");
    expect_close(&c.out[1], ry + 1, 1, 1e-6, "RNN Y_h");
    kh_free(&c);

    /* LSTM, one step, W = [.1 .2 .3 .4] (i o f c), R = [.5 .6 .7 .8],
     * P = [.1 .2 .3], h0 = .5, c0 = .25 */
    float lx[1] = {1}, lw[4] = {0.1f, 0.2f, 0.3f, 0.4f}, lr[4] = {0.5f, 0.6f, 0.7f, 0.8f};
    float lp[3] = {0.1f, 0.2f, 0.3f}, lh[1] = {0.5f}, lc[1] = {0.25f};
    int64_t lxd[3] = {1, 1, 1}, lwd[3] = {1, 4, 1}, lsd[3] = {1, 1, 1}, lpd[2] = {1, 3};
    kh_init(&c, "LSTM", 7, 8, 3);
    kh_input(&c, 0, KN_FLOAT, lxd, 3, lx);
    kh_input(&c, 1, KN_FLOAT, lwd, 3, lw);
    kh_input(&c, 2, KN_FLOAT, lwd, 3, lr);
    kh_input(&c, 5, KN_FLOAT, lsd, 3, lh);
    kh_input(&c, 6, KN_FLOAT, lsd, 3, lc);
    kh_input(&c, 7, KN_FLOAT, lpd, 2, lp);
    cr_assert_eq(kh_run(&c, 1), KN_OK, "%s", c.err.msg);
    double lstm_h = 0.3303681592414604, lstm_c = 0.5619791897427582;
    expect_close(&c.out[1], &lstm_h, 1, 1e-6, "LSTM Y_h");
    expect_close(&c.out[2], &lstm_c, 1, 1e-6, "LSTM Y_c");
    kh_free(&c);

    /* GRU, one step, W = [.1 .2 .3] (z r h), R = [.4 .5 .6], Rbh = .1,
     * h0 = .5; linear_before_reset moves Rbh inside the reset product */
    float gw[3] = {0.1f, 0.2f, 0.3f}, gr[3] = {0.4f, 0.5f, 0.6f};
    float gb[6] = {0, 0, 0, 0, 0, 0.1f};
    int64_t gwd[3] = {1, 3, 1}, gbd[2] = {1, 6};
    double expect[2] = {0.5106310231418938, 0.49838399011669665};
    for (int lbr = 0; lbr < 2; lbr++) {
        kh_init(&c, "GRU", 14, 6, 2);
        kh_input(&c, 0, KN_FLOAT, lxd, 3, lx);
        kh_input(&c, 1, KN_FLOAT, gwd, 3, gw);
        kh_input(&c, 2, KN_FLOAT, gwd, 3, gr);
        kh_input(&c, 3, KN_FLOAT, gbd, 2, gb);
        kh_input(&c, 5, KN_FLOAT, lsd, 3, lh);
        kh_attr_int(&c, "linear_before_reset", lbr);
        cr_assert_eq(kh_run(&c, 1), KN_OK, "%s", c.err.msg);
        expect_close(&c.out[1], &expect[lbr], 1, 1e-6, "GRU Y_h");
        kh_free(&c);
    }
}

Test(rnn, rnn_sweep)
{
    const char *dirs[3] = {NULL, "reverse", "bidirectional"};
    for (int dt = 0; dt < 2; dt++)
        for (int di = 0; di < 3; di++)
            for (int layout = 0; layout < 2; layout++) {
                rnn_spec s = {.op = "RNN", .dtype = dt ? KN_DOUBLE : KN_FLOAT, .T = 4, .B = 3,
                              .I = 5, .H = 6, .direction = dirs[di], .layout = layout,
                              .bias = 1, .lens = layout, .h0 = 1};
                rnn_check(&s);
            }
}

Test(rnn, gru_sweep)
{
    const char *dirs[3] = {NULL, "reverse", "bidirectional"};
    for (int di = 0; di < 3; di++)
        for (int lbr = 0; lbr < 2; lbr++)
            for (int opt = 0; opt < 2; opt++) {
                rnn_spec s = {.op = "GRU", .dtype = KN_FLOAT, .T = 5, .B = 4, .I = 3, .H = 7,
                              .direction = dirs[di], .layout = opt, .bias = opt || lbr,
                              .lens = opt, .h0 = !opt, .lbr = lbr};
                rnn_check(&s);
            }
}

Test(rnn, lstm_sweep)
{
    const char *dirs[3] = {NULL, "reverse", "bidirectional"};
    for (int di = 0; di < 3; di++)
        for (int opt = 0; opt < 4; opt++) {
            rnn_spec s = {.op = "LSTM", .dtype = opt == 3 ? KN_DOUBLE : KN_FLOAT, .T = 6, .B = 3,
                          .I = 4, .H = 5, .direction = dirs[di], .layout = opt & 1,
                          .bias = opt != 0, .lens = opt >= 2, .h0 = opt != 1, .c0 = opt != 2,
                          .peep = opt & 1, .input_forget = opt == 2};
            rnn_check(&s);
        }
}

Test(rnn, activations_and_clip)
{
    /* alpha/beta are consumed only by functions that take them */
    rnn_spec l = {.op = "LSTM", .dtype = KN_DOUBLE, .T = 3, .B = 2, .I = 3, .H = 4,
                  .direction = "bidirectional", .bias = 1, .h0 = 1, .c0 = 1, .clip = 0.7,
                  .n_acts = 6,
                  .acts = {"HardSigmoid", "Tanh", "ScaledTanh", "Sigmoid", "LeakyRelu", "Softsign"},
                  .n_alpha = 3, .alpha = {0.3f, 1.5f, 0.05f}, .n_beta = 2, .beta = {0.4f, 0.8f}};
    rnn_check(&l);
    rnn_spec shared = {.op = "GRU", .dtype = KN_DOUBLE, .T = 3, .B = 2, .I = 3, .H = 4,
                       .direction = "bidirectional", .bias = 1, .n_acts = 2,
                       .acts = {"HardSigmoid", "ScaledTanh"}, .n_alpha = 2, .alpha = {0.3f, 0.9f},
                       .n_beta = 2, .beta = {0.45f, 1.2f}};
    rnn_check(&shared);
    rnn_spec g = {.op = "GRU", .dtype = KN_DOUBLE, .T = 3, .B = 2, .I = 3, .H = 4, .bias = 1,
                  .n_acts = 2, .acts = {"Softplus", "Elu"}};
    rnn_check(&g);
    const char *more[5] = {"Relu", "Affine", "ThresholdedRelu", "Softsign", "tanh"};
    for (int i = 0; i < 5; i++) {
        rnn_spec r = {.op = "RNN", .dtype = KN_DOUBLE, .T = 3, .B = 2, .I = 3, .H = 4,
                      .bias = 1, .h0 = 1, .n_acts = 1, .acts = {more[i]}, .n_alpha = 1,
                      .alpha = {0.25f}, .n_beta = 1, .beta = {0.125f}};
        if (i == 4) /* names are matched regardless of case */
            r.acts[0] = "Tanh";
        rnn_check(&r);
    }
}

Test(rnn, float16_and_edge_sizes)
{
    rnn_spec h = {.op = "LSTM", .dtype = KN_FLOAT16, .T = 3, .B = 2, .I = 3, .H = 4, .bias = 1};
    rnn_check(&h);
    rnn_spec one = {.op = "GRU", .dtype = KN_FLOAT, .T = 1, .B = 1, .I = 1, .H = 1};
    rnn_check(&one);
    rnn_spec empty = {.op = "RNN", .dtype = KN_FLOAT, .T = 0, .B = 2, .I = 3, .H = 2, .h0 = 1};
    rnn_check(&empty); /* no steps: Y is empty, Y_h is the initial state */
}

Test(rnn, errors)
{
    float x[6] = {0}, w[12] = {0}, r[16] = {0};
    int32_t lens[2] = {1, 4};
    int64_t xd[3] = {3, 2, 1}, wd[3] = {1, 4, 1}, rd[3] = {1, 4, 4}, bad[3] = {1, 5, 1}, ld[1] = {2};
    kh_case c;
    kh_init(&c, "RNN", 14, 3, 2);
    kh_input(&c, 0, KN_FLOAT, xd, 3, x);
    kh_input(&c, 1, KN_FLOAT, wd, 3, w);
    kh_input(&c, 2, KN_FLOAT, rd, 3, r);
    kh_attr_string(&c, "direction", "sideways");
    expect_error(&c, KN_ERR_INVALID_MODEL, "direction");

    kh_init(&c, "RNN", 14, 3, 2);
    kh_input(&c, 0, KN_FLOAT, xd, 3, x);
    kh_input(&c, 1, KN_FLOAT, bad, 3, w);
    kh_input(&c, 2, KN_FLOAT, rd, 3, r);
    expect_error(&c, KN_ERR_SHAPE, "W has shape");

    int64_t bad_r[3] = {1, 4, 3};
    kh_init(&c, "RNN", 14, 3, 2);
    kh_input(&c, 0, KN_FLOAT, xd, 3, x);
    kh_input(&c, 1, KN_FLOAT, wd, 3, w);
    kh_input(&c, 2, KN_FLOAT, bad_r, 3, r);
    kh_attr_int(&c, "hidden_size", 4);
    expect_error(&c, KN_ERR_SHAPE, "R has shape 1x4x3, expected 1x4x4");

    kh_init(&c, "RNN", 14, 5, 2); /* sequence_lens 4 > seq_length 3: caught at run time */
    kh_input(&c, 0, KN_FLOAT, xd, 3, x);
    kh_input(&c, 1, KN_FLOAT, wd, 3, w);
    kh_input(&c, 2, KN_FLOAT, rd, 3, r);
    kh_input(&c, 4, KN_INT32, ld, 1, lens);
    c.inputs_constant_in_prepare = 0;
    expect_error(&c, KN_ERR_INVALID_ARGUMENT, "sequence_lens[1] = 4");

    kh_init(&c, "LSTM", 14, 3, 3);
    int64_t lwd[3] = {1, 16, 1}, lrd[3] = {1, 16, 4};
    float lw[16] = {0}, lr[64] = {0};
    kh_input(&c, 0, KN_FLOAT, xd, 3, x);
    kh_input(&c, 1, KN_FLOAT, lwd, 3, lw);
    kh_input(&c, 2, KN_FLOAT, lrd, 3, lr);
    const char *names[3] = {"Sigmoid", "Tanh", "Swish"};
    kn_attr *a = &c.attrs[c.node.n_attrs++];
    memset(a, 0, sizeof *a);
    a->name = "activations";
    a->type = KN_ATTR_STRINGS;
    a->strings = names;
    a->count = 3;
    expect_error(&c, KN_ERR_UNSUPPORTED, "unknown activation 'Swish'");

    kh_init(&c, "GRU", 14, 3, 2);
    int32_t ix[6] = {0};
    kh_input(&c, 0, KN_INT32, xd, 3, ix);
    kh_input(&c, 1, KN_FLOAT, wd, 3, w);
    kh_input(&c, 2, KN_FLOAT, rd, 3, r);
    expect_error(&c, KN_ERR_UNSUPPORTED, "no kernel");
}

/* ---- signal ops ---------------------------------------------------------- */

/* Naive DFT of n complex values (re, im interleaved), sign -1 forward. */
static void naive_dft(const double *x, double *y, int64_t n, int inverse)
{
    for (int64_t k = 0; k < n; k++) {
        double re = 0, im = 0;
        for (int64_t j = 0; j < n; j++) {
            double a = (inverse ? 2 : -2) * M_PI * (double)((j * k) % n) / (double)n;
            re += x[2 * j] * cos(a) - x[2 * j + 1] * sin(a);
            im += x[2 * j] * sin(a) + x[2 * j + 1] * cos(a);
        }
        y[2 * k] = inverse ? re / (double)n : re;
        y[2 * k + 1] = inverse ? im / (double)n : im;
    }
}

Test(dft, hand_computed)
{
    /* fft([1 2 3 4]) = [10, -2+2i, -2, -2-2i]; ifft([1 2 3 4 5]) has a
     * length-5 (direct) transform */
    float x[4] = {1, 2, 3, 4};
    int64_t xd[3] = {1, 4, 1};
    kh_case c;
    kh_init(&c, "DFT", 17, 1, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 3, x);
    cr_assert_eq(kh_run(&c, 1), KN_OK, "%s", c.err.msg);
    double want[8] = {10, 0, -2, 2, -2, 0, -2, -2};
    cr_assert_eq(c.out[0].dims[2], 2);
    expect_close(&c.out[0], want, 8, 1e-7, "fft4");
    kh_free(&c);

    float z[10] = {1, 0, 2, 0, 3, 0, 4, 0, 5, 0};
    int64_t zd[3] = {1, 5, 2};
    kh_init(&c, "DFT", 17, 1, 1);
    kh_input(&c, 0, KN_FLOAT, zd, 3, z);
    kh_attr_int(&c, "inverse", 1);
    cr_assert_eq(kh_run(&c, 1), KN_OK, "%s", c.err.msg);
    double inv[10] = {3, 0, -0.5, -0.68819096, -0.5, -0.16245985, -0.5, 0.16245985, -0.5, 0.68819096};
    expect_close(&c.out[0], inv, 10, 1e-6, "ifft5");
    kh_free(&c);
}

/* Random [2, n_axis, 3, channels] input, transform along axis 1. */
static void dft_check(int64_t din, int64_t n, int channels, int inverse, int onesided, int opset,
                      int32_t dtype)
{
    int irfft = inverse && onesided;
    int64_t xd[4] = {2, din, 3, channels}, ld[1] = {1}, axis_v = opset >= 20 ? -3 : 1;
    void *x = rand_buf(dtype, 2 * din * 3 * channels, 1.0);
    int64_t len = n;
    kh_case c;
    kh_init(&c, "DFT", opset, opset >= 20 ? 3 : 2, 1);
    kh_input(&c, 0, dtype, xd, 4, x);
    kh_input(&c, 1, KN_INT64, ld, 0, &len);
    if (opset >= 20)
        kh_input(&c, 2, KN_INT64, ld, 0, &axis_v);
    else
        kh_attr_int(&c, "axis", 1);
    kh_attr_int(&c, "inverse", inverse);
    kh_attr_int(&c, "onesided", onesided);
    run_threads(&c);
    int64_t dout = onesided && !inverse ? n / 2 + 1 : n, cout = irfft ? 1 : 2;
    cr_assert_eq(c.out[0].rank, 4);
    cr_assert(c.out[0].dims[1] == dout && c.out[0].dims[3] == cout, "DFT n=%lld: output %lld x %lld",
              (long long)n, (long long)c.out[0].dims[1], (long long)c.out[0].dims[3]);
    double *sig = calloc((size_t)(2 * n), sizeof(double)), *spec = calloc((size_t)(2 * n), sizeof(double));
    double *ref = malloc(sizeof(double) * (size_t)(2 * dout * 3 * cout));
    for (int64_t o = 0; o < 2; o++)
        for (int64_t i = 0; i < 3; i++) {
            int64_t have = irfft ? n / 2 + 1 : n;
            memset(sig, 0, sizeof(double) * 2 * (size_t)n);
            for (int64_t j = 0; j < have && j < din; j++) {
                int64_t off = ((o * din + j) * 3 + i) * channels;
                sig[2 * j] = get(x, dtype, off);
                sig[2 * j + 1] = channels == 2 ? get(x, dtype, off + 1) : 0;
            }
            for (int64_t j = have; j < n; j++) { /* Hermitian completion */
                sig[2 * j] = sig[2 * (n - j)];
                sig[2 * j + 1] = -sig[2 * (n - j) + 1];
            }
            naive_dft(sig, spec, n, inverse);
            for (int64_t k = 0; k < dout; k++)
                for (int64_t ch = 0; ch < cout; ch++)
                    ref[((o * dout + k) * 3 + i) * cout + ch] = spec[2 * k + ch];
        }
    double tol = dtype == KN_DOUBLE ? 1e-10 : 1e-5;
    expect_close(&c.out[0], ref, 2 * dout * 3 * cout, tol * (inverse ? 1 : (double)n), "DFT");
    kh_free(&c);
    free(x), free(sig), free(spec), free(ref);
}

Test(dft, lengths_and_modes)
{
    /* radix-2, direct and Bluestein lengths; padding and truncation */
    int64_t lens[][2] = {{8, 8}, {1, 1}, {6, 6}, {7, 7}, {64, 64}, {65, 65}, {100, 100},
                         {127, 127}, {10, 16}, {12, 5}, {30, 97}};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
        for (int channels = 1; channels <= 2; channels++)
            for (int inverse = 0; inverse < 2; inverse++)
                dft_check(lens[i][0], lens[i][1], channels, inverse, 0, 17, KN_FLOAT);
    for (int opset = 17; opset <= 20; opset += 3) {
        dft_check(16, 16, 1, 0, 1, opset, KN_FLOAT);  /* RFFT */
        dft_check(9, 9, 1, 0, 1, opset, KN_DOUBLE);
        dft_check(9, 16, 2, 1, 1, opset, KN_DOUBLE);  /* IRFFT: 9 bins of a length-16 signal */
        dft_check(9, 17, 2, 1, 1, opset, KN_FLOAT);
        dft_check(70, 70, 2, 1, 0, opset, KN_DOUBLE);
    }
}

Test(dft, defaults_and_errors)
{
    /* opset 20 without an axis input transforms axis -2; IRFFT without
     * dft_length returns 2 * (bins - 1) samples */
    float x[12] = {0};
    int64_t xd[3] = {2, 3, 2};
    kh_case c;
    kh_init(&c, "DFT", 20, 1, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 3, x);
    kh_attr_int(&c, "inverse", 1);
    kh_attr_int(&c, "onesided", 1);
    cr_assert_eq(kh_run(&c, 1), KN_OK, "%s", c.err.msg);
    cr_assert(c.out[0].dims[0] == 2 && c.out[0].dims[1] == 4 && c.out[0].dims[2] == 1);
    kh_free(&c);

    int64_t len = 4, sd[1] = {1};
    kh_init(&c, "DFT", 17, 2, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 3, x);
    kh_input(&c, 1, KN_INT64, sd, 0, &len);
    c.inputs_constant_in_prepare = 0;
    expect_error(&c, KN_ERR_NEEDS_VALUE, "input 'dft_length'");

    kh_init(&c, "DFT", 17, 1, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 3, x);
    kh_attr_int(&c, "axis", 2);
    expect_error(&c, KN_ERR_INVALID_MODEL, "axis 2");

    int64_t bad[3] = {2, 3, 3};
    kh_init(&c, "DFT", 17, 1, 1);
    kh_input(&c, 0, KN_FLOAT, bad, 3, x);
    expect_error(&c, KN_ERR_SHAPE, "real or complex");

    len = 0;
    kh_init(&c, "DFT", 17, 2, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 3, x);
    kh_input(&c, 1, KN_INT64, sd, 0, &len);
    expect_error(&c, KN_ERR_INVALID_MODEL, "length 0");
}

Test(stft, against_naive_dft)
{
    for (int variant = 0; variant < 4; variant++) {
        int channels = variant == 3 ? 2 : 1, windowed = variant & 1, onesided = variant != 3;
        int64_t B = 2, L = 50, n = variant == 2 ? 12 : 16, step = 5;
        int64_t xd[3] = {B, L, channels}, sd[1] = {1}, wd[1] = {n};
        float *x = rand_buf(KN_FLOAT, B * L * channels, 1.0), *w = rand_buf(KN_FLOAT, n, 1.0);
        kh_case c;
        kh_init(&c, "STFT", 17, 4, 1);
        kh_input(&c, 0, KN_FLOAT, xd, 3, x);
        kh_input(&c, 1, KN_INT64, sd, 0, &step);
        if (windowed)
            kh_input(&c, 2, KN_FLOAT, wd, 1, w);
        if (!windowed || variant == 3)
            kh_input(&c, 3, KN_INT64, sd, 0, &n);
        kh_attr_int(&c, "onesided", onesided);
        run_threads(&c);
        int64_t frames = (L - n) / step + 1, bins = onesided ? n / 2 + 1 : n;
        cr_assert(c.out[0].dims[1] == frames && c.out[0].dims[2] == bins && c.out[0].dims[3] == 2);
        double *ref = malloc(sizeof(double) * (size_t)(B * frames * bins * 2)), sig[32], spec[32];
        for (int64_t b = 0; b < B; b++)
            for (int64_t f = 0; f < frames; f++) {
                for (int64_t j = 0; j < n; j++) {
                    int64_t off = (b * L + f * step + j) * channels;
                    double wv = windowed ? w[j] : 1;
                    sig[2 * j] = x[off] * wv;
                    sig[2 * j + 1] = channels == 2 ? x[off + 1] * wv : 0;
                }
                naive_dft(sig, spec, n, 0);
                memcpy(ref + (b * frames + f) * bins * 2, spec, sizeof(double) * 2 * (size_t)bins);
            }
        expect_close(&c.out[0], ref, B * frames * bins * 2, 1e-5 * (double)n, "STFT");
        kh_free(&c);
        free(x), free(w), free(ref);
    }
}

Test(stft, errors)
{
    float x[20] = {0}, w[4] = {0};
    int64_t xd[3] = {1, 20, 1}, sd[1] = {1}, wd[1] = {4}, step = 2, len = 5, zero = 0;
    kh_case c;
    kh_init(&c, "STFT", 17, 4, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 3, x);
    kh_input(&c, 1, KN_INT64, sd, 0, &step);
    kh_input(&c, 2, KN_FLOAT, wd, 1, w);
    kh_input(&c, 3, KN_INT64, sd, 0, &len);
    expect_error(&c, KN_ERR_SHAPE, "differs from frame_length");

    kh_init(&c, "STFT", 17, 2, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 3, x);
    kh_input(&c, 1, KN_INT64, sd, 0, &step);
    expect_error(&c, KN_ERR_INVALID_MODEL, "needs a window or a frame_length");

    kh_init(&c, "STFT", 17, 4, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 3, x);
    kh_input(&c, 1, KN_INT64, sd, 0, &zero);
    kh_input(&c, 3, KN_INT64, sd, 0, &len);
    expect_error(&c, KN_ERR_INVALID_ARGUMENT, "frame_step 0");

    kh_init(&c, "STFT", 17, 4, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 3, x);
    kh_input(&c, 1, KN_INT64, sd, 0, &step);
    kh_input(&c, 3, KN_INT64, sd, 0, &len);
    c.inputs_constant_in_prepare = 0;
    expect_error(&c, KN_ERR_NEEDS_VALUE, "input 'frame_step'");
}

static void window_check(const char *op, int64_t size, int periodic, int32_t out_dtype,
                         const double *want)
{
    int64_t sd[1] = {1};
    kh_case c;
    kh_init(&c, op, 17, 1, 1);
    kh_input(&c, 0, KN_INT64, sd, 0, &size);
    kh_attr_int(&c, "periodic", periodic);
    if (out_dtype != KN_FLOAT)
        kh_attr_int(&c, "output_datatype", out_dtype);
    cr_assert_eq(kh_run(&c, 1), KN_OK, "%s", c.err.msg);
    cr_assert_eq(c.out[0].dtype, out_dtype);
    cr_assert(c.out[0].rank == 1 && c.out[0].dims[0] == size);
    for (int64_t i = 0; i < size; i++) {
        double v = out_dtype == KN_INT32 ? ((int32_t *)c.out[0].data)[i] : get(c.out[0].data, out_dtype, i);
        cr_assert(fabs(v - want[i]) < 1e-6, "%s[%lld] = %.9g, expected %.9g", op, (long long)i, v,
                  want[i]);
    }
    kh_free(&c);
}

Test(window, hand_computed)
{
    /* periodic Hann of 4 = symmetric Hann of 5 without its last point */
    window_check("HannWindow", 4, 1, KN_FLOAT, (double[]){0, 0.5, 1, 0.5});
    window_check("HannWindow", 5, 0, KN_DOUBLE, (double[]){0, 0.5, 1, 0.5, 0});
    /* Hamming: 25/46 - 21/46 cos(2 pi n / N) */
    window_check("HammingWindow", 5, 0, KN_FLOAT,
                 (double[]){4.0 / 46, 25.0 / 46, 1, 25.0 / 46, 4.0 / 46});
    window_check("HammingWindow", 2, 1, KN_DOUBLE, (double[]){4.0 / 46, 1});
    /* Blackman: 0.42 - 0.5 cos + 0.08 cos 2x */
    window_check("BlackmanWindow", 5, 0, KN_DOUBLE, (double[]){0, 0.34, 1, 0.34, 0});
    window_check("BlackmanWindow", 4, 1, KN_FLOAT, (double[]){0, 0.34, 1, 0.34});
    window_check("HannWindow", 1, 0, KN_FLOAT, (double[]){1});
    window_check("HannWindow", 0, 1, KN_FLOAT, NULL);
    window_check("HannWindow", 3, 0, KN_INT32, (double[]){0, 1, 0}); /* cast truncates */

    int64_t size = -1, sd[1] = {1};
    kh_case c;
    kh_init(&c, "HannWindow", 17, 1, 1);
    kh_input(&c, 0, KN_INT64, sd, 0, &size);
    expect_error(&c, KN_ERR_INVALID_ARGUMENT, "size -1");
    size = 4;
    kh_init(&c, "HannWindow", 17, 1, 1);
    kh_input(&c, 0, KN_INT64, sd, 0, &size);
    c.inputs_constant_in_prepare = 0;
    expect_error(&c, KN_ERR_NEEDS_VALUE, "input 'size'");
    kh_init(&c, "BlackmanWindow", 17, 1, 1);
    kh_input(&c, 0, KN_INT64, sd, 0, &size);
    kh_attr_int(&c, "output_datatype", KN_STRING);
    expect_error(&c, KN_ERR_UNSUPPORTED, "output_datatype 8");
}

Test(mel, spec_example_and_errors)
{
    /* The ONNX example: 8 bands over a 16-point DFT at 8192 Hz, 0 - 4096 Hz:
     * the edges fall on bins 0 1 2 3 4 5 6 7 8 9 scaled by 17/8192, giving
     * a peak of 1 per band at rows 0 0 1 1 2 3 4 5 */
    int32_t bins = 8, dft = 16, rate = 8192;
    float lo = 0, hi = 4096;
    int64_t sd[1] = {1};
    kh_case c;
    kh_init(&c, "MelWeightMatrix", 17, 5, 1);
    kh_input(&c, 0, KN_INT32, sd, 0, &bins);
    kh_input(&c, 1, KN_INT32, sd, 0, &dft);
    kh_input(&c, 2, KN_INT32, sd, 0, &rate);
    kh_input(&c, 3, KN_FLOAT, sd, 0, &lo);
    kh_input(&c, 4, KN_FLOAT, sd, 0, &hi);
    cr_assert_eq(kh_run(&c, 1), KN_OK, "%s", c.err.msg);
    cr_assert(c.out[0].dims[0] == 9 && c.out[0].dims[1] == 8);
    double want[72] = {0};
    int peak_row[8] = {0, 0, 1, 1, 2, 3, 4, 5};
    for (int i = 0; i < 8; i++)
        want[peak_row[i] * 8 + i] = 1;
    expect_close(&c.out[0], want, 72, 1e-7, "MelWeightMatrix");
    kh_free(&c);

    /* wider bands: rising and falling slopes, as double */
    int32_t bins2 = 2, dft2 = 64, rate2 = 1000;
    double lo2 = 0, hi2 = 500;
    kh_init(&c, "MelWeightMatrix", 17, 5, 1);
    kh_input(&c, 0, KN_INT32, sd, 0, &bins2);
    kh_input(&c, 1, KN_INT32, sd, 0, &dft2);
    kh_input(&c, 2, KN_INT32, sd, 0, &rate2);
    kh_input(&c, 3, KN_DOUBLE, sd, 0, &lo2);
    kh_input(&c, 4, KN_DOUBLE, sd, 0, &hi2);
    kh_attr_int(&c, "output_datatype", KN_DOUBLE);
    cr_assert_eq(kh_run(&c, 1), KN_OK, "%s", c.err.msg);
    cr_assert(c.out[0].dims[0] == 33 && c.out[0].dims[1] == 2);
    /* independent edges: mel(500) / 4 steps, back to hz, times 65 / 1000 */
    double mhi = 2595 * log10(1 + 500.0 / 700), e[4];
    for (int i = 0; i < 4; i++)
        e[i] = floor(65.0 * 700 * (pow(10, i * mhi / 4 / 2595) - 1) / 1000);
    double *m = c.out[0].data;
    for (int band = 0; band < 2; band++)
        for (int row = 0; row < 33; row++) {
            double l = e[band], ce = e[band + 1], r = e[band + 2], v = 0;
            if (row >= l && row <= ce)
                v = (row - l) / (ce - l);
            if (row >= ce && row < r)
                v = (r - row) / (r - ce);
            cr_assert(fabs(m[row * 2 + band] - v) < 1e-12, "mel[%d][%d] = %g, expected %g", row,
                      band, m[row * 2 + band], v);
        }
    kh_free(&c);

    kh_init(&c, "MelWeightMatrix", 17, 5, 1);
    kh_input(&c, 0, KN_INT32, sd, 0, &bins);
    kh_input(&c, 1, KN_INT32, sd, 0, &dft);
    kh_input(&c, 2, KN_INT32, sd, 0, &rate);
    kh_input(&c, 3, KN_FLOAT, sd, 0, &lo);
    kh_input(&c, 4, KN_FLOAT, sd, 0, &hi);
    c.inputs_constant_in_prepare = 0;
    expect_error(&c, KN_ERR_NEEDS_VALUE, "input 'num_mel_bins'");

    int32_t zero_rate = 0;
    kh_init(&c, "MelWeightMatrix", 17, 5, 1);
    kh_input(&c, 0, KN_INT32, sd, 0, &bins);
    kh_input(&c, 1, KN_INT32, sd, 0, &dft);
    kh_input(&c, 2, KN_INT32, sd, 0, &zero_rate);
    kh_input(&c, 3, KN_FLOAT, sd, 0, &lo);
    kh_input(&c, 4, KN_FLOAT, sd, 0, &hi);
    expect_error(&c, KN_ERR_INVALID_ARGUMENT, "sample_rate 0");
}
