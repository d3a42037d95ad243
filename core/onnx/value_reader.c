/* SequenceProto / OptionalProto → a sequence or optional blob
 * (core/ir/value_blob.h); TensorProto goes to the tensor reader. Elements are
 * decoded into a scratch bump first, then written into one blob of exactly
 * the size they need in the caller's bump. Nesting is bounded by
 * KN_BLOB_MAX_DEPTH; sparse tensors and maps are refused. */
#include <string.h>

#include "core/ir/value_blob.h"
#include "core/onnx/reader.h"

/* SequenceProto.DataType / OptionalProto.DataType (same numbers). */
enum { ET_UNDEFINED = 0, ET_TENSOR = 1, ET_SPARSE = 2, ET_SEQUENCE = 3, ET_MAP = 4,
       ET_OPTIONAL = 5 };

/* Field numbers: the two messages share them (plural in SequenceProto). */
enum { F_NAME = 1, F_ELEM_TYPE = 2, F_TENSOR = 3, F_SPARSE = 4, F_SEQUENCE = 5, F_MAP = 6,
       F_OPTIONAL = 7, F_COUNT = 8 };

static const char *const seq_fields[] = {
    [F_NAME] = "name", [F_ELEM_TYPE] = "elem_type", [F_TENSOR] = "tensor_values",
    [F_SPARSE] = "sparse_tensor_values", [F_SEQUENCE] = "sequence_values",
    [F_MAP] = "map_values", [F_OPTIONAL] = "optional_values"};
static const pb_msg_desc seq_desc = PB_DESC("SequenceProto", seq_fields);

static const char *const opt_fields[] = {
    [F_NAME] = "name", [F_ELEM_TYPE] = "elem_type", [F_TENSOR] = "tensor_value",
    [F_SPARSE] = "sparse_tensor_value", [F_SEQUENCE] = "sequence_value",
    [F_MAP] = "map_value", [F_OPTIONAL] = "optional_value"};
static const pb_msg_desc opt_desc = PB_DESC("OptionalProto", opt_fields);

typedef struct value_scan {
    kn_onnx_str name;
    int32_t elem_type;
    size_t n[F_COUNT]; /* values per value field */
} value_scan;

static int scan_value(pb_reader r, value_scan *s)
{
    pb_field f;
    int more;
    while ((more = pb_next(&r, &f)) > 0) {
        int rc = KN_OK;
        if (f.num == F_NAME) {
            rc = pb_want(&r, &f, PB_LEN);
            s->name = kn_onnx_field_str(&r, &f);
        } else if (f.num == F_ELEM_TYPE) {
            rc = pb_int32(&r, &f, &s->elem_type);
        } else if (f.num >= F_TENSOR && f.num < F_COUNT) {
            rc = pb_want(&r, &f, PB_LEN);
            s->n[f.num]++;
        }
        if (rc != KN_OK)
            return rc;
    }
    return more < 0 ? KN_ERR_INVALID_MODEL : KN_OK;
}

static const char *elem_type_name(int32_t t)
{
    switch (t) {
    case ET_UNDEFINED: return "undefined";
    case ET_TENSOR: return "tensor";
    case ET_SPARSE: return "sparse tensor";
    case ET_SEQUENCE: return "sequence";
    case ET_MAP: return "map";
    case ET_OPTIONAL: return "optional";
    default: return "unknown";
    }
}

static int32_t field_of(int32_t elem_type)
{
    return elem_type == ET_TENSOR ? F_TENSOR : elem_type == ET_SEQUENCE ? F_SEQUENCE
                                             : F_OPTIONAL;
}

static int32_t kind_of_field(int32_t field)
{
    return field == F_TENSOR ? KN_KIND_TENSOR : field == F_SEQUENCE ? KN_KIND_SEQUENCE
                                              : KN_KIND_OPTIONAL;
}

/* Which value field the message uses, checked against elem_type: one field
 * only, and the one elem_type names (an UNDEFINED elem_type takes the field
 * present). *field = 0 when there are no values. */
static int pick_field(kn_onnx_ctx *c, const value_scan *s, const char *msg, const char *name,
                      int32_t *field)
{
    *field = 0;
    if (s->n[F_SPARSE] || s->elem_type == ET_SPARSE)
        return kn_fail(c->err, KN_ERR_UNSUPPORTED, "%s '%s' holds sparse tensors, which are not "
                       "supported", msg, name);
    if (s->n[F_MAP] || s->elem_type == ET_MAP)
        return kn_fail(c->err, KN_ERR_UNSUPPORTED, "%s '%s' holds maps, which are not supported",
                       msg, name);
    if (s->elem_type != ET_UNDEFINED && s->elem_type != ET_TENSOR &&
        s->elem_type != ET_SEQUENCE && s->elem_type != ET_OPTIONAL)
        return kn_fail(c->err, KN_ERR_INVALID_MODEL, "%s '%s' has unknown elem_type %d", msg,
                       name, (int)s->elem_type);
    int used = 0;
    for (int32_t fld = F_TENSOR; fld < F_COUNT; fld++)
        if (s->n[fld]) {
            used++;
            *field = fld;
        }
    if (used > 1)
        return kn_fail(c->err, KN_ERR_INVALID_MODEL, "%s '%s' holds values of more than one kind",
                       msg, name);
    if (used && s->elem_type != ET_UNDEFINED && *field != field_of(s->elem_type))
        return kn_fail(c->err, KN_ERR_INVALID_MODEL, "%s '%s' has elem_type %s but holds %s", msg,
                       name, elem_type_name(s->elem_type),
                       (msg[0] == 'S' ? seq_fields : opt_fields)[*field]);
    return KN_OK;
}

static int parse_value(kn_onnx_ctx *c, kn_bump *tmp, pb_reader r, int32_t kind, int depth,
                       kn_bump *dest, kn_tensor *out, const char **name_out);

/* Decodes element `f` (a TensorProto or nested message) into tmp. */
static int parse_element(kn_onnx_ctx *c, kn_bump *tmp, const pb_reader *r, const pb_field *f,
                         int32_t field, int depth, kn_tensor *elem)
{
    kn_onnx_ctx ec = *c;
    ec.bump = tmp; /* elements are scratch: only the final blob stays */
    if (field == F_TENSOR) {
        int rc = kn_onnx_parse_tensor(&ec, r, f, elem, NULL);
        if (rc == KN_OK && elem->dtype == KN_STRING) /* refs would outlive tmp */
            rc = kn_fail(c->err, KN_ERR_UNSUPPORTED, "sequences and optionals of string "
                         "tensors are not supported");
        if (rc == KN_OK && elem->dtype >= KN_DTYPE_COUNT)
            rc = kn_fail(c->err, KN_ERR_UNSUPPORTED, "bad element dtype %d", (int)elem->dtype);
        return rc;
    }
    int32_t kind = kind_of_field(field);
    return parse_value(&ec, tmp, pb_sub(r, f, kind == KN_KIND_SEQUENCE ? &seq_desc : &opt_desc),
                       kind, depth + 1, tmp, elem, NULL);
}

static int32_t inner_dtype(const kn_tensor *elem)
{
    if (!kn_is_blob_dtype(elem->dtype))
        return elem->dtype;
    kn_blob_header h;
    kn_blob_read_header(elem, &h);
    return h.elem_dtype;
}

static int parse_value(kn_onnx_ctx *c, kn_bump *tmp, pb_reader r, int32_t kind, int depth,
                       kn_bump *dest, kn_tensor *out, const char **name_out)
{
    const char *msg = kind == KN_KIND_SEQUENCE ? "SequenceProto" : "OptionalProto";
    if (depth >= KN_BLOB_MAX_DEPTH)
        return kn_fail(c->err, KN_ERR_UNSUPPORTED, "%s nested deeper than %d", msg,
                       KN_BLOB_MAX_DEPTH);
    value_scan s;
    memset(&s, 0, sizeof s);
    s.name.p = "";
    int rc = scan_value(r, &s);
    if (rc != KN_OK)
        return rc;
    if ((rc = kn_onnx_check_name(c, s.name, "value name")) != KN_OK)
        return rc;
    const char *name = kn_onnx_strdup(c, s.name);
    if (!name)
        return c->err->code;
    int32_t field = 0;
    if ((rc = pick_field(c, &s, msg, name, &field)) != KN_OK)
        return rc;
    size_t n = field ? s.n[field] : 0;
    if (kind == KN_KIND_OPTIONAL && n > 1)
        return kn_fail(c->err, KN_ERR_INVALID_MODEL, "OptionalProto '%s' holds %zu values", name,
                       n);
    kn_tensor *elems = n ? kn_onnx_alloc(c, tmp, n, sizeof *elems, "sequence elements") : NULL;
    if (n && !elems)
        return c->err->code;

    pb_field f;
    int more;
    size_t k = 0;
    int64_t bytes = kn_blob_base_bytes((int64_t)n);
    while (rc == KN_OK && (more = pb_next(&r, &f)) > 0) {
        if ((int32_t)f.num != field || !field)
            continue;
        rc = parse_element(c, tmp, &r, &f, field, depth, &elems[k]);
        if (rc != KN_OK) {
            kn_onnx_prefix(c->err, "%s '%s' element %zu", msg, name, k);
            return rc;
        }
        if (elems[k].dtype != elems[0].dtype) /* ONNX sequences are homogeneous */
            return kn_fail(c->err, KN_ERR_INVALID_MODEL, "%s '%s' mixes element types %s and %s",
                           msg, name, kn_dtype_name(elems[0].dtype), kn_dtype_name(elems[k].dtype));
        bytes = kn_blob_add_bytes(bytes, kn_blob_payload_bytes(&elems[k]));
        k++;
    }
    if (rc != KN_OK)
        return rc;
    if (more < 0)
        return KN_ERR_INVALID_MODEL;
    if (bytes < 0 || (uint64_t)bytes > SIZE_MAX / 2)
        return kn_fail(c->err, KN_ERR_LIMIT, "%s '%s' is too large", msg, name);

    int32_t elem_kind = field ? kind_of_field(field)
                        : s.elem_type == ET_UNDEFINED ? KN_BLOB_KIND_UNKNOWN
                                                      : kind_of_field(field_of(s.elem_type));
    int32_t elem_dtype = n ? inner_dtype(&elems[0]) : KN_UNDEFINED;
    kn_tensor blob;
    memset(&blob, 0, sizeof blob);
    kn_blob_desc(&blob, kind == KN_KIND_SEQUENCE ? KN_SEQUENCE : KN_OPTIONAL, bytes);
    kn_onnx_ctx dc = *c;
    dc.bump = dest;
    if (!(blob.data = kn_onnx_alloc(&dc, dest, (size_t)bytes, 1, "a sequence value")))
        return c->err->code;
    kn_blob_writer w;
    rc = kn_blob_begin(&w, &blob, (int64_t)n, elem_kind, elem_dtype, c->err);
    for (size_t i = 0; rc == KN_OK && i < n; i++)
        rc = kn_blob_push(&w, &elems[i], c->err);
    if (rc == KN_OK)
        rc = kn_blob_end(&w, c->err);
    if (rc != KN_OK)
        return rc;
    *out = blob;
    if (name_out)
        *name_out = name;
    return KN_OK;
}

int kn_onnx_read_value(kn_bump *bump, const void *bytes, size_t size, int32_t kind,
                       kn_tensor *out, const char **name, kn_err *err)
{
    if (kind == KN_KIND_TENSOR)
        return kn_onnx_read_tensor(bump, bytes, size, out, name, err);
    if (!bump || !out || (!bytes && size))
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "kn_onnx_read_value: NULL argument");
    if (kind != KN_KIND_SEQUENCE && kind != KN_KIND_OPTIONAL)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "kn_onnx_read_value: unknown kind %d",
                       (int)kind);
    kn_err local = {0, {0}};
    kn_bump *tmp = kn_bump_create();
    if (!tmp)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory decoding a value");
    kn_onnx_ctx c = {bump, tmp, err ? err : &local, NULL, 0, 0, NULL, NULL};
    pb_reader r;
    pb_init(&r, bytes, size, kind == KN_KIND_SEQUENCE ? &seq_desc : &opt_desc, c.err);
    int rc = parse_value(&c, tmp, r, kind, 0, bump, out, name);
    kn_bump_destroy(tmp);
    return rc;
}
