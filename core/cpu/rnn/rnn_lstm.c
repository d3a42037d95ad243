/* LSTM (opsets 1-13, and 14+ with layout). Gates i, o, f, c in that order
 * in W, R and B; peepholes P in the order i, o, f:
 *     i = f(X Wi^T + H Ri^T + Pi (.) C + Wbi + Rbi)
 *     f = f(X Wf^T + H Rf^T + Pf (.) C + Wbf + Rbf)     (1 - i with input_forget)
 *     c = g(X Wc^T + H Rc^T + Wbc + Rbc)
 *     C' = f (.) C + i (.) c
 *     o = f(X Wo^T + H Ro^T + Po (.) C' + Wbo + Rbo)
 *     H' = o (.) h(C')
 * clip bounds the gate pre-activations (the inputs of f and g); the cell
 * state itself is not clipped, as in ONNX Runtime. */
#include "core/cpu/rnn/rnn.h"

static void lstm_row(const rnn_run *r, int64_t b, int64_t t)
{
    int64_t H = r->st->hidden, xo = rnn_xw_off(r, t, b, 0), ho = b * r->gh;
    for (int64_t j = 0; j < H; j++) {
        double pre[4];
        for (int32_t g = 0; g < 4; g++)
            pre[g] = rnn_ld(r, r->xw, xo + g * H + j) + rnn_ld(r, r->hr, ho + g * H + j);
        double c = rnn_ld(r, r->c, b * H + j), pi = 0, po = 0, pf = 0;
        if (r->peep) {
            pi = rnn_ld(r, r->peep, j);
            po = rnn_ld(r, r->peep, H + j);
            pf = rnn_ld(r, r->peep, 2 * H + j);
        }
        double ig = rnn_actc(r, 0, pre[0] + pi * c);
        double fg = r->st->input_forget ? 1 - ig : rnn_actc(r, 0, pre[2] + pf * c);
        double cg = rnn_actc(r, 1, pre[3]);
        c = fg * c + ig * cg;
        double og = rnn_actc(r, 0, pre[1] + po * c);
        rnn_st(r, r->c, b * H + j, c);
        rnn_st(r, r->h, b * H + j, og * rnn_act_apply(&r->act[2], c));
    }
}

static void lstm_step(rnn_run *r)
{
    rnn_recur_gemm(r, r->h, 0, 4);
    rnn_rows(r, lstm_row);
}

static const rnn_cell lstm_cell = {
    .op = "LSTM", .gates = 4, .n_acts = 3,
    .default_acts = {RNN_ACT_SIGMOID, RNN_ACT_TANH, RNN_ACT_TANH},
    .has_cell_state = 1, .step = lstm_step,
};

static int lstm_prepare(kn_kctx *k) { return rnn_prepare(k, &lstm_cell); }

#define LSTM_DTYPES (KN_BIT(KN_FLOAT) | KN_BIT(KN_DOUBLE) | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16))

const kn_op_def kn_op_lstm_1 = {
    .op_type = "LSTM", .since_version = 1, .until_version = 13, .dtypes = LSTM_DTYPES,
    .prepare = lstm_prepare, .run = rnn_run_op, .release = rnn_release
};
const kn_op_def kn_op_lstm_14 = {
    .op_type = "LSTM", .since_version = 14, .dtypes = LSTM_DTYPES, .prepare = lstm_prepare,
    .run = rnn_run_op, .release = rnn_release
};
