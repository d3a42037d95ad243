/* If and Loop. Their output shapes depend on values (which branch, how
 * many iterations), so prepare() runs the body once the inputs are known —
 * the runtime's eager mode guarantees that — keeps the results, and run()
 * copies them out. Sequence and optional values are self-contained blobs
 * (core/ir/value_blob.h), so branch outputs and loop-carried values of those
 * kinds are copied like any tensor; only scan outputs must be tensors. */
#include <stdlib.h>
#include <string.h>

#include "core/cpu/control/control_util.h"

typedef struct cf_state {
    int32_t n;
    kn_owned *outs;
} cf_state;

static cf_state *state_new(kn_kctx *k, int32_t n)
{
    cf_state *s = calloc(1, sizeof *s);
    if (s)
        s->outs = calloc(n ? (size_t)n : 1, sizeof *s->outs);
    if (!s || !s->outs) {
        free(s);
        kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
        return NULL;
    }
    s->n = n;
    k->state = s;
    return s;
}

static void cf_release(kn_kctx *k)
{
    cf_state *s = k->state;
    if (!s)
        return;
    for (int32_t i = 0; i < s->n; i++)
        kn_owned_free(&s->outs[i]);
    free(s->outs);
    free(s);
    k->state = NULL;
}

/* Publishes the kept results as the node's output shapes. */
static void set_output_shapes(kn_kctx *k, const cf_state *s)
{
    for (int32_t i = 0; i < k->n_out && i < s->n; i++) {
        if (!k->out[i])
            continue;
        void *data = k->out[i]->data;
        *k->out[i] = s->outs[i].t;
        k->out[i]->data = data;
    }
}

static int cf_run(kn_kctx *k)
{
    const cf_state *s = k->state;
    int rc = KN_OK;
    for (int32_t i = 0; rc == KN_OK && i < k->n_out && i < s->n; i++)
        if (k->out[i])
            rc = kn_copy_result(k, k->out[i], &s->outs[i].t);
    return rc;
}

static int needs(const kn_kctx *k, int32_t i, const char *what)
{
    if (i < k->n_in && k->in[i] && !k->in[i]->data)
        return kn_fail(k->err, KN_ERR_NEEDS_VALUE, "%s: needs the value of input '%s'",
                       k->node->op_type, what);
    return KN_OK;
}

static int if_prepare(kn_kctx *k)
{
    int rc = needs(k, 0, "cond");
    if (rc != KN_OK)
        return rc;
    if (kn_tensor_numel(k->in[0]) < 1)
        return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT, "If: cond is empty");
    int cond = kn_read_int(k->in[0], 0) != 0;
    const kn_graph *g = kn_graph_attr(k, cond ? "then_branch" : "else_branch");
    if (!g)
        return KN_ERR_INVALID_MODEL;
    if (g->n_outputs != k->n_out)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "If: branch has %d outputs, node has %d",
                       (int)g->n_outputs, (int)k->n_out);
    kn_subgraph_result *r = NULL;
    rc = kn_run_body(k, g, NULL, 0, &r);
    if (rc != KN_OK)
        return rc;
    cf_state *s = state_new(k, k->n_out);
    for (int32_t i = 0; s && rc == KN_OK && i < k->n_out; i++)
        rc = kn_owned_set(&s->outs[i], k->engine_api->result_output(r, i), k->err);
    k->engine_api->free_result(r);
    if (!s)
        return KN_ERR_OUT_OF_MEMORY;
    if (rc == KN_OK)
        set_output_shapes(k, s);
    return rc;
}

/* Loop's scan outputs grow by one slice per iteration. */
typedef struct scan_acc {
    kn_tensor slice;  /* shape/dtype of one slice (from the first iteration) */
    unsigned char *bytes;
    int64_t count, cap, slice_bytes;
} scan_acc;

static int acc_push(const kn_kctx *k, scan_acc *a, const kn_tensor *t)
{
    if (!t)
        return kn_fail(k->err, KN_ERR_INTERNAL, "Loop: a scan output is missing");
    /* Sequences and optionals travel as one blob (core/ir/value_blob.h):
     * fine as loop-carried values, but never stacked into a scan output. */
    if (t->dtype == KN_SEQUENCE || t->dtype == KN_OPTIONAL)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "Loop: a scan output is a %s; scan outputs must be tensors",
                       kn_dtype_name(t->dtype));
    if (a->count == 0 && !a->bytes) {
        a->slice = *t;
        a->slice_bytes = kn_tensor_nbytes(t);
    } else if (t->dtype != a->slice.dtype ||
               !kn_shape_equal(t->dims, t->rank, a->slice.dims, a->slice.rank)) {
        return kn_fail(k->err, KN_ERR_SHAPE, "Loop: scan output changes shape between iterations");
    }
    if (a->slice.rank >= KN_MAX_RANK)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Loop: scan output rank too high");
    if (a->count == a->cap) {
        int64_t cap = a->cap ? a->cap * 2 : 16;
        unsigned char *grown = realloc(a->bytes, (size_t)(cap * a->slice_bytes + 1));
        if (!grown)
            return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Loop: out of memory");
        a->bytes = grown;
        a->cap = cap;
    }
    if (a->slice_bytes)
        memcpy(a->bytes + a->count * a->slice_bytes, t->data, (size_t)a->slice_bytes);
    a->count++;
    return KN_OK;
}

/* Moves a finished accumulator into an owned output [count, slice...]. */
static void acc_finish(scan_acc *a, const kn_value *declared, kn_owned *out)
{
    kn_tensor t = a->slice;
    if (!a->bytes) { /* zero iterations: element type and slice shape from the body */
        t.dtype = declared->dtype && declared->kind == KN_KIND_TENSOR ? declared->dtype : KN_FLOAT;
        t.rank = declared->rank > 0 ? declared->rank : 0;
        for (int32_t d = 0; d < t.rank; d++)
            t.dims[d] = declared->dims[d] > 0 ? declared->dims[d] : 0;
    }
    memmove(t.dims + 1, t.dims, sizeof(int64_t) * (size_t)t.rank);
    t.dims[0] = a->count;
    t.rank++;
    t.data = a->bytes ? a->bytes : malloc(1);
    out->t = t;
    a->bytes = NULL;
}

typedef struct loop_run {
    kn_kctx *k;
    const kn_graph *body;
    int32_t n_carried, n_scan;
    kn_owned *carried;
    scan_acc *scans;
} loop_run;

static int loop_iterate(loop_run *L, int64_t max_trip, int cond)
{
    kn_kctx *k = L->k;
    const kn_tensor **args = calloc((size_t)L->n_carried + 2, sizeof *args);
    if (!args)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Loop: out of memory");
    int64_t iter = 0;
    unsigned char cond_byte = 0;
    kn_tensor iter_t = {.dtype = KN_INT64, .rank = 0, .data = &iter};
    kn_tensor cond_t = {.dtype = KN_BOOL, .rank = 0, .data = &cond_byte};
    int rc = KN_OK;
    for (; rc == KN_OK && iter < max_trip && cond; iter++) {
        cond_byte = 1;
        args[0] = &iter_t;
        args[1] = &cond_t;
        for (int32_t i = 0; i < L->n_carried; i++)
            args[2 + i] = &L->carried[i].t;
        kn_subgraph_result *r = NULL;
        rc = kn_run_body(k, L->body, args, L->body->n_inputs, &r);
        if (rc != KN_OK)
            break;
        const kn_tensor *c = k->engine_api->result_output(r, 0);
        cond = c && kn_tensor_numel(c) > 0 ? kn_read_int(c, 0) != 0 : 0;
        for (int32_t i = 0; rc == KN_OK && i < L->n_carried; i++)
            rc = kn_owned_set(&L->carried[i], k->engine_api->result_output(r, 1 + i), k->err);
        for (int32_t i = 0; rc == KN_OK && i < L->n_scan; i++)
            rc = acc_push(k, &L->scans[i], k->engine_api->result_output(r, 1 + L->n_carried + i));
        k->engine_api->free_result(r);
    }
    free(args);
    return rc;
}

static int loop_prepare(kn_kctx *k)
{
    int rc = KN_OK;
    for (int32_t i = 0; i < k->n_in && rc == KN_OK; i++)
        rc = needs(k, i, i == 0 ? "M" : i == 1 ? "cond" : "v_initial");
    if (rc != KN_OK)
        return rc;
    loop_run L = {.k = k, .body = kn_graph_attr(k, "body")};
    if (!L.body)
        return KN_ERR_INVALID_MODEL;
    L.n_carried = k->n_in - 2;
    L.n_scan = k->n_out - L.n_carried;
    if (L.n_carried < 0 || L.n_scan < 0 || L.body->n_inputs != L.n_carried + 2 ||
        L.body->n_outputs != 1 + L.n_carried + L.n_scan)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "Loop: body has %d inputs and %d outputs for %d loop-carried values",
                       (int)L.body->n_inputs, (int)L.body->n_outputs, (int)L.n_carried);
    int64_t max_trip = k->in[0] && kn_tensor_numel(k->in[0]) > 0 ? kn_read_int(k->in[0], 0) : INT64_MAX;
    int cond = k->in[1] && kn_tensor_numel(k->in[1]) > 0 ? kn_read_int(k->in[1], 0) != 0 : 1;
    cf_state *s = state_new(k, k->n_out);
    if (!s)
        return KN_ERR_OUT_OF_MEMORY;
    L.carried = s->outs;
    L.scans = calloc((size_t)L.n_scan + 1, sizeof *L.scans);
    if (!L.scans)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Loop: out of memory");
    for (int32_t i = 0; rc == KN_OK && i < L.n_carried; i++)
        rc = k->in[2 + i] ? kn_owned_set(&L.carried[i], k->in[2 + i], k->err)
                          : kn_fail(k->err, KN_ERR_INVALID_MODEL, "Loop: a loop-carried input is missing");
    if (rc == KN_OK)
        rc = loop_iterate(&L, max_trip, cond);
    for (int32_t i = 0; i < L.n_scan; i++) {
        if (rc == KN_OK)
            acc_finish(&L.scans[i], &L.body->values[L.body->outputs[1 + L.n_carried + i]],
                       &s->outs[L.n_carried + i]);
        free(L.scans[i].bytes);
    }
    free(L.scans);
    if (rc == KN_OK)
        set_output_shapes(k, s);
    return rc;
}

const kn_op_def kn_op_If = {
    .op_type = "If", .since_version = 1, .prepare = if_prepare, .run = cf_run,
    .release = cf_release
};
const kn_op_def kn_op_Loop = {
    .op_type = "Loop", .since_version = 1, .prepare = loop_prepare, .run = cf_run,
    .release = cf_release
};
