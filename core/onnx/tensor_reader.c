/* TensorProto → kn_tensor. Two passes over the message: the first counts
 * dims and elements and finds the data, the second decodes into memory sized
 * from the dims only after the data present has been shown to match them. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "core/onnx/reader.h"

/* Gives back the whole pages inside [p, p + n) of a private file mapping
 * (see kn_onnx_read_mapped_model). Small tensors are not worth a call. */
static void drop_mapped_pages(const void *p, size_t n)
{
    if (n < ((size_t)1 << 20))
        return;
    const size_t page = 4096;
    uintptr_t lo = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
    uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)(page - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

enum {
    F_DIMS = 1, F_DATA_TYPE = 2, F_SEGMENT = 3, F_FLOAT = 4, F_INT32 = 5, F_STRING = 6,
    F_INT64 = 7, F_NAME = 8, F_RAW = 9, F_DOUBLE = 10, F_UINT64 = 11, F_EXTERNAL = 13,
    F_LOCATION = 14, F_COUNT = 15
};

static const char *const tensor_fields[] = {
    [F_DIMS] = "dims",           [F_DATA_TYPE] = "data_type", [F_SEGMENT] = "segment",
    [F_FLOAT] = "float_data",    [F_INT32] = "int32_data",    [F_STRING] = "string_data",
    [F_INT64] = "int64_data",    [F_NAME] = "name",           [F_RAW] = "raw_data",
    [F_DOUBLE] = "double_data",  [F_UINT64] = "uint64_data",  [12] = "doc_string",
    [F_EXTERNAL] = "external_data", [F_LOCATION] = "data_location"};
static const pb_msg_desc tensor_desc = PB_DESC("TensorProto", tensor_fields);

static const char *const entry_fields[] = {[1] = "key", [2] = "value"};
static const pb_msg_desc entry_desc = PB_DESC("StringStringEntryProto", entry_fields);

/* What the first pass learns. */
typedef struct tensor_scan {
    size_t n_dims;
    size_t n_typed[F_COUNT]; /* elements per typed data field, by field number */
    int has_raw, has_segment;
    pb_field raw;
    int32_t dtype, location;
    kn_onnx_str name;
} tensor_scan;

/* Where typed (non-raw) data of a dtype lives: which field, its wire type,
 * bytes per stored unit and units per element (2 for complex). */
typedef struct typed_layout {
    uint32_t field, wire, unit, per_elem;
} typed_layout;

static typed_layout layout_for(int32_t dtype)
{
    switch (dtype) {
    case KN_FLOAT: return (typed_layout){F_FLOAT, PB_FIXED32, 4, 1};
    case KN_COMPLEX64: return (typed_layout){F_FLOAT, PB_FIXED32, 4, 2};
    case KN_UINT8: case KN_INT8: case KN_BOOL:
    case KN_FLOAT8E4M3FN: case KN_FLOAT8E4M3FNUZ: case KN_FLOAT8E5M2: case KN_FLOAT8E5M2FNUZ:
    case KN_FLOAT8E8M0: /* float8: one byte pattern per int32_data value */
        return (typed_layout){F_INT32, PB_VARINT, 1, 1};
    case KN_UINT4: case KN_INT4: case KN_FLOAT4E2M1: case KN_UINT2: case KN_INT2:
        /* packed: one packed byte per int32_data value (per_elem 0: the
         * unit count is the tensor's byte count) */
        return (typed_layout){F_INT32, PB_VARINT, 1, 0};
    case KN_UINT16: case KN_INT16: case KN_FLOAT16: case KN_BFLOAT16:
        return (typed_layout){F_INT32, PB_VARINT, 2, 1};
    case KN_INT32: return (typed_layout){F_INT32, PB_VARINT, 4, 1};
    case KN_INT64: return (typed_layout){F_INT64, PB_VARINT, 8, 1};
    case KN_DOUBLE: return (typed_layout){F_DOUBLE, PB_FIXED64, 8, 1};
    case KN_COMPLEX128: return (typed_layout){F_DOUBLE, PB_FIXED64, 8, 2};
    case KN_UINT32: return (typed_layout){F_UINT64, PB_VARINT, 4, 1};
    case KN_UINT64: return (typed_layout){F_UINT64, PB_VARINT, 8, 1};
    default: return (typed_layout){0, 0, 0, 0};
    }
}

static int scan_tensor(pb_reader r, tensor_scan *s)
{
    pb_field f;
    int more;
    while ((more = pb_next(&r, &f)) > 0) {
        int rc = KN_OK;
        switch (f.num) {
        case F_DIMS: rc = pb_count(&r, &f, PB_VARINT, &s->n_dims); break;
        case F_DATA_TYPE: rc = pb_int32(&r, &f, &s->dtype); break;
        case F_SEGMENT: s->has_segment = 1; break;
        case F_FLOAT: rc = pb_count(&r, &f, PB_FIXED32, &s->n_typed[F_FLOAT]); break;
        case F_INT32:
        case F_INT64:
        case F_UINT64: rc = pb_count(&r, &f, PB_VARINT, &s->n_typed[f.num]); break;
        case F_DOUBLE: rc = pb_count(&r, &f, PB_FIXED64, &s->n_typed[F_DOUBLE]); break;
        case F_STRING:
            rc = pb_want(&r, &f, PB_LEN);
            s->n_typed[F_STRING]++;
            break;
        case F_NAME:
            rc = pb_want(&r, &f, PB_LEN);
            s->name = kn_onnx_field_str(&r, &f);
            break;
        case F_RAW:
            rc = pb_want(&r, &f, PB_LEN);
            s->has_raw = 1;
            s->raw = f;
            break;
        case F_EXTERNAL: rc = pb_want(&r, &f, PB_LEN); break;
        case F_LOCATION: rc = pb_int32(&r, &f, &s->location); break;
        default: break;
        }
        if (rc != KN_OK)
            return rc;
    }
    return more < 0 ? KN_ERR_INVALID_MODEL : KN_OK;
}

static int read_dims(pb_reader r, const char *name, kn_tensor *t)
{
    pb_field f;
    int more, k = 0;
    while ((more = pb_next(&r, &f)) > 0) {
        if (f.num != F_DIMS)
            continue;
        pb_iter it;
        uint64_t v;
        int got;
        if (pb_iter_begin(&r, &f, PB_VARINT, &it) != KN_OK)
            return KN_ERR_INVALID_MODEL;
        while ((got = pb_iter_next(&it, &v)) > 0) {
            if (k >= t->rank) /* cannot happen: pass 1 counted the same bytes */
                return kn_fail(r.err, KN_ERR_INTERNAL, "tensor '%s': dims changed", name);
            if ((int64_t)v < 0)
                return kn_fail(r.err, KN_ERR_INVALID_MODEL, "tensor '%s' has negative dim %lld",
                               name, (long long)(int64_t)v);
            t->dims[k++] = (int64_t)v;
        }
        if (got < 0)
            return KN_ERR_INVALID_MODEL;
    }
    return more < 0 ? KN_ERR_INVALID_MODEL : KN_OK;
}

static void store_le(uint8_t *p, uint64_t v, uint32_t unit)
{
    for (uint32_t i = 0; i < unit; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Converts the typed field's values to little-endian elements of the dtype's
 * width (int32_data holds narrower ints, bools and 16-bit float patterns). */
static int read_typed(pb_reader r, const char *name, int32_t dtype, typed_layout l,
                      size_t units, uint8_t *dst)
{
    pb_field f;
    size_t k = 0;
    int more;
    while ((more = pb_next(&r, &f)) > 0) {
        if (f.num != l.field)
            continue;
        pb_iter it;
        uint64_t v;
        int got;
        if (pb_iter_begin(&r, &f, l.wire, &it) != KN_OK)
            return KN_ERR_INVALID_MODEL;
        while ((got = pb_iter_next(&it, &v)) > 0) {
            if (k >= units)
                return kn_fail(r.err, KN_ERR_INTERNAL, "tensor '%s': data changed", name);
            store_le(dst + k * l.unit, dtype == KN_BOOL ? v != 0 : v, l.unit);
            k++;
        }
        if (got < 0)
            return KN_ERR_INVALID_MODEL;
    }
    if (more < 0)
        return KN_ERR_INVALID_MODEL;
    if (k != units)
        return kn_fail(r.err, KN_ERR_INTERNAL, "tensor '%s': data changed", name);
    return KN_OK;
}

static int read_external_info(pb_reader r, kn_onnx_external *ext)
{
    pb_field f;
    int more;
    while ((more = pb_next(&r, &f)) > 0) {
        if (f.num != F_EXTERNAL)
            continue;
        pb_reader e = pb_sub(&r, &f, &entry_desc);
        kn_onnx_str key = {"", 0}, value = {"", 0};
        pb_field ef;
        int emore;
        while ((emore = pb_next(&e, &ef)) > 0) {
            if (ef.num != 1 && ef.num != 2)
                continue;
            if (pb_want(&e, &ef, PB_LEN) != KN_OK)
                return KN_ERR_INVALID_MODEL;
            if (ef.num == 1)
                key = kn_onnx_field_str(&e, &ef);
            else
                value = kn_onnx_field_str(&e, &ef);
        }
        if (emore < 0)
            return KN_ERR_INVALID_MODEL;
        /* Other keys (checksum, basepath) carry nothing we need. */
        if (key.n == 8 && memcmp(key.p, "location", 8) == 0)
            ext->location = value;
        else if (key.n == 6 && memcmp(key.p, "offset", 6) == 0)
            ext->offset = value;
        else if (key.n == 6 && memcmp(key.p, "length", 6) == 0)
            ext->length = value;
    }
    return more < 0 ? KN_ERR_INVALID_MODEL : KN_OK;
}

/* string_data → numel refs followed by their bytes, all in the bump. The
 * first pass counted the entries; their lengths are bounded by the
 * message, so the byte total cannot overflow. */
static int read_strings(kn_onnx_ctx *c, pb_reader r, const char *name, int64_t numel,
                        void **data)
{
    pb_field f;
    int more;
    size_t chars = 0;
    pb_reader r2 = r;
    while ((more = pb_next(&r2, &f)) > 0)
        if (f.num == F_STRING)
            chars += f.len;
    if (more < 0)
        return KN_ERR_INVALID_MODEL;
    size_t refs = (size_t)numel * sizeof(kn_string);
    unsigned char *base = kn_onnx_alloc(c, c->bump, refs + chars, 1, "string tensor data");
    if (!base)
        return c->err->code;
    kn_string *out = (kn_string *)(void *)base;
    char *p = (char *)base + refs;
    int64_t i = 0;
    while ((more = pb_next(&r, &f)) > 0) {
        if (f.num != F_STRING)
            continue;
        if (i >= numel) /* cannot happen: pass 1 counted the same entries */
            return kn_fail(r.err, KN_ERR_INTERNAL, "tensor '%s': string_data changed", name);
        if (f.len)
            memcpy(p, pb_data(&r, &f), f.len);
        out[i].ptr = p;
        out[i].len = (int64_t)f.len;
        p += f.len;
        i++;
    }
    if (more < 0)
        return KN_ERR_INVALID_MODEL;
    *data = base;
    return KN_OK;
}

static const char *data_field_names(const tensor_scan *s, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = 0;
    for (uint32_t fld = 1; fld < F_COUNT; fld++) {
        int present = fld == F_RAW ? s->has_raw : fld == F_EXTERNAL ? s->location == 1
                                                                     : s->n_typed[fld] > 0;
        if (present && used < cap) {
            const char *nm = fld == F_EXTERNAL ? "external data" : tensor_fields[fld];
            size_t len = strlen(nm);
            if (used + len + 3 > cap)
                break;
            if (used) {
                memcpy(buf + used, ", ", 2);
                used += 2;
            }
            memcpy(buf + used, nm, len + 1);
            used += len;
        }
    }
    return buf;
}

static int check_header(kn_onnx_ctx *c, const tensor_scan *s, const char *name)
{
    if (s->has_segment)
        return kn_fail(c->err, KN_ERR_UNSUPPORTED, "tensor '%s' is segmented, which is not supported",
                       name);
    if (s->dtype != KN_STRING && s->n_typed[F_STRING])
        return kn_fail(c->err, KN_ERR_INVALID_MODEL,
                       "tensor '%s' of type %s stores its data in string_data", name,
                       kn_dtype_name(s->dtype));
    if (s->dtype == KN_STRING && (s->has_raw || s->location == 1))
        return kn_fail(c->err, KN_ERR_INVALID_MODEL,
                       "tensor '%s': a string tensor keeps its data in string_data", name);
    if (s->dtype == KN_UNDEFINED)
        return kn_fail(c->err, KN_ERR_INVALID_MODEL, "tensor '%s' has no data_type", name);
    /* >= KN_DTYPE_COUNT: also the pseudo dtypes of sequence and optional
     * blobs, which a file must never be able to forge. */
    if (kn_dtype_bits(s->dtype) == 0 || s->dtype < 0 || s->dtype >= KN_DTYPE_COUNT)
        return kn_fail(c->err, KN_ERR_UNSUPPORTED, "tensor '%s' has unsupported data_type %d",
                       name, (int)s->dtype);
    if (s->n_dims > KN_MAX_RANK)
        return kn_fail(c->err, KN_ERR_UNSUPPORTED,
                       "tensor '%s' has rank %zu; at most %d dimensions are supported", name,
                       s->n_dims, KN_MAX_RANK);
    if (s->location != 0 && s->location != 1)
        return kn_fail(c->err, KN_ERR_INVALID_MODEL, "tensor '%s' has unknown data_location %d",
                       name, (int)s->location);
    return KN_OK;
}

static int parse_tensor_reader(kn_onnx_ctx *c, pb_reader r, kn_tensor *out, const char **name_out)
{
    tensor_scan s;
    memset(&s, 0, sizeof s);
    s.name.p = "";
    int rc = scan_tensor(r, &s);
    if (rc != KN_OK)
        return rc;
    const char *name = kn_onnx_strdup(c, s.name);
    if (!name)
        return c->err->code;
    if ((rc = check_header(c, &s, name)) != KN_OK)
        return rc;

    kn_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = s.dtype;
    t.rank = (int32_t)s.n_dims;
    t.location = KN_LOC_HOST;
    if ((rc = read_dims(r, name, &t)) != KN_OK)
        return rc;
    int64_t numel = kn_shape_numel(t.dims, t.rank);
    int64_t nbytes = kn_shape_nbytes(t.dtype, t.dims, t.rank);
    if (numel < 0 || nbytes < 0)
        return kn_fail(c->err, KN_ERR_INVALID_MODEL,
                       "tensor '%s': the element count of its dims overflows", name);
    if ((uint64_t)nbytes > SIZE_MAX / 2) /* only reachable with a 32-bit size_t (wasm32) */
        return kn_fail(c->err, KN_ERR_LIMIT, "tensor '%s' needs %lld bytes, more than this "
                       "platform can address", name, (long long)nbytes);

    int sources = s.has_raw + (s.location == 1);
    uint32_t typed_field = 0;
    for (uint32_t fld = 1; fld < F_COUNT; fld++)
        if (fld != F_STRING && s.n_typed[fld]) {
            sources++;
            typed_field = fld;
        }
    if (sources > 1) {
        char list[128];
        return kn_fail(c->err, KN_ERR_INVALID_MODEL, "tensor '%s' holds data in more than one "
                       "field (%s)", name, data_field_names(&s, list, sizeof list));
    }

    void *data = NULL;
    if (t.dtype == KN_STRING) {
        if (s.n_typed[F_STRING] != (size_t)numel)
            return kn_fail(c->err, KN_ERR_INVALID_MODEL,
                           "tensor '%s': string_data has %zu values, but its dims need %lld",
                           name, s.n_typed[F_STRING], (long long)numel);
        if ((rc = read_strings(c, r, name, numel, &data)) != KN_OK)
            return rc;
    } else if (s.location == 1) {
        kn_onnx_external ext;
        memset(&ext, 0, sizeof ext);
        if ((rc = read_external_info(r, &ext)) != KN_OK)
            return rc;
        if ((rc = kn_onnx_load_external(c, name, &ext, (size_t)nbytes, &data)) != KN_OK)
            return rc;
    } else if (s.has_raw) {
        if (s.raw.len != (size_t)nbytes)
            return kn_fail(c->err, KN_ERR_INVALID_MODEL,
                           "tensor '%s': raw_data has %zu bytes, but %lld %s elements need %lld",
                           name, s.raw.len, (long long)numel, kn_dtype_name(t.dtype),
                           (long long)nbytes);
        if (!(data = kn_onnx_alloc(c, c->bump, (size_t)nbytes, 1, "tensor data")))
            return c->err->code;
        if (nbytes)
            memcpy(data, pb_data(&r, &s.raw), (size_t)nbytes);
        if (c->source_mapped) {
            const unsigned char *at = (const unsigned char *)pb_data(&r, &s.raw);
            if (c->spans && c->source_base && nbytes >= ((int64_t)1 << 20)) {
                kn_file_span *span = kn_onnx_alloc(c, c->bump, 1, sizeof *span, "tensor data");
                if (!span)
                    return c->err->code;
                span->data = data;
                span->offset = (int64_t)(at - c->source_base);
                span->nbytes = nbytes;
                span->next = *c->spans;
                *c->spans = span;
            }
            drop_mapped_pages(at, (size_t)nbytes);
        }
    } else if (typed_field) {
        typed_layout l = layout_for(t.dtype);
        if (l.field != typed_field)
            return kn_fail(c->err, KN_ERR_INVALID_MODEL,
                           "tensor '%s' of type %s stores its data in %s", name,
                           kn_dtype_name(t.dtype), tensor_fields[typed_field]);
        /* nbytes did not overflow */
        uint64_t units = l.per_elem ? (uint64_t)numel * l.per_elem : (uint64_t)nbytes;
        if (s.n_typed[typed_field] != units)
            return kn_fail(c->err, KN_ERR_INVALID_MODEL,
                           "tensor '%s': %s has %zu values, but its dims need %llu", name,
                           tensor_fields[typed_field], s.n_typed[typed_field],
                           (unsigned long long)units);
        if (!(data = kn_onnx_alloc(c, c->bump, (size_t)nbytes, 1, "tensor data")))
            return c->err->code;
        if ((rc = read_typed(r, name, t.dtype, l, (size_t)units, data)) != KN_OK)
            return rc;
    } else {
        if (numel != 0)
            return kn_fail(c->err, KN_ERR_INVALID_MODEL,
                           "tensor '%s' has %lld elements but no data", name, (long long)numel);
        if (!(data = kn_onnx_alloc(c, c->bump, 0, 1, "tensor data")))
            return c->err->code;
    }
    t.data = data;
    *out = t;
    if (name_out)
        *name_out = name;
    return KN_OK;
}

int kn_onnx_parse_tensor(kn_onnx_ctx *c, const pb_reader *r, const pb_field *f, kn_tensor *out,
                         const char **name)
{
    int rc = pb_want(r, f, PB_LEN);
    if (rc != KN_OK)
        return rc;
    return parse_tensor_reader(c, pb_sub(r, f, &tensor_desc), out, name);
}

int kn_onnx_parse_tensor_bytes(kn_onnx_ctx *c, const void *bytes, size_t size, kn_tensor *out,
                               const char **name)
{
    pb_reader r;
    pb_init(&r, bytes, size, &tensor_desc, c->err);
    return parse_tensor_reader(c, r, out, name);
}

int kn_onnx_read_tensor(kn_bump *bump, const void *bytes, size_t size, kn_tensor *out,
                        const char **name, kn_err *err)
{
    if (!bump || !out || (!bytes && size))
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "kn_onnx_read_tensor: NULL argument");
    kn_err local = {0, {0}};
    kn_onnx_ctx c = {bump, NULL, err ? err : &local, NULL, 0, 0, NULL, NULL};
    return kn_onnx_parse_tensor_bytes(&c, bytes, size, out, name);
}
