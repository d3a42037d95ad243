/* ValueInfoProto → declared dtype and shape. Tensor types carry dtype and
 * shape; sequence and optional types record their kind and the innermost
 * tensor element type (nesting bounded by KN_ONNX_MAX_DEPTH); map, sparse
 * and opaque types are recognised and left "unknown" (KN_UNDEFINED, rank
 * -1) without decoding their contents. */
#include <string.h>

#include "core/onnx/reader.h"

static const char *const vinfo_fields[] = {[1] = "name", [2] = "type", [3] = "doc_string"};
static const pb_msg_desc vinfo_desc = PB_DESC("ValueInfoProto", vinfo_fields);

static const char *const type_fields[] = {
    [1] = "tensor_type", [4] = "sequence_type", [5] = "map_type", [6] = "denotation",
    [7] = "opaque_type", [8] = "sparse_tensor_type", [9] = "optional_type"};
static const pb_msg_desc type_desc = PB_DESC("TypeProto", type_fields);

static const char *const ttype_fields[] = {[1] = "elem_type", [2] = "shape"};
static const pb_msg_desc ttype_desc = PB_DESC("TypeProto.Tensor", ttype_fields);

/* TypeProto.Sequence and TypeProto.Optional: both one nested TypeProto. */
static const char *const wrapper_fields[] = {[1] = "elem_type"};
static const pb_msg_desc seq_type_desc = PB_DESC("TypeProto.Sequence", wrapper_fields);
static const pb_msg_desc opt_type_desc = PB_DESC("TypeProto.Optional", wrapper_fields);

static const char *const shape_fields[] = {[1] = "dim"};
static const pb_msg_desc shape_desc = PB_DESC("TensorShapeProto", shape_fields);

static const char *const dim_fields[] = {[1] = "dim_value", [2] = "dim_param",
                                         [3] = "denotation"};
static const pb_msg_desc dim_desc = PB_DESC("TensorShapeProto.Dimension", dim_fields);

#define NAME_ARGS(v) (int)((v)->name.n > 200 ? 200 : (v)->name.n), (v)->name.p

static int parse_dim(kn_onnx_ctx *c, pb_reader r, kn_onnx_vinfo *v, int k)
{
    pb_field f;
    int more;
    v->dims[k] = -1;
    v->dim_params[k] = NULL;
    while ((more = pb_next(&r, &f)) > 0) {
        if (f.num == 1) { /* dim_value and dim_param are a oneof: the last one wins */
            int64_t d;
            if (pb_int64(&r, &f, &d) != KN_OK)
                return KN_ERR_INVALID_MODEL;
            if (d < 0)
                return kn_fail(c->err, KN_ERR_INVALID_MODEL, "value '%.*s' has negative dim %d "
                               "(%lld)", NAME_ARGS(v), k, (long long)d);
            v->dims[k] = d;
            v->dim_params[k] = NULL;
        } else if (f.num == 2) {
            if (pb_want(&r, &f, PB_LEN) != KN_OK)
                return KN_ERR_INVALID_MODEL;
            v->dims[k] = -1;
            v->dim_params[k] = NULL;
            if (f.len && !(v->dim_params[k] = kn_onnx_strdup(c, kn_onnx_field_str(&r, &f))))
                return c->err->code;
        }
    }
    return more < 0 ? KN_ERR_INVALID_MODEL : KN_OK;
}

/* Sets v->rank from the number of dims, before any is decoded. */
static int count_rank(kn_onnx_ctx *c, pb_reader r, kn_onnx_vinfo *v)
{
    pb_field f;
    int more;
    size_t rank = 0;
    while ((more = pb_next(&r, &f)) > 0)
        if (f.num == 1 && pb_count(&r, &f, PB_LEN, &rank) != KN_OK)
            return KN_ERR_INVALID_MODEL;
    if (more < 0)
        return KN_ERR_INVALID_MODEL;
    if (rank > KN_MAX_RANK)
        return kn_fail(c->err, KN_ERR_UNSUPPORTED,
                       "value '%.*s' has rank %zu; at most %d dimensions are supported",
                       NAME_ARGS(v), rank, KN_MAX_RANK);
    v->rank = (int32_t)rank;
    return KN_OK;
}

static int parse_tensor_type(kn_onnx_ctx *c, pb_reader r, kn_onnx_vinfo *v)
{
    pb_field f, shape = {0};
    int more, has_shape = 0;
    v->is_tensor = 1;
    while ((more = pb_next(&r, &f)) > 0) {
        if (f.num == 1) {
            if (pb_int32(&r, &f, &v->dtype) != KN_OK)
                return KN_ERR_INVALID_MODEL;
        } else if (f.num == 2) {
            if (pb_want(&r, &f, PB_LEN) != KN_OK)
                return KN_ERR_INVALID_MODEL;
            shape = f;
            has_shape = 1;
        }
    }
    if (more < 0)
        return KN_ERR_INVALID_MODEL;
    /* Declared types: every tensor dtype (string and complex included, so a
     * model can be inspected) and the packed sub-byte ones (4-bit, 2-bit). */
    if (v->dtype < 0 || v->dtype >= KN_DTYPE_COUNT ||
        (v->dtype != KN_UNDEFINED && v->dtype != KN_STRING && kn_dtype_bits(v->dtype) == 0))
        return kn_fail(c->err, KN_ERR_UNSUPPORTED, "value '%.*s' has unsupported element type %d",
                       NAME_ARGS(v), (int)v->dtype);
    if (!has_shape)
        return KN_OK; /* rank unknown */
    pb_reader s = pb_sub(&r, &shape, &shape_desc);
    int rc = count_rank(c, s, v);
    if (rc != KN_OK)
        return rc;
    int k = 0;
    while ((more = pb_next(&s, &f)) > 0)
        if (f.num == 1 && k < v->rank &&
            (rc = parse_dim(c, pb_sub(&s, &f, &dim_desc), v, k++)) != KN_OK)
            return rc;
    return more < 0 ? KN_ERR_INVALID_MODEL : KN_OK;
}

static int parse_type(kn_onnx_ctx *c, pb_reader r, kn_onnx_vinfo *v, int depth);

/* The element type of a sequence or optional type (field 1 of the wrapper):
 * decoded into a scratch record so that only its innermost tensor element
 * type (and whether an optional wraps a sequence) reach v. */
static int parse_wrapped(kn_onnx_ctx *c, pb_reader r, kn_onnx_vinfo *v, int32_t kind, int depth)
{
    if (depth >= KN_ONNX_MAX_DEPTH)
        return kn_fail(c->err, KN_ERR_UNSUPPORTED, "value '%.*s': sequence/optional types nested "
                       "deeper than %d", NAME_ARGS(v), KN_ONNX_MAX_DEPTH);
    pb_field f, elem = {0};
    int more, has = 0;
    while ((more = pb_next(&r, &f)) > 0) {
        if (f.num != 1)
            continue;
        if (pb_want(&r, &f, PB_LEN) != KN_OK)
            return KN_ERR_INVALID_MODEL;
        elem = f;
        has = 1;
    }
    if (more < 0)
        return KN_ERR_INVALID_MODEL;
    kn_onnx_vinfo inner;
    memset(&inner, 0, sizeof inner);
    inner.name = v->name;
    inner.dtype = KN_UNDEFINED;
    inner.rank = -1;
    if (has) {
        int rc = parse_type(c, pb_sub(&r, &elem, &type_desc), &inner, depth + 1);
        if (rc != KN_OK)
            return rc;
    }
    v->is_tensor = 0;
    v->kind = kind;
    v->dtype = kind == KN_KIND_SEQUENCE ? KN_SEQUENCE : KN_OPTIONAL;
    v->rank = -1;
    v->elem_dtype = inner.kind != KN_KIND_TENSOR ? inner.elem_dtype : inner.dtype;
    v->optional_of_sequence = kind == KN_KIND_OPTIONAL && inner.kind == KN_KIND_SEQUENCE;
    return KN_OK;
}

static int parse_type(kn_onnx_ctx *c, pb_reader r, kn_onnx_vinfo *v, int depth)
{
    pb_field f, which = {0};
    int more, has = 0;
    while ((more = pb_next(&r, &f)) > 0) {
        switch (f.num) {
        case 1: case 4: case 5: case 7: case 8: case 9: /* the `value` oneof: last wins */
            if (pb_want(&r, &f, PB_LEN) != KN_OK)
                return KN_ERR_INVALID_MODEL;
            which = f;
            has = 1;
            break;
        default: break;
        }
    }
    if (more < 0)
        return KN_ERR_INVALID_MODEL;
    if (has && which.num == 1)
        return parse_tensor_type(c, pb_sub(&r, &which, &ttype_desc), v);
    if (has && which.num == 4)
        return parse_wrapped(c, pb_sub(&r, &which, &seq_type_desc), v, KN_KIND_SEQUENCE, depth);
    if (has && which.num == 9)
        return parse_wrapped(c, pb_sub(&r, &which, &opt_type_desc), v, KN_KIND_OPTIONAL, depth);
    return KN_OK;
}

int kn_onnx_parse_value_info(kn_onnx_ctx *c, const pb_reader *parent, const pb_field *pf,
                             kn_onnx_vinfo *v)
{
    memset(v, 0, sizeof *v);
    v->name.p = "";
    v->dtype = KN_UNDEFINED;
    v->rank = -1;
    if (pb_want(parent, pf, PB_LEN) != KN_OK)
        return KN_ERR_INVALID_MODEL;
    pb_reader r = pb_sub(parent, pf, &vinfo_desc);
    pb_field f, type = {0};
    int more, has_type = 0;
    while ((more = pb_next(&r, &f)) > 0) {
        if (f.num == 1 || f.num == 2) {
            if (pb_want(&r, &f, PB_LEN) != KN_OK)
                return KN_ERR_INVALID_MODEL;
            if (f.num == 1)
                v->name = kn_onnx_field_str(&r, &f);
            else {
                type = f;
                has_type = 1;
            }
        }
    }
    if (more < 0)
        return KN_ERR_INVALID_MODEL;
    /* The type is decoded after the whole message so errors can name the value. */
    return has_type ? parse_type(c, pb_sub(&r, &type, &type_desc), v, 0) : KN_OK;
}
