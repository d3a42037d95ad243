/* RNN (opsets 1-13, and 14+ with layout): the plain recurrent cell
 *     H_t = f(X_t W^T + H_t-1 R^T + Wb + Rb),  f = Tanh by default.
 * Everything but the row update is the shared driver in rnn.c. */
#include "core/cpu/rnn/rnn.h"

static void rnn_row(const rnn_run *r, int64_t b, int64_t t)
{
    int64_t H = r->st->hidden, xo = rnn_xw_off(r, t, b, 0), ho = b * r->gh;
    for (int64_t j = 0; j < H; j++) {
        double v = rnn_ld(r, r->xw, xo + j) + rnn_ld(r, r->hr, ho + j);
        rnn_st(r, r->h, b * H + j, rnn_actc(r, 0, v));
    }
}

static void rnn_step(rnn_run *r)
{
    rnn_recur_gemm(r, r->h, 0, 1);
    rnn_rows(r, rnn_row);
}

static const rnn_cell rnn_simple_cell = {
    .op = "RNN", .gates = 1, .n_acts = 1, .default_acts = {RNN_ACT_TANH}, .step = rnn_step,
};

static int rnn_simple_prepare(kn_kctx *k) { return rnn_prepare(k, &rnn_simple_cell); }

#define RNN_DTYPES (KN_BIT(KN_FLOAT) | KN_BIT(KN_DOUBLE) | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16))

const kn_op_def kn_op_rnn_1 = {
    .op_type = "RNN", .since_version = 1, .until_version = 13, .dtypes = RNN_DTYPES,
    .prepare = rnn_simple_prepare, .run = rnn_run_op, .release = rnn_release
};
const kn_op_def kn_op_rnn_14 = {
    .op_type = "RNN", .since_version = 14, .dtypes = RNN_DTYPES, .prepare = rnn_simple_prepare,
    .run = rnn_run_op, .release = rnn_release
};
