/* GRU (opsets 1-13, and 14+ with layout). Gates z (update), r (reset),
 * h (hidden), in that order in W, R and B:
 *     z = f(X Wz^T + H Rz^T + Wbz + Rbz)
 *     r = f(X Wr^T + H Rr^T + Wbr + Rbr)
 *     h = g(X Wh^T + (r (.) H) Rh^T + Rbh + Wbh)        linear_before_reset = 0
 *     h = g(X Wh^T + r (.) (H Rh^T + Rbh) + Wbh)        linear_before_reset = 1
 *     H' = (1 - z) (.) h + z (.) H
 * Without linear_before_reset the hidden gate's product needs r first, so
 * a step is two GEMMs with a row pass after each; with it, one of each. */
#include "core/cpu/rnn/rnn.h"

/* Pass 1 (linear_before_reset = 0): z and r, kept activated in hr's z and
 * r slots, and r (.) H for the second product. */
static void gru_gates_row(const rnn_run *r, int64_t b, int64_t t)
{
    int64_t H = r->st->hidden, xo = rnn_xw_off(r, t, b, 0), ho = b * r->gh;
    for (int64_t j = 0; j < 2 * H; j++) {
        double v = rnn_actc(r, 0, rnn_ld(r, r->xw, xo + j) + rnn_ld(r, r->hr, ho + j));
        rnn_st(r, r->hr, ho + j, v);
        if (j >= H)
            rnn_st(r, r->aux, b * H + j - H, v * rnn_ld(r, r->h, b * H + j - H));
    }
}

/* Pass 2 (linear_before_reset = 0): hidden gate and new state. */
static void gru_state_row(const rnn_run *r, int64_t b, int64_t t)
{
    int64_t H = r->st->hidden, xo = rnn_xw_off(r, t, b, 2), ho = b * r->gh;
    for (int64_t j = 0; j < H; j++) {
        double z = rnn_ld(r, r->hr, ho + j);
        double hh = rnn_actc(r, 1, rnn_ld(r, r->xw, xo + j) + rnn_ld(r, r->hr, ho + 2 * H + j));
        double prev = rnn_ld(r, r->h, b * H + j);
        rnn_st(r, r->h, b * H + j, (1 - z) * hh + z * prev);
    }
}

/* linear_before_reset = 1: everything in one pass; Rbh was left out of xw. */
static void gru_linear_row(const rnn_run *r, int64_t b, int64_t t)
{
    int64_t H = r->st->hidden, xo = rnn_xw_off(r, t, b, 0), ho = b * r->gh;
    for (int64_t j = 0; j < H; j++) {
        double z = rnn_actc(r, 0, rnn_ld(r, r->xw, xo + j) + rnn_ld(r, r->hr, ho + j));
        double rr = rnn_actc(r, 0, rnn_ld(r, r->xw, xo + H + j) + rnn_ld(r, r->hr, ho + H + j));
        double rec = rnn_ld(r, r->hr, ho + 2 * H + j);
        if (r->r_bias)
            rec += rnn_ld(r, r->r_bias, 2 * H + j);
        double hh = rnn_actc(r, 1, rnn_ld(r, r->xw, xo + 2 * H + j) + rr * rec);
        double prev = rnn_ld(r, r->h, b * H + j);
        rnn_st(r, r->h, b * H + j, (1 - z) * hh + z * prev);
    }
}

static void gru_step(rnn_run *r)
{
    if (r->st->linear_before_reset) {
        rnn_recur_gemm(r, r->h, 0, 3);
        rnn_rows(r, gru_linear_row);
    } else {
        rnn_recur_gemm(r, r->h, 0, 2);
        rnn_rows(r, gru_gates_row);
        rnn_recur_gemm(r, r->aux, 2, 1);
        rnn_rows(r, gru_state_row);
    }
}

static const rnn_cell gru_cell = {
    .op = "GRU", .gates = 3, .n_acts = 2, .default_acts = {RNN_ACT_SIGMOID, RNN_ACT_TANH},
    .step = gru_step,
};

static int gru_prepare(kn_kctx *k) { return rnn_prepare(k, &gru_cell); }

#define GRU_DTYPES (KN_BIT(KN_FLOAT) | KN_BIT(KN_DOUBLE) | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16))

const kn_op_def kn_op_gru_1 = {
    .op_type = "GRU", .since_version = 1, .until_version = 13, .dtypes = GRU_DTYPES,
    .prepare = gru_prepare, .run = rnn_run_op, .release = rnn_release
};
const kn_op_def kn_op_gru_14 = {
    .op_type = "GRU", .since_version = 14, .dtypes = GRU_DTYPES, .prepare = gru_prepare,
    .run = rnn_run_op, .release = rnn_release
};
