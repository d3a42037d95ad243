/* AttributeProto → kn_attr. Old files omit `type`; it is then inferred from
 * the field that is present. Only the field matching the type is decoded.
 * Sparse tensors and type protos have no place in the IR: such attributes
 * keep their type (and count) so a kernel can refuse them by name. */
#include <stdlib.h>
#include <string.h>

#include "core/onnx/reader.h"

enum {
    A_NAME = 1, A_F = 2, A_I = 3, A_S = 4, A_T = 5, A_G = 6, A_FLOATS = 7, A_INTS = 8,
    A_STRINGS = 9, A_TENSORS = 10, A_GRAPHS = 11, A_TP = 14, A_TPS = 15, A_TYPE = 20,
    A_SPARSE = 22, A_SPARSES = 23, A_COUNT = 24
};

static const char *const attr_fields[] = {
    [A_NAME] = "name",       [A_F] = "f",          [A_I] = "i",
    [A_S] = "s",             [A_T] = "t",          [A_G] = "g",
    [A_FLOATS] = "floats",   [A_INTS] = "ints",    [A_STRINGS] = "strings",
    [A_TENSORS] = "tensors", [A_GRAPHS] = "graphs", [13] = "doc_string",
    [A_TP] = "tp",           [A_TPS] = "type_protos", [A_TYPE] = "type",
    [21] = "ref_attr_name",  [A_SPARSE] = "sparse_tensor", [A_SPARSES] = "sparse_tensors"};
static const pb_msg_desc attr_desc = PB_DESC("AttributeProto", attr_fields);

/* What the first pass learns: how often each field occurs (elements, for
 * repeated scalars), the last occurrence of each singular field, the type. */
typedef struct attr_scan {
    size_t n[A_COUNT];
    pb_field last[A_COUNT];
    int32_t type;
} attr_scan;

static int scan_attr(pb_reader r, attr_scan *s)
{
    pb_field f;
    int more;
    while ((more = pb_next(&r, &f)) > 0) {
        int rc = KN_OK;
        switch (f.num) {
        case A_F: rc = pb_want(&r, &f, PB_FIXED32); break;
        case A_I: rc = pb_want(&r, &f, PB_VARINT); break;
        case A_TYPE: rc = pb_int32(&r, &f, &s->type); break;
        case A_FLOATS: rc = pb_count(&r, &f, PB_FIXED32, &s->n[A_FLOATS]); break;
        case A_INTS: rc = pb_count(&r, &f, PB_VARINT, &s->n[A_INTS]); break;
        case A_NAME: case A_S: case A_T: case A_G: case A_STRINGS: case A_TENSORS:
        case A_GRAPHS: case A_TP: case A_TPS: case A_SPARSE: case A_SPARSES:
            rc = pb_want(&r, &f, PB_LEN);
            break;
        default: continue;
        }
        if (rc != KN_OK)
            return rc;
        if (f.num != A_FLOATS && f.num != A_INTS)
            s->n[f.num]++;
        s->last[f.num] = f;
    }
    return more < 0 ? KN_ERR_INVALID_MODEL : KN_OK;
}

/* The type an old file means: lists first (a present list field is
 * unambiguous), then the singular fields. */
static int32_t infer_type(const attr_scan *s)
{
    static const struct { int field; int32_t type; } order[] = {
        {A_FLOATS, KN_ATTR_FLOATS}, {A_INTS, KN_ATTR_INTS}, {A_STRINGS, KN_ATTR_STRINGS},
        {A_TENSORS, KN_ATTR_TENSORS}, {A_GRAPHS, KN_ATTR_GRAPHS},
        {A_SPARSES, KN_ATTR_SPARSE_TENSORS}, {A_TPS, KN_ATTR_TYPE_PROTOS},
        {A_G, KN_ATTR_GRAPH}, {A_T, KN_ATTR_TENSOR}, {A_SPARSE, KN_ATTR_SPARSE_TENSOR},
        {A_TP, KN_ATTR_TYPE_PROTO}, {A_S, KN_ATTR_STRING}, {A_F, KN_ATTR_FLOAT},
        {A_I, KN_ATTR_INT}};
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
        if (s->n[order[k].field])
            return order[k].type;
    return KN_ATTR_UNDEFINED;
}

/* Decodes every occurrence of the list field into the arrays alloc_list made. */
static int read_list(kn_onnx_ctx *c, pb_reader r, const kn_graph *owner, int depth,
                     uint32_t field, kn_attr *a)
{
    pb_field f;
    int more, k = 0;
    while ((more = pb_next(&r, &f)) > 0) {
        if (f.num != field)
            continue;
        int rc = KN_OK;
        if (field == A_FLOATS || field == A_INTS) {
            pb_iter it;
            uint64_t v;
            int got;
            if (pb_iter_begin(&r, &f, field == A_FLOATS ? PB_FIXED32 : PB_VARINT, &it) != KN_OK)
                return KN_ERR_INVALID_MODEL;
            while ((got = pb_iter_next(&it, &v)) > 0 && k < a->count) {
                if (field == A_INTS) {
                    ((int64_t *)a->ints)[k++] = (int64_t)v;
                } else {
                    uint32_t bits = (uint32_t)v;
                    memcpy((float *)a->floats + k++, &bits, sizeof bits);
                }
            }
            if (got < 0)
                return KN_ERR_INVALID_MODEL;
            continue;
        }
        if (k >= a->count)
            break;
        if (field == A_STRINGS) {
            if (!(a->strings[k] = kn_onnx_strdup(c, kn_onnx_field_str(&r, &f))))
                return c->err->code;
        } else if (field == A_TENSORS) {
            rc = kn_onnx_parse_tensor(c, &r, &f, (kn_tensor *)a->tensors + k, NULL);
        } else {
            kn_graph *g = NULL;
            rc = kn_onnx_parse_graph(c, &r, &f, owner, depth + 1, &g);
            ((const kn_graph **)a->graphs)[k] = g;
        }
        if (rc != KN_OK) {
            kn_onnx_prefix(c->err, "element %d", k);
            return rc;
        }
        k++;
    }
    return more < 0 ? KN_ERR_INVALID_MODEL : KN_OK;
}

static int alloc_list(kn_onnx_ctx *c, const attr_scan *s, kn_attr *a)
{
    static const struct { int32_t type; int field; size_t size; } lists[] = {
        {KN_ATTR_FLOATS, A_FLOATS, sizeof(float)},
        {KN_ATTR_INTS, A_INTS, sizeof(int64_t)},
        {KN_ATTR_STRINGS, A_STRINGS, sizeof(char *)},
        {KN_ATTR_TENSORS, A_TENSORS, sizeof(kn_tensor)},
        {KN_ATTR_GRAPHS, A_GRAPHS, sizeof(kn_graph *)},
        {KN_ATTR_SPARSE_TENSORS, A_SPARSES, 0},
        {KN_ATTR_TYPE_PROTOS, A_TPS, 0}};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++) {
        if (lists[k].type != a->type)
            continue;
        size_t n = s->n[lists[k].field];
        if (n > INT32_MAX)
            return kn_fail(c->err, KN_ERR_LIMIT, "%zu elements are too many", n);
        a->count = (int32_t)n;
        if (!lists[k].size)
            return KN_OK;
        void *p = kn_onnx_alloc(c, c->bump, n ? n : 1, lists[k].size, "attribute values");
        if (!p)
            return c->err->code;
        switch (a->type) {
        case KN_ATTR_FLOATS: a->floats = p; break;
        case KN_ATTR_INTS: a->ints = p; break;
        case KN_ATTR_STRINGS: a->strings = p; break;
        case KN_ATTR_TENSORS: a->tensors = p; break;
        default: a->graphs = p; break;
        }
    }
    return KN_OK;
}

static int read_value(kn_onnx_ctx *c, pb_reader r, const attr_scan *s, const kn_graph *owner,
                      int depth, kn_attr *a)
{
    int rc;
    switch (a->type) {
    case KN_ATTR_FLOAT:
        if (s->n[A_F])
            pb_float(&r, &s->last[A_F], &a->f);
        return KN_OK;
    case KN_ATTR_INT:
        a->i = (int64_t)s->last[A_I].value;
        return KN_OK;
    case KN_ATTR_STRING: {
        kn_onnx_str v = {"", 0};
        if (s->n[A_S])
            v = kn_onnx_field_str(&r, &s->last[A_S]);
        if (!(a->s = kn_onnx_strdup(c, v)))
            return c->err->code;
        a->s_len = (int64_t)v.n;
        return KN_OK;
    }
    case KN_ATTR_TENSOR: {
        /* Required: kernels dereference a TENSOR/GRAPH attribute's value. */
        if (!s->n[A_T])
            return kn_fail(c->err, KN_ERR_INVALID_MODEL, "type TENSOR but no tensor");
        kn_tensor *t = kn_onnx_alloc(c, c->bump, 1, sizeof *t, "attribute tensor");
        if (!t)
            return c->err->code;
        a->t = t;
        return kn_onnx_parse_tensor(c, &r, &s->last[A_T], t, NULL);
    }
    case KN_ATTR_GRAPH: {
        if (!s->n[A_G])
            return kn_fail(c->err, KN_ERR_INVALID_MODEL, "type GRAPH but no graph");
        kn_graph *g = NULL;
        rc = kn_onnx_parse_graph(c, &r, &s->last[A_G], owner, depth + 1, &g);
        a->g = g;
        return rc;
    }
    case KN_ATTR_FLOATS: case KN_ATTR_INTS: case KN_ATTR_STRINGS: case KN_ATTR_TENSORS:
    case KN_ATTR_GRAPHS: {
        static const uint32_t field_of[] = {
            [KN_ATTR_FLOATS] = A_FLOATS, [KN_ATTR_INTS] = A_INTS, [KN_ATTR_STRINGS] = A_STRINGS,
            [KN_ATTR_TENSORS] = A_TENSORS, [KN_ATTR_GRAPHS] = A_GRAPHS};
        if ((rc = alloc_list(c, s, a)) != KN_OK)
            return rc;
        return read_list(c, r, owner, depth, field_of[a->type], a);
    }
    case KN_ATTR_SPARSE_TENSOR:
    case KN_ATTR_TYPE_PROTO:
        return KN_OK;
    default: /* the *S forms without storage, and UNDEFINED */
        return alloc_list(c, s, a);
    }
}

static int parse_attr(kn_onnx_ctx *c, pb_reader r, attr_scan *s, const kn_graph *owner,
                      int depth, size_t at, kn_attr *a)
{
    int rc = scan_attr(r, s);
    if (rc != KN_OK)
        return rc;
    if (!s->n[A_NAME] || s->last[A_NAME].len == 0)
        return kn_fail(c->err, KN_ERR_INVALID_MODEL, "attribute at byte %zu has no name", at);
    if (!(a->name = kn_onnx_strdup(c, kn_onnx_field_str(&r, &s->last[A_NAME]))))
        return c->err->code;
    a->type = s->type ? s->type : infer_type(s);
    if (a->type < 0 || a->type > KN_ATTR_TYPE_PROTOS)
        rc = kn_fail(c->err, KN_ERR_UNSUPPORTED, "unknown attribute type %d", (int)a->type);
    else
        rc = read_value(c, r, s, owner, depth, a);
    if (rc != KN_OK)
        kn_onnx_prefix(c->err, "attribute '%s'", a->name);
    return rc;
}

int kn_onnx_parse_attr(kn_onnx_ctx *c, const pb_reader *parent, const pb_field *pf,
                       const kn_graph *owner, int depth, kn_attr *a)
{
    memset(a, 0, sizeof *a);
    if (pb_want(parent, pf, PB_LEN) != KN_OK)
        return KN_ERR_INVALID_MODEL;
    /* Heap, not stack: this frame is on the graph → node → attribute
     * recursion, and WebAssembly stacks are small. Freed here, not pooled,
     * so a model with many attributes does not keep one per attribute. */
    attr_scan *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(c->err, KN_ERR_OUT_OF_MEMORY, "out of memory reading an attribute");
    int rc = parse_attr(c, pb_sub(parent, pf, &attr_desc), s, owner, depth, pf->at, a);
    free(s);
    return rc;
}
