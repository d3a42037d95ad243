/* Scan: runs its body once per slice of the scan inputs, threading state
 * through and stacking per-iteration outputs. Opset 8 adds a leading batch
 * axis (and optional sequence lengths); opset 9+ has none but lets each
 * input and output choose its axis and direction. Like If and Loop, the
 * body runs in prepare() once values are known; run() copies results. */
#include <stdlib.h>
#include <string.h>

#include "core/cpu/control/control_util.h"

typedef struct scan_state {
    int32_t n;
    kn_owned *outs;
} scan_state;

typedef struct scan_spec {
    kn_kctx *k;
    const kn_graph *body;
    int32_t n_state, n_in, n_out;   /* state vars, scan inputs, scan outputs */
    int32_t first_input;            /* index of the first state input in k->in */
    int64_t in_axis[KN_MAX_RANK * 4], in_dir[KN_MAX_RANK * 4];
    int64_t out_axis[KN_MAX_RANK * 4], out_dir[KN_MAX_RANK * 4];
} scan_spec;

static void scan_release(kn_kctx *k)
{
    scan_state *s = k->state;
    if (!s)
        return;
    for (int32_t i = 0; i < s->n; i++)
        kn_owned_free(&s->outs[i]);
    free(s->outs);
    free(s);
    k->state = NULL;
}

static int read_axes(scan_spec *sp, const char *name, int64_t *dst, int32_t n, int64_t dflt)
{
    int32_t count = 0;
    const int64_t *v = kn_attr_ints(sp->k->node, name, &count);
    if (v && count != n)
        return kn_fail(sp->k->err, KN_ERR_INVALID_MODEL, "Scan: '%s' has %d entries, expected %d",
                       name, (int)count, (int)n);
    for (int32_t i = 0; i < n; i++)
        dst[i] = v ? v[i] : dflt;
    return KN_OK;
}

/* One batch element's scan (opset 9 semantics over the given tensors):
 * states in/out are owned tensors updated in place; outputs are written
 * into outs (allocated on the first iteration). */
static int scan_one(scan_spec *sp, kn_owned *states, const kn_tensor *const *inputs, int64_t len,
                    kn_owned *outs)
{
    kn_kctx *k = sp->k;
    int rc = KN_OK;
    int32_t n_args = sp->n_state + sp->n_in;
    const kn_tensor **args = calloc((size_t)n_args + 1, sizeof *args);
    kn_tensor *slices = calloc((size_t)sp->n_in + 1, sizeof *slices);
    if (!args || !slices)
        rc = kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Scan: out of memory");
    for (int32_t j = 0; rc == KN_OK && j < sp->n_in; j++) {
        const kn_tensor *in = inputs[j];
        int32_t axis = (int32_t)sp->in_axis[j];
        slices[j] = *in;
        slices[j].rank = in->rank - 1;
        for (int32_t d = axis; d < in->rank - 1; d++)
            slices[j].dims[d] = in->dims[d + 1];
        int64_t nb = kn_tensor_nbytes(&slices[j]);
        slices[j].data = malloc(nb > 0 ? (size_t)nb : 1);
        if (!slices[j].data)
            rc = kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Scan: out of memory");
    }
    for (int64_t t = 0; rc == KN_OK && t < len; t++) {
        for (int32_t i = 0; i < sp->n_state; i++)
            args[i] = &states[i].t;
        for (int32_t j = 0; j < sp->n_in; j++) {
            int64_t at = sp->in_dir[j] ? len - 1 - t : t;
            kn_slice_axis(inputs[j], (int32_t)sp->in_axis[j], at, slices[j].data);
            args[sp->n_state + j] = &slices[j];
        }
        kn_subgraph_result *r = NULL;
        rc = kn_run_body(k, sp->body, args, n_args, &r);
        if (rc != KN_OK)
            break;
        for (int32_t i = 0; rc == KN_OK && i < sp->n_state; i++)
            rc = kn_owned_set(&states[i], k->engine_api->result_output(r, i), k->err);
        for (int32_t j = 0; rc == KN_OK && j < sp->n_out; j++) {
            const kn_tensor *y = k->engine_api->result_output(r, sp->n_state + j);
            int32_t axis = (int32_t)sp->out_axis[j];
            if (t == 0) { /* now the stacked shape is known */
                kn_tensor full = *y;
                if (y->rank >= KN_MAX_RANK || axis > y->rank) {
                    rc = kn_fail(k->err, KN_ERR_SHAPE, "Scan: output axis %d out of range", axis);
                    break;
                }
                full.rank = y->rank + 1;
                for (int32_t d = y->rank; d > axis; d--)
                    full.dims[d] = y->dims[d - 1];
                full.dims[axis] = len;
                int64_t nb = kn_tensor_nbytes(&full);
                free(outs[j].t.data);
                outs[j].t = full;
                outs[j].t.data = calloc(1, nb > 0 ? (size_t)nb : 1);
                if (!outs[j].t.data)
                    rc = kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Scan: out of memory");
            } else if (kn_tensor_numel(y) * (int64_t)kn_dtype_size(y->dtype) * len !=
                       kn_tensor_nbytes(&outs[j].t)) {
                rc = kn_fail(k->err, KN_ERR_SHAPE, "Scan: output %d changes shape", (int)j);
            }
            if (rc == KN_OK)
                kn_place_axis(&outs[j].t, axis, sp->out_dir[j] ? len - 1 - t : t, y->data);
        }
        k->engine_api->free_result(r);
    }
    for (int32_t j = 0; slices && j < sp->n_in; j++)
        free(slices[j].data);
    free(slices);
    free(args);
    return rc;
}

static int check_inputs(scan_spec *sp, int64_t *len)
{
    kn_kctx *k = sp->k;
    for (int32_t i = 0; i < k->n_in; i++)
        if (k->in[i] && !k->in[i]->data)
            return kn_fail(k->err, KN_ERR_NEEDS_VALUE, "Scan: needs its input values");
    *len = -1;
    for (int32_t j = 0; j < sp->n_in; j++) {
        const kn_tensor *in = k->in[sp->first_input + sp->n_state + j];
        if (!in)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Scan: scan input %d is missing", (int)j);
        int32_t axis = kn_norm_axis(sp->in_axis[j], in->rank, k->err);
        if (axis < 0)
            return KN_ERR_INVALID_MODEL;
        sp->in_axis[j] = axis;
        if (*len >= 0 && in->dims[axis] != *len)
            return kn_fail(k->err, KN_ERR_SHAPE, "Scan: scan inputs differ in length");
        *len = in->dims[axis];
    }
    return KN_OK;
}

static int scan_setup(kn_kctx *k, scan_spec *sp, int32_t first_input)
{
    memset(sp, 0, sizeof *sp);
    sp->k = k;
    sp->body = kn_graph_attr(k, "body");
    if (!sp->body)
        return KN_ERR_INVALID_MODEL;
    sp->first_input = first_input;
    sp->n_in = (int32_t)kn_attr_int(k->node, "num_scan_inputs", -1);
    sp->n_state = k->n_in - first_input - sp->n_in;
    sp->n_out = k->n_out - sp->n_state;
    if (sp->n_in < 1 || sp->n_state < 0 || sp->n_out < 0 || sp->n_in > KN_MAX_RANK * 4 ||
        sp->n_out > KN_MAX_RANK * 4 || sp->body->n_inputs != sp->n_state + sp->n_in ||
        sp->body->n_outputs != sp->n_state + sp->n_out)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "Scan: body signature does not match num_scan_inputs and the node's I/O");
    int rc = read_axes(sp, "scan_input_axes", sp->in_axis, sp->n_in, 0);
    if (rc == KN_OK)
        rc = read_axes(sp, "scan_input_directions", sp->in_dir, sp->n_in, 0);
    if (rc == KN_OK)
        rc = read_axes(sp, "scan_output_axes", sp->out_axis, sp->n_out, 0);
    if (rc == KN_OK)
        rc = read_axes(sp, "scan_output_directions", sp->out_dir, sp->n_out, 0);
    return rc;
}

static scan_state *new_state(kn_kctx *k, int32_t n)
{
    scan_state *s = calloc(1, sizeof *s);
    if (s)
        s->outs = calloc(n ? (size_t)n : 1, sizeof *s->outs);
    if (!s || !s->outs) {
        free(s);
        kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Scan: out of memory");
        return NULL;
    }
    s->n = n;
    k->state = s;
    return s;
}

static void publish(kn_kctx *k, const scan_state *s)
{
    for (int32_t i = 0; i < k->n_out; i++) {
        if (!k->out[i])
            continue;
        void *data = k->out[i]->data;
        *k->out[i] = s->outs[i].t;
        k->out[i]->data = data;
    }
}

static int scan9_prepare(kn_kctx *k)
{
    scan_spec sp;
    int64_t len = 0;
    int rc = scan_setup(k, &sp, 0);
    if (rc == KN_OK)
        rc = check_inputs(&sp, &len);
    if (rc != KN_OK)
        return rc;
    scan_state *s = new_state(k, k->n_out);
    if (!s)
        return KN_ERR_OUT_OF_MEMORY;
    for (int32_t i = 0; rc == KN_OK && i < sp.n_state; i++)
        rc = kn_owned_set(&s->outs[i], k->in[i], k->err);
    if (rc == KN_OK)
        rc = scan_one(&sp, s->outs, (const kn_tensor *const *)(k->in + sp.n_state), len,
                      s->outs + sp.n_state);
    if (rc == KN_OK)
        publish(k, s);
    return rc;
}

/* Opset 8: every input has a leading batch axis and the scan axis is 1;
 * sequence_lens (input 0, optional) is not supported beyond full length. */
static int scan8_prepare(kn_kctx *k)
{
    scan_spec sp;
    int64_t len = 0;
    int rc = scan_setup(k, &sp, 1);
    for (int32_t j = 0; rc == KN_OK && j < sp.n_in; j++)
        sp.in_axis[j] = 1;
    if (rc == KN_OK)
        rc = check_inputs(&sp, &len);
    if (rc != KN_OK)
        return rc;
    if (k->in[0])
        for (int64_t b = 0; b < kn_tensor_numel(k->in[0]); b++)
            if (kn_read_int(k->in[0], b) != len)
                return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Scan: sequence_lens shorter than the "
                                                           "scan axis are not supported");
    int64_t batch = sp.n_in ? k->in[1 + sp.n_state]->dims[0] : 0;
    /* Every state and scan input is indexed by batch row below. */
    for (int32_t i = 0; i < sp.n_state + sp.n_in; i++) {
        const kn_tensor *t = k->in[1 + i];
        if (!t || t->rank < 1 || t->dims[0] != batch)
            return kn_fail(k->err, KN_ERR_SHAPE, "Scan: input %d does not have the batch size %lld",
                           (int)(1 + i), (long long)batch);
    }
    scan_state *s = new_state(k, k->n_out);
    kn_owned *st = calloc((size_t)sp.n_state + 1, sizeof *st);
    kn_owned *ys = calloc((size_t)sp.n_out + 1, sizeof *ys);
    kn_tensor *xs = calloc((size_t)sp.n_in + 1, sizeof *xs);
    const kn_tensor **xp = calloc((size_t)sp.n_in + 1, sizeof *xp);
    if (!s || !st || !ys || !xs || !xp)
        rc = kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Scan: out of memory");
    for (int32_t j = 0; rc == KN_OK && j < sp.n_in; j++) {
        const kn_tensor *in = k->in[1 + sp.n_state + j];
        xs[j] = *in;
        xs[j].rank = in->rank - 1;
        memmove(xs[j].dims, in->dims + 1, sizeof(int64_t) * (size_t)xs[j].rank);
        sp.in_axis[j] = 0;
        xp[j] = &xs[j];
    }
    for (int64_t b = 0; rc == KN_OK && b < batch; b++) {
        for (int32_t i = 0; rc == KN_OK && i < sp.n_state; i++) {
            kn_tensor one = *k->in[1 + i];
            one.rank--;
            memmove(one.dims, k->in[1 + i]->dims + 1, sizeof(int64_t) * (size_t)one.rank);
            one.data = (unsigned char *)k->in[1 + i]->data + b * kn_tensor_nbytes(&one);
            rc = kn_owned_set(&st[i], &one, k->err);
        }
        for (int32_t j = 0; j < sp.n_in; j++)
            xs[j].data = (unsigned char *)k->in[1 + sp.n_state + j]->data + b * kn_tensor_nbytes(&xs[j]);
        if (rc == KN_OK)
            rc = scan_one(&sp, st, xp, len, ys);
        /* Stack this batch element's states and outputs into the results. */
        for (int32_t i = 0; rc == KN_OK && i < sp.n_state + sp.n_out; i++) {
            const kn_tensor *part = i < sp.n_state ? &st[i].t : &ys[i - sp.n_state].t;
            if (b == 0) {
                kn_tensor full = *part;
                full.rank = part->rank + 1;
                full.dims[0] = batch;
                memcpy(full.dims + 1, part->dims, sizeof(int64_t) * (size_t)part->rank);
                int64_t nb = kn_tensor_nbytes(&full);
                s->outs[i].t = full;
                s->outs[i].t.data = malloc(nb > 0 ? (size_t)nb : 1);
                if (!s->outs[i].t.data) {
                    rc = kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Scan: out of memory");
                    break;
                }
            }
            kn_place_axis(&s->outs[i].t, 0, b, part->data);
        }
    }
    for (int32_t i = 0; st && i < sp.n_state; i++)
        kn_owned_free(&st[i]);
    for (int32_t i = 0; ys && i < sp.n_out; i++)
        kn_owned_free(&ys[i]);
    free(st);
    free(ys);
    free(xs);
    free(xp);
    if (rc == KN_OK)
        publish(k, s);
    return rc;
}

static int scan_run(kn_kctx *k)
{
    const scan_state *s = k->state;
    int rc = KN_OK;
    for (int32_t i = 0; rc == KN_OK && i < k->n_out; i++)
        if (k->out[i])
            rc = kn_copy_result(k, k->out[i], &s->outs[i].t);
    return rc;
}

const kn_op_def kn_op_Scan8 = {
    .op_type = "Scan", .since_version = 8, .until_version = 8, .prepare = scan8_prepare,
    .run = scan_run, .release = scan_release
};
const kn_op_def kn_op_Scan = {
    .op_type = "Scan", .since_version = 9, .prepare = scan9_prepare, .run = scan_run,
    .release = scan_release
};
