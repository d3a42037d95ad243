#include "core/onnx/qdq_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/onnx/onnx.h"
#include "core/onnx/pb.h"
#include "core/onnx/pb_write.h"

/* Field numbers of onnx.proto that the rewrite reads or writes. */
enum { MODEL_GRAPH = 7 };
enum { GRAPH_NODE = 1, GRAPH_INITIALIZER = 5, GRAPH_INPUT = 11 };
enum { NODE_INPUT = 1, NODE_OUTPUT = 2, NODE_NAME = 3, NODE_OP_TYPE = 4, NODE_ATTRIBUTE = 5 };
enum { ATTR_NAME = 1, ATTR_I = 3, ATTR_TYPE = 20, ATTR_TYPE_INT = 2 };
enum { TENSOR_NAME = 8, VALUE_INFO_NAME = 1 };

static const char *const model_fields[] = {NULL, "ir_version", NULL, NULL,
                                           NULL, NULL,         NULL, "graph"};
static const char *const graph_fields[] = {NULL, "node", "name", NULL, NULL, "initializer"};
static const char *const node_fields[] = {NULL, "input", "output", "name", "op_type"};
static const char *const named_fields[] = {NULL, "name"};
static const pb_msg_desc model_desc = PB_DESC("ModelProto", model_fields);
static const pb_msg_desc graph_desc = PB_DESC("GraphProto", graph_fields);
static const pb_msg_desc node_desc = PB_DESC("NodeProto", node_fields);
static const pb_msg_desc named_desc = PB_DESC("message", named_fields);

typedef struct rewrite {
    const kn_qdq_spec *spec;
    uint8_t *act_written;  /* per activation: its Q/DQ pair is in the graph */
    uint8_t *weight_found; /* per weight: its float initializer was seen */
    kn_err *err;
} rewrite;

static int same(const char *s, const char *bytes, size_t n)
{
    return strlen(s) == n && !memcmp(s, bytes, n);
}

static int32_t find_act(const kn_qdq_spec *spec, const char *name, size_t n)
{
    for (int32_t i = 0; i < spec->n_acts; i++)
        if (same(spec->acts[i].name, name, n))
            return i;
    return -1;
}

static int32_t find_weight(const kn_qdq_spec *spec, const char *name, size_t n)
{
    for (int32_t i = 0; i < spec->n_weights; i++)
        if (same(spec->weights[i].name, name, n))
            return i;
    return -1;
}

/* The raw bytes of the field pb_next just returned. */
static void copy_field(pb_out *o, const pb_reader *r, const pb_field *f)
{
    pb_out_bytes(o, r->buf + f->at, r->pos - f->at);
}

/* The string of field `num` in a message (name of a ValueInfoProto, of a
 * TensorProto, …); *n = 0 when absent. */
static const char *message_string(const pb_reader *parent, const pb_field *f, uint32_t num,
                                  size_t *n)
{
    pb_reader r = pb_sub(parent, f, &named_desc);
    pb_field g;
    *n = 0;
    const char *found = NULL;
    while (pb_next(&r, &g) > 0)
        if (g.num == num && g.wire == PB_LEN) {
            found = pb_data(&r, &g);
            *n = g.len;
        }
    return found;
}

static char *joined(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s", a, b);
    return s;
}

static void put_node(pb_out *o, const char *op_type, const char *const *inputs, int n_inputs,
                     const char *output, const char *name, int64_t axis)
{
    pb_out node = {0};
    for (int i = 0; i < n_inputs; i++)
        pb_out_str(&node, NODE_INPUT, inputs[i]);
    pb_out_str(&node, NODE_OUTPUT, output);
    pb_out_str(&node, NODE_NAME, name);
    pb_out_str(&node, NODE_OP_TYPE, op_type);
    if (axis >= 0) {
        pb_out attr = {0};
        pb_out_str(&attr, ATTR_NAME, "axis");
        pb_out_int(&attr, ATTR_I, axis);
        pb_out_int(&attr, ATTR_TYPE, ATTR_TYPE_INT);
        pb_out_message(&node, NODE_ATTRIBUTE, &attr);
    }
    pb_out_message(o, GRAPH_NODE, &node);
}

static void put_act_pair(pb_out *o, const kn_qdq_activation *a)
{
    char *q_name = joined(a->node_stem, "_QuantizeLinear");
    char *dq_name = joined(a->node_stem, "_DequantizeLinear");
    if (!q_name || !dq_name) {
        o->failed = 1;
    } else {
        const char *q_in[] = {a->name, a->scale_name, a->zero_point_name};
        const char *dq_in[] = {a->quantized, a->scale_name, a->zero_point_name};
        put_node(o, "QuantizeLinear", q_in, 3, a->quantized, q_name, -1);
        put_node(o, "DequantizeLinear", dq_in, 3, a->dequantized, dq_name, -1);
    }
    free(q_name);
    free(dq_name);
}

static int put_tensor(pb_out *o, const char *name, const kn_tensor *t, kn_err *err)
{
    size_t needed = 0;
    kn_err measure = {0}; /* the size query "fails" with BUFFER_TOO_SMALL */
    int rc = kn_onnx_write_tensor(name, t, NULL, 0, &needed, &measure);
    if (rc != KN_OK && rc != KN_ERR_BUFFER_TOO_SMALL)
        return kn_fail(err, rc, "%s", measure.msg);
    uint8_t *bytes = malloc(needed ? needed : 1);
    if (!bytes)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory writing tensor '%s'", name);
    rc = kn_onnx_write_tensor(name, t, bytes, needed, NULL, err);
    if (rc == KN_OK)
        pb_out_len(o, GRAPH_INITIALIZER, bytes, needed);
    free(bytes);
    return rc;
}

static int keeps_float(const kn_qdq_spec *spec, const char *name, size_t name_n, const char *op,
                       size_t op_n)
{
    for (int32_t i = 0; i < spec->n_keep_float; i++)
        if ((name && same(spec->keep_float[i], name, name_n)) ||
            (op && same(spec->keep_float[i], op, op_n)))
            return 1;
    return 0;
}

/* Copies a NodeProto with its activation inputs pointed at their
 * dequantized copies, then writes the Q/DQ pair of each activation it
 * makes. */
static int rewrite_node(pb_out *o, const pb_reader *graph, const pb_field *f, rewrite *w)
{
    const kn_qdq_spec *spec = w->spec;
    pb_reader r = pb_sub(graph, f, &node_desc);
    pb_field g;
    const char *name = NULL, *op = NULL;
    size_t name_n = 0, op_n = 0;
    int rc;
    while ((rc = pb_next(&r, &g)) > 0) {
        if (g.num == NODE_NAME && g.wire == PB_LEN)
            name = pb_data(&r, &g), name_n = g.len;
        if (g.num == NODE_OP_TYPE && g.wire == PB_LEN)
            op = pb_data(&r, &g), op_n = g.len;
    }
    if (rc < 0)
        return KN_ERR_INVALID_MODEL;
    const int float_node = keeps_float(spec, name, name_n, op, op_n);

    pb_out node = {0};
    r = pb_sub(graph, f, &node_desc);
    while (pb_next(&r, &g) > 0) {
        int32_t a = g.num == NODE_INPUT && g.wire == PB_LEN && !float_node
                        ? find_act(spec, pb_data(&r, &g), g.len)
                        : -1;
        if (a >= 0)
            pb_out_str(&node, NODE_INPUT, spec->acts[a].dequantized);
        else
            copy_field(&node, &r, &g);
    }
    pb_out_message(o, GRAPH_NODE, &node);

    r = pb_sub(graph, f, &node_desc);
    while (pb_next(&r, &g) > 0) {
        int32_t a =
            g.num == NODE_OUTPUT && g.wire == PB_LEN ? find_act(spec, pb_data(&r, &g), g.len) : -1;
        if (a >= 0 && !w->act_written[a]) {
            put_act_pair(o, &spec->acts[a]);
            w->act_written[a] = 1;
        }
    }
    return KN_OK;
}

static int put_new_initializers(pb_out *o, const kn_qdq_spec *spec, kn_err *err)
{
    int rc = KN_OK;
    for (int32_t i = 0; i < spec->n_acts && rc == KN_OK; i++) {
        const kn_qdq_activation *a = &spec->acts[i];
        uint8_t zp = (uint8_t)a->zero_point; /* an int8 one as its two's complement byte */
        kn_tensor scale = {.dtype = KN_FLOAT, .rank = 0, .data = (void *)&a->scale};
        kn_tensor zero = {.dtype = a->dtype, .rank = 0, .data = &zp};
        rc = put_tensor(o, a->scale_name, &scale, err);
        if (rc == KN_OK)
            rc = put_tensor(o, a->zero_point_name, &zero, err);
    }
    for (int32_t i = 0; i < spec->n_weights && rc == KN_OK; i++) {
        const kn_qdq_weight *wt = &spec->weights[i];
        const int per_axis = wt->n_scales > 1;
        size_t zero_bytes = (size_t)wt->n_scales * (wt->quantized.dtype == KN_INT32 ? 4 : 1);
        void *zeros = calloc(1, zero_bytes ? zero_bytes : 1);
        if (!zeros)
            return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory writing '%s'", wt->name);
        kn_tensor scale = {.dtype = KN_FLOAT,
                           .rank = per_axis,
                           .dims = {wt->n_scales},
                           .data = (void *)wt->scales};
        kn_tensor zero = {
            .dtype = wt->quantized.dtype, .rank = per_axis, .dims = {wt->n_scales}, .data = zeros};
        rc = put_tensor(o, wt->quantized_name, &wt->quantized, err);
        if (rc == KN_OK)
            rc = put_tensor(o, wt->scale_name, &scale, err);
        if (rc == KN_OK)
            rc = put_tensor(o, wt->zero_point_name, &zero, err);
        free(zeros);
    }
    return rc;
}

static int rewrite_graph(pb_out *o, const pb_reader *model, const pb_field *gf, rewrite *w)
{
    const kn_qdq_spec *spec = w->spec;
    /* Weights' DequantizeLinear nodes and graph inputs' Q/DQ pairs come
     * first: every node may read them. */
    for (int32_t i = 0; i < spec->n_weights; i++) {
        const kn_qdq_weight *wt = &spec->weights[i];
        const char *in[] = {wt->quantized_name, wt->scale_name, wt->zero_point_name};
        put_node(o, "DequantizeLinear", in, 3, wt->name, wt->node_name,
                 wt->n_scales > 1 ? wt->axis : -1);
    }
    pb_reader r = pb_sub(model, gf, &graph_desc);
    pb_field f;
    int rc;
    while ((rc = pb_next(&r, &f)) > 0) {
        size_t n;
        const char *name;
        if (f.num != GRAPH_INPUT || f.wire != PB_LEN)
            continue;
        name = message_string(&r, &f, VALUE_INFO_NAME, &n);
        int32_t a = name ? find_act(spec, name, n) : -1;
        if (a >= 0 && !w->act_written[a]) {
            put_act_pair(o, &spec->acts[a]);
            w->act_written[a] = 1;
        }
    }
    if (rc < 0)
        return KN_ERR_INVALID_MODEL;

    r = pb_sub(model, gf, &graph_desc);
    while ((rc = pb_next(&r, &f)) > 0) {
        size_t n = 0;
        const char *name = NULL;
        if (f.wire == PB_LEN && f.num == GRAPH_INITIALIZER)
            name = message_string(&r, &f, TENSOR_NAME, &n);
        else if (f.wire == PB_LEN && f.num == GRAPH_INPUT)
            name = message_string(&r, &f, VALUE_INFO_NAME, &n);
        int32_t wi = name ? find_weight(spec, name, n) : -1;
        if (wi >= 0) { /* the float weight (and its old-style input entry) goes */
            w->weight_found[wi] |= f.num == GRAPH_INITIALIZER;
            continue;
        }
        if (f.wire == PB_LEN && f.num == GRAPH_NODE) {
            int nrc = rewrite_node(o, &r, &f, w);
            if (nrc != KN_OK)
                return nrc;
        } else {
            copy_field(o, &r, &f);
        }
    }
    if (rc < 0)
        return KN_ERR_INVALID_MODEL;
    for (int32_t i = 0; i < spec->n_acts; i++)
        if (!w->act_written[i])
            return kn_fail(w->err, KN_ERR_INVALID_ARGUMENT,
                           "quantize: tensor '%s' is neither a graph input nor made by a node",
                           spec->acts[i].name);
    for (int32_t i = 0; i < spec->n_weights; i++)
        if (!w->weight_found[i])
            return kn_fail(w->err, KN_ERR_INVALID_ARGUMENT,
                           "quantize: '%s' is not an initializer of the graph",
                           spec->weights[i].name);
    return put_new_initializers(o, spec, w->err);
}

int kn_onnx_write_qdq(const void *model, size_t size, const kn_qdq_spec *spec, uint8_t **out,
                      size_t *out_size, kn_err *err)
{
    *out = NULL;
    *out_size = 0;
    rewrite w = {.spec = spec,
                 .err = err,
                 .act_written = calloc((size_t)spec->n_acts + 1, 1),
                 .weight_found = calloc((size_t)spec->n_weights + 1, 1)};
    pb_out o = {0};
    int rc = w.act_written && w.weight_found
                 ? KN_OK
                 : kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory writing the model");
    pb_reader r;
    pb_init(&r, model, size, &model_desc, err);
    pb_field f;
    int more, graphs = 0;
    while (rc == KN_OK && (more = pb_next(&r, &f)) != 0) {
        if (more < 0) {
            rc = KN_ERR_INVALID_MODEL;
        } else if (f.num == MODEL_GRAPH && f.wire == PB_LEN) {
            /* The quantized graph is at most about as big as the float one:
             * one allocation up front (pages are only paid for as written)
             * instead of doubling through it. */
            pb_out graph = {.p = malloc(f.len + 4096), .cap = f.len + 4096};
            if (!graph.p)
                graph.cap = 0;
            rc = rewrite_graph(&graph, &r, &f, &w);
            if (rc == KN_OK)
                pb_out_message(&o, MODEL_GRAPH, &graph);
            else
                pb_out_free(&graph);
            graphs++;
        } else {
            copy_field(&o, &r, &f);
        }
    }
    if (rc == KN_OK && graphs != 1)
        rc = kn_fail(err, KN_ERR_INVALID_MODEL, "the model has %d graphs", graphs);
    if (rc == KN_OK)
        rc = pb_out_finish(&o, err);
    if (rc == KN_OK && err && err->code == KN_OK) {
        *out = o.p;
        *out_size = o.used;
    } else {
        pb_out_free(&o);
        if (rc == KN_OK)
            rc = kn_fail(err, KN_ERR_INVALID_MODEL, "malformed model");
    }
    free(w.act_written);
    free(w.weight_found);
    return rc;
}
