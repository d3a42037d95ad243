/* The recurrence driver for RNN, GRU and LSTM (see rnn.h).
 *
 * Per direction, a run is:
 *   1. xw = X W^T + biases for every timestep at once: one GEMM of
 *      (seq * batch) rows, in X's own row order, so layout 1 needs no
 *      transpose;
 *   2. for each step, the cell's recurrent GEMM(s) of the state against R
 *      and its row updates; rows past their sequence_lens are left alone;
 *   3. the state after each step goes to Y, the last one to Y_h / Y_c.
 * With sequence_lens, a reverse direction starts each sequence at its own
 * last valid step, and Y is zero past a sequence's end. */
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/simd/gemm.h"
#include "core/cpu/rnn/rnn.h"
#include "core/kernel/tensor_common.h"

enum { IN_X, IN_W, IN_R, IN_B, IN_LENS, IN_H0, IN_C0, IN_P };

/* ---- activations ------------------------------------------------------ */

typedef struct act_info {
    const char *name;
    int32_t kind;
    int32_t n_alpha, n_beta; /* parameters it takes from activation_alpha/beta */
    double alpha, beta;      /* defaults */
} act_info;

static const act_info act_table[] = {
    {"Relu", RNN_ACT_RELU, 0, 0, 0, 0},
    {"Tanh", RNN_ACT_TANH, 0, 0, 0, 0},
    {"Sigmoid", RNN_ACT_SIGMOID, 0, 0, 0, 0},
    {"Affine", RNN_ACT_AFFINE, 1, 1, 1.0, 0.0},
    {"LeakyRelu", RNN_ACT_LEAKYRELU, 1, 0, 0.01, 0},
    {"ThresholdedRelu", RNN_ACT_THRESHOLDEDRELU, 1, 0, 1.0, 0},
    {"ScaledTanh", RNN_ACT_SCALEDTANH, 1, 1, 1.0, 1.0},
    {"HardSigmoid", RNN_ACT_HARDSIGMOID, 1, 1, 0.2, 0.5},
    {"Elu", RNN_ACT_ELU, 1, 0, 1.0, 0},
    {"Softsign", RNN_ACT_SOFTSIGN, 0, 0, 0, 0},
    {"Softplus", RNN_ACT_SOFTPLUS, 0, 0, 0, 0},
};

/* Exporters disagree on capitalisation ("tanh", "Tanh"); names are ASCII. */
static int same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char ca = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a;
        char cb = *b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b;
        if (ca != cb)
            return 0;
    }
    return *a == *b;
}

static const act_info *find_act(int32_t kind)
{
    for (size_t i = 0; i < sizeof act_table / sizeof act_table[0]; i++)
        if (act_table[i].kind == kind)
            return &act_table[i];
    return &act_table[0];
}

/* Reads activations / activation_alpha / activation_beta into st->acts.
 * The alpha and beta lists are consumed in order by the functions that
 * take such a parameter (as ONNX Runtime reads them); a function whose
 * value is not in the list gets its default. */
static int read_activations(kn_kctx *k, rnn_state *st)
{
    const rnn_cell *cell = st->cell;
    int32_t n = cell->n_acts, total = n * (int32_t)st->dirs;
    const kn_attr *names = kn_node_attr(k->node, "activations");
    int32_t n_names = names ? names->count : 0;
    if (names && (names->type != KN_ATTR_STRINGS || (n_names != total && n_names != n)))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "%s: 'activations' must list %d function names, got %d", cell->op, total,
                       (int)n_names);
    int32_t n_alpha = 0, n_beta = 0;
    const float *alphas = kn_attr_floats(k->node, "activation_alpha", &n_alpha);
    const float *betas = kn_attr_floats(k->node, "activation_beta", &n_beta);
    /* one set of functions (named or default) serves both directions,
     * parameters included */
    int32_t count = names && n_names == total ? total : n, ia = 0, ib = 0;
    for (int32_t i = 0; i < count; i++) {
        const act_info *info = NULL;
        if (names) {
            const char *name = names->strings[i];
            for (size_t j = 0; j < sizeof act_table / sizeof act_table[0] && !info; j++)
                if (name && same_name(name, act_table[j].name))
                    info = &act_table[j];
            if (!info)
                return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: unknown activation '%s'", cell->op,
                               name ? name : "");
        } else {
            info = find_act(cell->default_acts[i % n]);
        }
        rnn_act *a = &st->acts[i / n][i % n];
        a->kind = info->kind;
        a->alpha = info->n_alpha && ia < n_alpha ? alphas[ia++] : info->alpha;
        a->beta = info->n_beta && ib < n_beta ? betas[ib++] : info->beta;
    }
    if (count == n)
        memcpy(st->acts[1], st->acts[0], sizeof st->acts[0]);
    return KN_OK;
}

/* ---- prepare ----------------------------------------------------------- */

static int is_float_type(int32_t dt)
{
    return dt == KN_FLOAT || dt == KN_DOUBLE || dt == KN_FLOAT16 || dt == KN_BFLOAT16;
}

/* Fails unless optional input idx (when present) has these dims. */
static int check_dims(kn_kctx *k, int32_t idx, const char *name, int32_t rank, const int64_t *dims)
{
    const kn_tensor *t = kn_input(k, idx);
    if (!t)
        return KN_OK;
    if (t->dtype != k->in[0]->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: %s is %s but X is %s", k->node->op_type, name,
                       kn_dtype_name(t->dtype), kn_dtype_name(k->in[0]->dtype));
    if (!kn_shape_equal(t->dims, t->rank, dims, rank)) {
        char got[128], want[128];
        kn_shape_format(t->dims, t->rank, got, sizeof got);
        kn_shape_format(dims, rank, want, sizeof want);
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: %s has shape %s, expected %s", k->node->op_type,
                       name, got, want);
    }
    return KN_OK;
}

static void set_out(kn_kctx *k, int32_t idx, int32_t dtype, int32_t rank, const int64_t *dims)
{
    kn_tensor *t = kn_output(k, idx);
    if (!t)
        return;
    t->dtype = dtype;
    t->rank = rank;
    memcpy(t->dims, dims, sizeof(int64_t) * (size_t)rank);
}

/* Lays out the scratch regions; sizes in elements of esz bytes. */
static int plan_scratch(kn_kctx *k, rnn_state *st, const int64_t *elems, size_t esz)
{
    size_t total = 0;
    for (int32_t i = 0; i < RNN_REGIONS; i++) {
        size_t bytes;
        if (i == RNN_WS)
            bytes = st->ws_bytes;
        else if (i == RNN_LENS)
            bytes = (size_t)elems[i] * sizeof(int64_t);
        else if (elems[i] < 0 || (uint64_t)elems[i] > SIZE_MAX / 2 / esz)
            return kn_fail(k->err, KN_ERR_SHAPE, "%s: tensors too large", st->cell->op);
        else
            bytes = (size_t)elems[i] * esz;
        st->scratch_off[i] = total;
        total += kn_align_up(bytes, 64);
        if (total > SIZE_MAX / 2)
            return kn_fail(k->err, KN_ERR_SHAPE, "%s: tensors too large", st->cell->op);
    }
    k->scratch_bytes = total;
    return KN_OK;
}

void rnn_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

static int prepare_state(kn_kctx *k, rnn_state *st)
{
    const rnn_cell *cell = st->cell;
    const char *op = cell->op;
    const kn_tensor *x = kn_input(k, IN_X), *w = kn_input(k, IN_W), *r = kn_input(k, IN_R);
    if (!x || !w || !r)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: inputs X, W and R are required", op);
    if (!is_float_type(x->dtype))
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: input type %s is not supported", op,
                       kn_dtype_name(x->dtype));
    if (x->rank != 3 || w->rank != 3 || r->rank != 3)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: X, W and R must have rank 3 (got %d, %d, %d)",
                       op, (int)x->rank, (int)w->rank, (int)r->rank);
    st->dtype = x->dtype;
    st->ctype = x->dtype == KN_DOUBLE ? KN_DOUBLE : KN_FLOAT;

    const char *dir = kn_attr_string(k->node, "direction", "forward");
    if (strcmp(dir, "forward") == 0 || strcmp(dir, "reverse") == 0)
        st->dirs = 1;
    else if (strcmp(dir, "bidirectional") == 0)
        st->dirs = 2;
    else
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "%s: direction '%s' is not forward, reverse or bidirectional", op, dir);
    st->reverse_only = strcmp(dir, "reverse") == 0;
    int64_t layout = k->opset >= 14 ? kn_attr_int(k->node, "layout", 0) : 0;
    if (layout != 0 && layout != 1)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: layout %lld is not 0 or 1", op,
                       (long long)layout);
    st->layout = (int32_t)layout;
    st->seq = x->dims[layout ? 1 : 0];
    st->batch = x->dims[layout ? 0 : 1];
    st->input = x->dims[2];
    st->hidden = kn_attr_int(k->node, "hidden_size", r->dims[2]);
    if (st->hidden < 1 || st->hidden > (int64_t)1 << 30)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: hidden_size %lld is not valid", op,
                       (long long)st->hidden);
    int64_t T = st->seq, B = st->batch, H = st->hidden, D = st->dirs, G = cell->gates;

    int64_t wd[3] = {D, G * H, st->input}, rd[3] = {D, G * H, H}, bd[2] = {D, 2 * G * H};
    int64_t hd[3] = {layout ? B : D, layout ? D : B, H}, pd[2] = {D, 3 * H};
    int rc = check_dims(k, IN_W, "W", 3, wd);
    if (rc == KN_OK)
        rc = check_dims(k, IN_R, "R", 3, rd);
    if (rc == KN_OK)
        rc = check_dims(k, IN_B, "B", 2, bd);
    if (rc == KN_OK)
        rc = check_dims(k, IN_H0, "initial_h", 3, hd);
    if (rc == KN_OK && cell->has_cell_state)
        rc = check_dims(k, IN_C0, "initial_c", 3, hd);
    if (rc == KN_OK && cell->has_cell_state)
        rc = check_dims(k, IN_P, "P", 2, pd);
    if (rc != KN_OK)
        return rc;
    const kn_tensor *lens = kn_input(k, IN_LENS);
    if (lens && (lens->rank != 1 || lens->dims[0] != B ||
                 (lens->dtype != KN_INT32 && lens->dtype != KN_INT64)))
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "%s: sequence_lens must be a 1-D int32 tensor of batch size %lld", op,
                       (long long)B);
    if (!cell->has_cell_state && (kn_input(k, IN_C0) || kn_input(k, IN_P)))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: takes at most 6 inputs", op);

    rc = read_activations(k, st);
    if (rc != KN_OK)
        return rc;
    st->clip = INFINITY;
    if (kn_node_attr(k->node, "clip")) {
        st->clip = kn_attr_float(k->node, "clip", 0);
        if (!(st->clip > 0))
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: clip %g must be positive", op,
                           st->clip);
    }
    st->linear_before_reset = G == 3 && kn_attr_int(k->node, "linear_before_reset", 0) != 0;
    st->input_forget = cell->has_cell_state && kn_attr_int(k->node, "input_forget", 0) != 0;

    int64_t yd[4] = {T, D, B, H};
    if (layout) {
        yd[0] = B;
        yd[1] = T;
        yd[2] = D;
    }
    set_out(k, 0, x->dtype, 4, yd);
    set_out(k, 1, x->dtype, 3, hd);
    if (cell->has_cell_state)
        set_out(k, 2, x->dtype, 3, hd);
    else if (kn_output(k, 2))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: has at most 2 outputs", op);
    for (int32_t i = 0; i < 3; i++) {
        kn_tensor *o = kn_output(k, i);
        if (o && kn_tensor_numel(o) < 0)
            return kn_fail(k->err, KN_ERR_SHAPE, "%s: output %d is too large", op, (int)i);
    }

    int32_t threads = kn_threadpool_threads(k->threads);
    size_t ws1 = kn_gemm_workspace_size(st->ctype, T * B, G * H, st->input, threads);
    size_t ws2 = kn_gemm_workspace_size(st->ctype, B, G * H, H, threads);
    st->ws_bytes = ws1 > ws2 ? ws1 : ws2;
    int half = st->ctype != st->dtype;
    int64_t e[RNN_REGIONS] = {0};
    e[RNN_XW] = kn_shape_numel((int64_t[]){T, B, G, H}, 4);
    e[RNN_HR] = B * G * H;
    e[RNN_H] = e[RNN_C] = e[RNN_AUX] = B * H;
    e[RNN_BIAS] = G * H;
    e[RNN_LENS] = B;
    if (half) {
        e[RNN_C_X] = kn_tensor_numel(x);
        e[RNN_C_W] = kn_tensor_numel(w);
        e[RNN_C_R] = kn_tensor_numel(r);
        e[RNN_C_B] = 2 * D * G * H;
        e[RNN_C_H0] = e[RNN_C_C0] = e[RNN_C_YH] = e[RNN_C_YC] = D * B * H;
        e[RNN_C_P] = 3 * D * H;
        e[RNN_C_Y] = kn_shape_numel(yd, 4);
    }
    return plan_scratch(k, st, e, kn_dtype_size(st->ctype));
}

int rnn_prepare(kn_kctx *k, const rnn_cell *cell)
{
    rnn_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", cell->op);
    st->cell = cell;
    k->state = st;
    int rc = prepare_state(k, st);
    if (rc != KN_OK)
        rnn_release(k);
    return rc;
}

/* ---- run --------------------------------------------------------------- */

void rnn_recur_gemm(rnn_run *r, const void *a, int32_t g0, int32_t ng)
{
    const rnn_state *st = r->st;
    size_t esz = kn_dtype_size(st->ctype);
    int64_t H = st->hidden;
    kn_gemm_args g = {
        .trans_b = 1, .m = st->batch, .n = ng * H, .k = H, .alpha = 1, .beta = 0,
        .a = a, .lda = H,
        .b = (const char *)r->r_w + (size_t)(g0 * H * H) * esz, .ldb = H,
        .c = (char *)r->hr + (size_t)(g0 * H) * esz, .ldc = r->gh,
    };
    kn_gemm(st->ctype, r->pool, &g, r->ws, st->ws_bytes);
}

typedef struct rows_job {
    const rnn_run *r;
    rnn_row_fn fn;
} rows_job;

static void rows_task(void *ctx, int64_t begin, int64_t end)
{
    const rows_job *j = ctx;
    for (int64_t b = begin; b < end; b++)
        if (j->r->step < j->r->lens[b])
            j->fn(j->r, b, rnn_time(j->r, b));
}

void rnn_rows(rnn_run *r, rnn_row_fn fn)
{
    rows_job j = {r, fn};
    /* Each row costs some tens of operations per gate unit. */
    int64_t grain = 8192 / (r->gh > 0 ? r->gh : 1);
    kn_parallel_for(r->pool, r->st->batch, grain > 1 ? grain : 1, rows_task, &j);
}

/* Input idx in the compute type: the tensor itself, or its converted copy
 * in scratch region reg; NULL when omitted. */
static const void *compute_input(kn_kctx *k, int32_t idx, int32_t reg)
{
    const rnn_state *st = k->state;
    const kn_tensor *t = kn_input(k, idx);
    if (!t)
        return NULL;
    if (st->dtype == st->ctype)
        return t->data;
    void *dst = (char *)k->scratch + st->scratch_off[reg];
    kn_convert(t->dtype, t->data, st->ctype, dst, kn_tensor_numel(t));
    return dst;
}

static void *compute_output(kn_kctx *k, int32_t idx, int32_t reg)
{
    const rnn_state *st = k->state;
    kn_tensor *t = kn_output(k, idx);
    if (!t)
        return NULL;
    return st->dtype == st->ctype ? t->data : (char *)k->scratch + st->scratch_off[reg];
}

/* Element offset of (b, direction d) in initial_h / Y_h-shaped tensors. */
static int64_t state_off(const rnn_state *st, int64_t d, int64_t b)
{
    return (st->layout ? b * st->dirs + d : d * st->batch + b) * st->hidden;
}

typedef struct run_bufs {
    const char *x, *w, *r, *b, *h0, *c0, *p;
    char *y, *yh, *yc;
    int64_t max_len;
} run_bufs;

static void run_direction(kn_kctx *k, rnn_run *r, const run_bufs *io)
{
    const rnn_state *st = r->st;
    char *s = k->scratch;
    size_t esz = kn_dtype_size(st->ctype), row = (size_t)st->hidden * esz;
    int64_t T = st->seq, B = st->batch, H = st->hidden, D = st->dirs, gh = r->gh, d = r->dir;

    /* Biases folded into xw: Wb + Rb, except the part of Rb a GRU with
     * linear_before_reset applies inside the reset gate's product. */
    char *bias = s + st->scratch_off[RNN_BIAS];
    r->r_bias = NULL;
    if (io->b) {
        const char *wb = io->b + (size_t)(d * 2 * gh) * esz, *rb = wb + (size_t)gh * esz;
        int64_t split = st->linear_before_reset ? 2 * H : gh;
        for (int64_t i = 0; i < gh; i++)
            rnn_st(r, bias, i, rnn_ld(r, wb, i) + (i < split ? rnn_ld(r, rb, i) : 0));
        r->r_bias = rb;
    } else {
        memset(bias, 0, (size_t)gh * esz);
    }
    for (int64_t i = 0; i < T * B; i++)
        memcpy((char *)r->xw + (size_t)(i * gh) * esz, bias, (size_t)gh * esz);
    if (T * B > 0) {
        kn_gemm_args g = {
            .trans_b = 1, .m = T * B, .n = gh, .k = st->input, .alpha = 1, .beta = 1,
            .a = io->x, .lda = st->input,
            .b = io->w + (size_t)(d * gh * st->input) * esz, .ldb = st->input,
            .c = r->xw, .ldc = gh,
        };
        kn_gemm(st->ctype, k->threads, &g, r->ws, st->ws_bytes);
    }

    r->r_w = io->r + (size_t)(d * gh * H) * esz;
    r->peep = io->p ? io->p + (size_t)(d * 3 * H) * esz : NULL;
    for (int64_t b = 0; b < B; b++) {
        char *h = (char *)r->h + (size_t)b * row, *c = (char *)r->c + (size_t)b * row;
        if (io->h0)
            memcpy(h, io->h0 + (size_t)state_off(st, d, b) * esz, row);
        else
            memset(h, 0, row);
        if (io->c0)
            memcpy(c, io->c0 + (size_t)state_off(st, d, b) * esz, row);
        else
            memset(c, 0, row);
    }
    memset(r->aux, 0, (size_t)B * row);

    for (r->step = 0; r->step < io->max_len; r->step++) {
        st->cell->step(r);
        if (!io->y)
            continue;
        for (int64_t b = 0; b < B; b++) {
            if (r->step >= r->lens[b])
                continue;
            int64_t t = rnn_time(r, b);
            int64_t off = st->layout ? ((b * T + t) * D + d) * H : ((t * D + d) * B + b) * H;
            memcpy(io->y + (size_t)off * esz, (char *)r->h + (size_t)b * row, row);
        }
    }
    for (int64_t b = 0; b < B; b++) {
        if (io->yh)
            memcpy(io->yh + (size_t)state_off(st, d, b) * esz, (char *)r->h + (size_t)b * row, row);
        if (io->yc)
            memcpy(io->yc + (size_t)state_off(st, d, b) * esz, (char *)r->c + (size_t)b * row, row);
    }
}

int rnn_run_op(kn_kctx *k)
{
    const rnn_state *st = k->state;
    char *s = k->scratch;
    int64_t T = st->seq, B = st->batch;
    int64_t *lens = (int64_t *)(void *)(s + st->scratch_off[RNN_LENS]);
    const kn_tensor *lt = kn_input(k, IN_LENS);
    run_bufs io = {0};
    for (int64_t b = 0; b < B; b++) {
        lens[b] = lt ? kn_read_int(lt, b) : T;
        if (lens[b] < 0 || lens[b] > T)
            return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT,
                           "%s: sequence_lens[%lld] = %lld is outside [0, %lld]", st->cell->op,
                           (long long)b, (long long)lens[b], (long long)T);
        io.max_len = lens[b] > io.max_len ? lens[b] : io.max_len;
    }
    io.x = compute_input(k, IN_X, RNN_C_X);
    io.w = compute_input(k, IN_W, RNN_C_W);
    io.r = compute_input(k, IN_R, RNN_C_R);
    io.b = compute_input(k, IN_B, RNN_C_B);
    io.h0 = compute_input(k, IN_H0, RNN_C_H0);
    if (st->cell->has_cell_state) {
        io.c0 = compute_input(k, IN_C0, RNN_C_C0);
        io.p = compute_input(k, IN_P, RNN_C_P);
        io.yc = compute_output(k, 2, RNN_C_YC);
    }
    io.y = compute_output(k, 0, RNN_C_Y);
    io.yh = compute_output(k, 1, RNN_C_YH);
    size_t esz = kn_dtype_size(st->ctype);
    int64_t y_numel = io.y ? kn_tensor_numel(k->out[0]) : 0;
    /* Y is zero past the end of a shorter sequence. */
    for (int64_t b = 0; io.y && b < B; b++)
        if (lens[b] < T) {
            memset(io.y, 0, (size_t)y_numel * esz);
            break;
        }

    for (int32_t d = 0; d < st->dirs; d++) {
        rnn_run r = {
            .st = st, .pool = k->threads, .dir = d, .reverse = st->reverse_only || d == 1,
            .gh = st->cell->gates * st->hidden, .act = st->acts[d],
            .xw = s + st->scratch_off[RNN_XW], .hr = s + st->scratch_off[RNN_HR],
            .h = s + st->scratch_off[RNN_H], .c = s + st->scratch_off[RNN_C],
            .aux = s + st->scratch_off[RNN_AUX], .lens = lens, .ws = s + st->scratch_off[RNN_WS],
        };
        run_direction(k, &r, &io);
    }

    if (st->dtype != st->ctype) {
        char *outs[3] = {io.y, io.yh, io.yc};
        for (int32_t i = 0; i < 3; i++)
            if (outs[i])
                kn_convert(st->ctype, outs[i], st->dtype, k->out[i]->data,
                           kn_tensor_numel(k->out[i]));
    }
    return KN_OK;
}
