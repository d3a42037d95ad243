/* NodeProto → kn_node plus the input/output names the graph reader resolves
 * to values, and the outer-scope names its subgraphs use (they are inputs
 * too, for ordering: a node must run after whatever its bodies read). */
#include <stdio.h>
#include <string.h>

#include "core/onnx/reader.h"

enum { N_INPUT = 1, N_OUTPUT = 2, N_NAME = 3, N_OP = 4, N_ATTR = 5, N_DOMAIN = 7 };

static const char *const node_fields[] = {
    [N_INPUT] = "input", [N_OUTPUT] = "output",  [N_NAME] = "name",     [N_OP] = "op_type",
    [N_ATTR] = "attribute", [6] = "doc_string", [N_DOMAIN] = "domain", [8] = "overload"};
static const pb_msg_desc node_desc = PB_DESC("NodeProto", node_fields);

typedef struct node_scan {
    size_t n_in, n_out, n_attr;
    kn_onnx_str name, op, domain;
    int has_op;
} node_scan;

static int scan_node(pb_reader r, node_scan *s)
{
    pb_field f;
    int more;
    while ((more = pb_next(&r, &f)) > 0) {
        if (f.num < N_INPUT || f.num > N_DOMAIN || f.num == 6)
            continue;
        if (pb_want(&r, &f, PB_LEN) != KN_OK)
            return KN_ERR_INVALID_MODEL;
        kn_onnx_str v = kn_onnx_field_str(&r, &f);
        switch (f.num) {
        case N_INPUT: s->n_in++; break;
        case N_OUTPUT: s->n_out++; break;
        case N_ATTR: s->n_attr++; break;
        case N_NAME: s->name = v; break;
        case N_OP: s->op = v; s->has_op = 1; break;
        default: s->domain = v; break;
        }
    }
    return more < 0 ? KN_ERR_INVALID_MODEL : KN_OK;
}

static int set_strings(kn_onnx_ctx *c, const node_scan *s, int32_t index, kn_node *node)
{
    int rc;
    if ((rc = kn_onnx_check_name(c, s->name, "node name")) != KN_OK ||
        (rc = kn_onnx_check_name(c, s->op, "op_type")) != KN_OK ||
        (rc = kn_onnx_check_name(c, s->domain, "domain")) != KN_OK)
        return rc;
    char auto_name[32];
    kn_onnx_str name = s->name;
    if (name.n == 0) {
        snprintf(auto_name, sizeof auto_name, "node%d", (int)index);
        name.p = auto_name;
        name.n = strlen(auto_name);
    }
    kn_onnx_str domain = s->domain;
    if (domain.n == 7 && memcmp(domain.p, "ai.onnx", 7) == 0)
        domain.n = 0; /* the IR spells the default domain "" */
    if (!(node->name = kn_onnx_strdup(c, name)) || !(node->op_type = kn_onnx_strdup(c, s->op)) ||
        !(node->domain = kn_onnx_strdup(c, domain)))
        return c->err->code;
    return KN_OK;
}

static int alloc_arrays(kn_onnx_ctx *c, const node_scan *s, kn_node *node,
                        kn_onnx_node_names *names)
{
    if (s->n_in > INT32_MAX || s->n_out > INT32_MAX || s->n_attr > INT32_MAX)
        return kn_fail(c->err, KN_ERR_LIMIT, "too many inputs, outputs or attributes");
    node->n_inputs = (int32_t)s->n_in;
    node->n_outputs = (int32_t)s->n_out;
    node->n_attrs = (int32_t)s->n_attr;
    if (!(node->inputs = kn_onnx_alloc(c, c->bump, s->n_in, sizeof(int32_t), "node inputs")) ||
        !(node->outputs = kn_onnx_alloc(c, c->bump, s->n_out, sizeof(int32_t), "node outputs")) ||
        !(node->attrs = kn_onnx_alloc(c, c->bump, s->n_attr, sizeof(kn_attr), "attributes")) ||
        !(names->in = kn_onnx_alloc(c, c->tmp, s->n_in, sizeof(kn_onnx_str), "input names")) ||
        !(names->out = kn_onnx_alloc(c, c->tmp, s->n_out, sizeof(kn_onnx_str), "output names")))
        return c->err->code;
    return KN_OK;
}

static int read_fields(kn_onnx_ctx *c, pb_reader r, const kn_graph *owner, int depth,
                       kn_node *node, kn_onnx_node_names *names)
{
    pb_field f;
    int more;
    int32_t ni = 0, no = 0, na = 0;
    while ((more = pb_next(&r, &f)) > 0) {
        if ((f.num == N_INPUT || f.num == N_OUTPUT) &&
            kn_onnx_check_name(c, kn_onnx_field_str(&r, &f), "value name") != KN_OK)
            return KN_ERR_INVALID_MODEL;
        if (f.num == N_INPUT && ni < node->n_inputs)
            names->in[ni++] = kn_onnx_field_str(&r, &f);
        else if (f.num == N_OUTPUT && no < node->n_outputs)
            names->out[no++] = kn_onnx_field_str(&r, &f);
        else if (f.num == N_ATTR && na < node->n_attrs) {
            int rc = kn_onnx_parse_attr(c, &r, &f, owner, depth, &node->attrs[na++]);
            if (rc != KN_OK)
                return rc;
        }
    }
    return more < 0 ? KN_ERR_INVALID_MODEL : KN_OK;
}

/* Collects the names each subgraph left unresolved (its is_outer values). */
static int collect_implicit(kn_onnx_ctx *c, const kn_node *node, kn_onnx_node_names *names)
{
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t k = 0;
        for (int32_t a = 0; a < node->n_attrs; a++) {
            const kn_attr *at = &node->attrs[a];
            int32_t ng = at->type == KN_ATTR_GRAPH ? 1 : at->type == KN_ATTR_GRAPHS ? at->count : 0;
            for (int32_t gi = 0; gi < ng; gi++) {
                const kn_graph *g = at->type == KN_ATTR_GRAPH ? at->g : at->graphs[gi];
                for (int32_t v = 0; g && v < g->n_values; v++) {
                    if (!g->values[v].is_outer)
                        continue;
                    if (pass == 1) {
                        names->implicit[k].p = g->values[v].name;
                        names->implicit[k].n = strlen(g->values[v].name);
                    }
                    k++;
                }
            }
        }
        if (pass == 0) {
            n = k;
            if (n > INT32_MAX)
                return kn_fail(c->err, KN_ERR_LIMIT, "subgraphs use too many outer values");
            names->n_implicit = (int32_t)n;
            if (n && !(names->implicit = kn_onnx_alloc(c, c->tmp, n, sizeof(kn_onnx_str),
                                                       "outer names")))
                return c->err->code;
        }
    }
    return KN_OK;
}

int kn_onnx_parse_node(kn_onnx_ctx *c, const pb_reader *parent, const pb_field *pf,
                       const kn_graph *owner, int depth, int32_t index, kn_node *node,
                       kn_onnx_node_names *names)
{
    memset(node, 0, sizeof *node);
    memset(names, 0, sizeof *names);
    if (pb_want(parent, pf, PB_LEN) != KN_OK)
        return KN_ERR_INVALID_MODEL;
    pb_reader r = pb_sub(parent, pf, &node_desc);
    node_scan s;
    memset(&s, 0, sizeof s);
    s.name.p = s.op.p = s.domain.p = "";
    int rc = scan_node(r, &s);
    if (rc != KN_OK) {
        kn_onnx_prefix(c->err, "node %d", (int)index);
        return rc;
    }
    if ((rc = set_strings(c, &s, index, node)) != KN_OK)
        return rc;
    if (!s.has_op || s.op.n == 0)
        return kn_fail(c->err, KN_ERR_INVALID_MODEL, "node %d ('%s') at byte %zu has no op_type",
                       (int)index, node->name, pf->at);
    if ((rc = alloc_arrays(c, &s, node, names)) != KN_OK ||
        (rc = read_fields(c, r, owner, depth, node, names)) != KN_OK ||
        (rc = collect_implicit(c, node, names)) != KN_OK)
        kn_onnx_prefix(c->err, "node '%s' (%s)", node->name, node->op_type);
    return rc;
}
