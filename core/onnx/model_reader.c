/* ModelProto → kn_model_ir: header fields, opset imports, the main graph,
 * and the check that every node's domain is imported. */
#include <stdlib.h>
#include <string.h>

#include "core/onnx/reader.h"

enum { M_IR = 1, M_PRODUCER = 2, M_PRODUCER_VERSION = 3, M_GRAPH = 7, M_OPSET = 8 };

static const char *const model_fields[] = {
    [M_IR] = "ir_version", [M_PRODUCER] = "producer_name",
    [M_PRODUCER_VERSION] = "producer_version", [4] = "domain", [5] = "model_version",
    [6] = "doc_string", [M_GRAPH] = "graph", [M_OPSET] = "opset_import",
    [14] = "metadata_props", [20] = "training_info", [25] = "functions"};
static const pb_msg_desc model_desc = PB_DESC("ModelProto", model_fields);

static const char *const opset_fields[] = {[1] = "domain", [2] = "version"};
static const pb_msg_desc opset_desc = PB_DESC("OperatorSetIdProto", opset_fields);

typedef struct model_scan {
    size_t n_opsets;
    int has_graph;
    pb_field graph;
    kn_onnx_str producer, producer_version;
} model_scan;

static int scan_model(kn_onnx_ctx *c, pb_reader r, kn_model_ir *ir, model_scan *s)
{
    pb_field f;
    int more;
    while ((more = pb_next(&r, &f)) > 0) {
        int rc = KN_OK;
        switch (f.num) {
        case M_IR: rc = pb_int64(&r, &f, &ir->ir_version); break;
        case M_PRODUCER:
        case M_PRODUCER_VERSION:
            if ((rc = pb_want(&r, &f, PB_LEN)) == KN_OK) {
                kn_onnx_str v = kn_onnx_field_str(&r, &f);
                *(f.num == M_PRODUCER ? &s->producer : &s->producer_version) = v;
            }
            break;
        case M_GRAPH:
            if ((rc = pb_want(&r, &f, PB_LEN)) != KN_OK)
                break;
            /* Protobuf would merge repeated occurrences; no writer emits
             * them, so two graphs mean a damaged file. */
            if (s->has_graph)
                return kn_fail(c->err, KN_ERR_INVALID_MODEL,
                               "model has a second graph at byte %zu", f.at);
            s->graph = f;
            s->has_graph = 1;
            break;
        case M_OPSET: rc = pb_count(&r, &f, PB_LEN, &s->n_opsets); break;
        default: break;
        }
        if (rc != KN_OK)
            return rc;
    }
    return more < 0 ? KN_ERR_INVALID_MODEL : KN_OK;
}

static int parse_opset(kn_onnx_ctx *c, pb_reader r, kn_opset *op)
{
    pb_field f;
    int more;
    kn_onnx_str domain = {"", 0};
    while ((more = pb_next(&r, &f)) > 0) {
        if (f.num == 1) {
            if (pb_want(&r, &f, PB_LEN) != KN_OK)
                return KN_ERR_INVALID_MODEL;
            domain = kn_onnx_field_str(&r, &f);
        } else if (f.num == 2 && pb_int64(&r, &f, &op->version) != KN_OK) {
            return KN_ERR_INVALID_MODEL;
        }
    }
    if (more < 0)
        return KN_ERR_INVALID_MODEL;
    if (!(op->domain = kn_onnx_strdup(c, domain)))
        return c->err->code;
    return KN_OK;
}

/* The default domain has two spellings. */
static const char *norm_domain(const char *d) { return strcmp(d, "ai.onnx") == 0 ? "" : d; }

static int cmp_opset(const void *a, const void *b)
{
    return strcmp(norm_domain(((const kn_opset *)a)->domain),
                  norm_domain(((const kn_opset *)b)->domain));
}

static int read_opsets(kn_onnx_ctx *c, pb_reader r, kn_model_ir *ir, size_t n)
{
    if (n > INT32_MAX)
        return kn_fail(c->err, KN_ERR_LIMIT, "too many opset imports");
    if (!(ir->opsets = kn_onnx_alloc(c, c->bump, n, sizeof(kn_opset), "opset imports")))
        return c->err->code;
    pb_field f;
    int more;
    while ((more = pb_next(&r, &f)) > 0) {
        if (f.num != M_OPSET || (size_t)ir->n_opsets >= n)
            continue;
        int rc = parse_opset(c, pb_sub(&r, &f, &opset_desc), &ir->opsets[ir->n_opsets]);
        if (rc != KN_OK)
            return rc;
        ir->n_opsets++;
    }
    return more < 0 ? KN_ERR_INVALID_MODEL : KN_OK;
}

/* A sorted copy of the imports, for duplicate detection and for looking up
 * every node's domain in O(log n) (a file may hold very many imports). */
static int sort_opsets(kn_onnx_ctx *c, const kn_model_ir *ir, kn_opset **sorted)
{
    size_t n = (size_t)ir->n_opsets;
    if (!(*sorted = kn_onnx_alloc(c, c->tmp, n + 1, sizeof(kn_opset), "opset imports")))
        return c->err->code;
    if (n)
        memcpy(*sorted, ir->opsets, n * sizeof(kn_opset));
    qsort(*sorted, n, sizeof(kn_opset), cmp_opset);
    for (size_t i = 1; i < n; i++) {
        const kn_opset *a = &(*sorted)[i - 1], *b = &(*sorted)[i];
        /* The same domain at another version is ambiguous. */
        if (cmp_opset(a, b) == 0 && a->version != b->version)
            return kn_fail(c->err, KN_ERR_INVALID_MODEL,
                           "model imports domain '%s' twice (versions %lld and %lld)",
                           norm_domain(a->domain)[0] ? a->domain : "ai.onnx",
                           (long long)a->version, (long long)b->version);
    }
    return KN_OK;
}

/* Every node's domain must be imported, in subgraphs too (their depth is
 * already bounded by the graph reader). */
static int check_domains(kn_onnx_ctx *c, const kn_opset *sorted, size_t n_opsets,
                         const kn_graph *g)
{
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const kn_node *node = &g->nodes[i];
        kn_opset key = {node->domain, 0};
        if (!bsearch(&key, sorted, n_opsets, sizeof(kn_opset), cmp_opset))
            return kn_fail(c->err, KN_ERR_INVALID_MODEL,
                           node->domain[0]
                               ? "node '%s' (%s) uses domain '%s', which the model does not import"
                               : "node '%s' (%s) uses the default domain%s, but the model "
                                 "imports no opset for it",
                           node->name, node->op_type, node->domain);
        for (int32_t a = 0; a < node->n_attrs; a++) {
            const kn_attr *at = &node->attrs[a];
            int32_t ng = at->type == KN_ATTR_GRAPH ? 1 : at->type == KN_ATTR_GRAPHS ? at->count : 0;
            for (int32_t k = 0; k < ng; k++) {
                const kn_graph *sub = at->type == KN_ATTR_GRAPH ? at->g : at->graphs[k];
                int rc = sub ? check_domains(c, sorted, n_opsets, sub) : KN_OK;
                if (rc != KN_OK)
                    return rc;
            }
        }
    }
    return KN_OK;
}

static int read_model(kn_onnx_ctx *c, const void *bytes, size_t size, kn_model_ir *ir)
{
    pb_reader r;
    pb_init(&r, bytes, size, &model_desc, c->err);
    model_scan s;
    memset(&s, 0, sizeof s);
    s.producer.p = s.producer_version.p = "";
    int rc = scan_model(c, r, ir, &s);
    if (rc != KN_OK)
        return rc;
    if (!s.has_graph)
        return kn_fail(c->err, KN_ERR_INVALID_MODEL, "model has no graph");
    if (!(ir->producer_name = kn_onnx_strdup(c, s.producer)) ||
        !(ir->producer_version = kn_onnx_strdup(c, s.producer_version)))
        return c->err->code;
    kn_opset *sorted = NULL;
    if ((rc = read_opsets(c, r, ir, s.n_opsets)) != KN_OK ||
        (rc = sort_opsets(c, ir, &sorted)) != KN_OK ||
        (rc = kn_onnx_parse_graph(c, &r, &s.graph, NULL, 0, &ir->graph)) != KN_OK)
        return rc;
    return check_domains(c, sorted, (size_t)ir->n_opsets, ir->graph);
}

static int read_model_from(const void *bytes, size_t size, const char *base_dir,
                           size_t max_bytes, int mapped, kn_model_ir **out, kn_err *err)
{
    if (!out || (!bytes && size))
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "kn_onnx_read_model: NULL argument");
    *out = NULL;
    kn_err local = {0, {0}};
    kn_onnx_ctx c = {kn_bump_create(), kn_bump_create(), err ? err : &local, base_dir,
                     max_bytes, mapped, mapped ? bytes : NULL, NULL};
    kn_model_ir *ir = NULL;
    int rc;
    if (!c.bump || !c.tmp) {
        rc = kn_fail(c.err, KN_ERR_OUT_OF_MEMORY, "out of memory starting to read a model");
    } else {
        kn_bump_set_limit(c.bump, max_bytes);
        ir = kn_onnx_alloc(&c, c.bump, 1, sizeof *ir, "the model");
        rc = ir ? KN_OK : c.err->code;
    }
    if (rc == KN_OK) {
        ir->bump = c.bump;
        c.spans = &ir->file_spans;
        rc = read_model(&c, bytes, size, ir);
    }
    kn_bump_destroy(c.tmp);
    if (rc != KN_OK) {
        if (c.err->code == KN_OK) /* every failure path sets err; keep the promise anyway */
            kn_fail(c.err, rc, "model could not be read");
        kn_bump_destroy(c.bump);
        return rc;
    }
    *out = ir;
    return KN_OK;
}

int kn_onnx_read_model(const void *bytes, size_t size, const char *base_dir, size_t max_bytes,
                       kn_model_ir **out, kn_err *err)
{
    return read_model_from(bytes, size, base_dir, max_bytes, 0, out, err);
}

int kn_onnx_read_mapped_model(const void *bytes, size_t size, const char *base_dir,
                              size_t max_bytes, kn_model_ir **out, kn_err *err)
{
    return read_model_from(bytes, size, base_dir, max_bytes, 1, out, err);
}
