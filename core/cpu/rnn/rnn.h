/* The recurrence driver shared by RNN, GRU and LSTM (rnn.c) and the
 * interface each cell (rnn_simple.c, rnn_gru.c, rnn_lstm.c) plugs into.
 *
 * The driver owns everything the three ops have in common: attributes
 * (direction, layout, activations, clip, hidden_size), shape checks,
 * optional inputs and outputs, sequence_lens, the input projection of all
 * timesteps in one GEMM, the per-step GEMMs against R, and writing Y, Y_h
 * and Y_c. A cell only says how many gates it has and what one step does
 * to a batch row given its gate pre-activations.
 *
 * GEMMs run in float (float, float16, bfloat16 tensors; the half types are
 * converted at the boundary) or double. The elementwise gate math is done
 * in double whatever the storage: it costs O(gates x hidden) per row next
 * to the GEMM's O(gates x hidden^2), and spares a typed copy of every cell. */
#ifndef KN_CPU_RNN_H
#define KN_CPU_RNN_H

#include <math.h>
#include <stdint.h>

#include "core/kernel/op.h"

enum {
    RNN_ACT_RELU,
    RNN_ACT_TANH,
    RNN_ACT_SIGMOID,
    RNN_ACT_AFFINE,
    RNN_ACT_LEAKYRELU,
    RNN_ACT_THRESHOLDEDRELU,
    RNN_ACT_SCALEDTANH,
    RNN_ACT_HARDSIGMOID,
    RNN_ACT_ELU,
    RNN_ACT_SOFTSIGN,
    RNN_ACT_SOFTPLUS
};

typedef struct rnn_act {
    int32_t kind;
    double alpha, beta;
} rnn_act;

/* The activation functions as the RNN ops define them (which differs in
 * places from the standalone ops: ThresholdedRelu keeps x == alpha). */
static inline double rnn_act_apply(const rnn_act *a, double x)
{
    switch (a->kind) {
    case RNN_ACT_RELU: return x > 0 ? x : 0;
    case RNN_ACT_TANH: return tanh(x);
    case RNN_ACT_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case RNN_ACT_AFFINE: return a->alpha * x + a->beta;
    case RNN_ACT_LEAKYRELU: return x >= 0 ? x : a->alpha * x;
    case RNN_ACT_THRESHOLDEDRELU: return x >= a->alpha ? x : 0;
    case RNN_ACT_SCALEDTANH: return a->alpha * tanh(a->beta * x);
    case RNN_ACT_HARDSIGMOID: {
        double v = a->alpha * x + a->beta;
        return v < 0 ? 0 : v > 1 ? 1 : v;
    }
    case RNN_ACT_ELU: return x >= 0 ? x : a->alpha * expm1(x);
    case RNN_ACT_SOFTSIGN: return x / (1.0 + fabs(x));
    default: /* RNN_ACT_SOFTPLUS, written to avoid overflow of exp */
        return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
    }
}

typedef struct rnn_run rnn_run;

/* Scratch regions (rnn.c). The C_* ones hold compute-type copies of the
 * inputs and outputs when the tensors are float16/bfloat16. */
enum {
    RNN_XW, RNN_HR, RNN_H, RNN_C, RNN_AUX, RNN_BIAS, RNN_LENS, RNN_WS,
    RNN_C_X, RNN_C_W, RNN_C_R, RNN_C_B, RNN_C_H0, RNN_C_C0, RNN_C_P,
    RNN_C_Y, RNN_C_YH, RNN_C_YC,
    RNN_REGIONS
};

/* What distinguishes RNN, GRU and LSTM. */
typedef struct rnn_cell {
    const char *op;
    int32_t gates;            /* blocks of hidden_size rows in W and R: 1, 3, 4 */
    int32_t n_acts;           /* activations per direction: 1, 2, 3 */
    int32_t default_acts[3];
    int32_t has_cell_state;   /* LSTM: initial_c (input 6), P (input 7), Y_c */
    /* Called once per timestep: runs the recurrent GEMM(s) through
     * rnn_recur_gemm and the row updates through rnn_rows. */
    void (*step)(rnn_run *r);
} rnn_cell;

/* Settings read once in prepare(). */
typedef struct rnn_state {
    const rnn_cell *cell;
    int32_t dtype;            /* storage dtype of X, W, R, ... */
    int32_t ctype;            /* KN_FLOAT or KN_DOUBLE: what the GEMMs run in */
    int64_t seq, batch, input, hidden, dirs;
    int32_t layout;           /* 0: [seq, batch, .]; 1: [batch, seq, .] */
    int32_t reverse_only;     /* direction == "reverse" */
    double clip;              /* INFINITY when absent */
    int32_t linear_before_reset; /* GRU */
    int32_t input_forget;     /* LSTM */
    rnn_act acts[2][3];       /* [direction][f, g, h] */
    size_t scratch_off[RNN_REGIONS]; /* byte offsets of the scratch regions */
    size_t ws_bytes;          /* GEMM workspace */
} rnn_state;

/* One direction's view of a run, handed to the cell's step(). Buffers are
 * in the compute type (st->ctype). */
struct rnn_run {
    const rnn_state *st;
    kn_threadpool *pool;
    int32_t dir;              /* 0 or 1: which weights */
    int32_t reverse;          /* walk each sequence from its end */
    int64_t step;             /* current step, 0 .. */
    int64_t gh;               /* gates * hidden: row length of xw and hr */
    const rnn_act *act;       /* this direction's activations */
    void *xw;                 /* X W^T + biases, one row per (t, b) in X's row order */
    void *hr;                 /* [batch, gh]: this step's recurrent products */
    void *h, *c;              /* [batch, hidden]: hidden and cell state */
    void *aux;                /* [batch, hidden]: GRU's r (.) H_t-1 */
    const void *r_w;          /* R of this direction: [gh, hidden] */
    const void *r_bias;       /* Rb of this direction ([gh]) or NULL */
    const void *peep;         /* P of this direction ([3 * hidden]) or NULL */
    const int64_t *lens;      /* [batch] sequence lengths */
    void *ws;                 /* GEMM workspace */
};

/* Elements of compute-type buffers, read and written as double. */
static inline double rnn_ld(const rnn_run *r, const void *p, int64_t i)
{
    return r->st->ctype == KN_DOUBLE ? ((const double *)p)[i] : (double)((const float *)p)[i];
}
static inline void rnn_st(const rnn_run *r, void *p, int64_t i, double v)
{
    if (r->st->ctype == KN_DOUBLE)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}
/* Activation k (0 = f, 1 = g, 2 = h) of clip(x). */
static inline double rnn_actc(const rnn_run *r, int32_t k, double x)
{
    double c = r->st->clip;
    x = x < -c ? -c : x > c ? c : x;
    return rnn_act_apply(&r->act[k], x);
}
/* Time index batch row b handles at the current step. */
static inline int64_t rnn_time(const rnn_run *r, int64_t b)
{
    return r->reverse ? r->lens[b] - 1 - r->step : r->step;
}
/* Element offset of gate g, unit 0 in the xw row of (t, b). */
static inline int64_t rnn_xw_off(const rnn_run *r, int64_t t, int64_t b, int32_t g)
{
    int64_t row = r->st->layout ? b * r->st->seq + t : t * r->st->batch + b;
    return row * r->gh + g * r->st->hidden;
}

/* hr[:, g0*H .. (g0+ng)*H) = a[batch, hidden] x R[g0*H .. (g0+ng)*H)^T. */
void rnn_recur_gemm(rnn_run *r, const void *a, int32_t g0, int32_t ng);
/* Calls fn(r, b, t) for every batch row still inside its sequence, rows in
 * parallel when the work is large enough. */
typedef void (*rnn_row_fn)(const rnn_run *r, int64_t b, int64_t t);
void rnn_rows(rnn_run *r, rnn_row_fn fn);

/* The driver's prepare/run, parameterised by the cell. */
int rnn_prepare(kn_kctx *k, const rnn_cell *cell);
int rnn_run_op(kn_kctx *k);
void rnn_release(kn_kctx *k);

#endif
