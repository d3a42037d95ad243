/* Kernels over string tensors (kn_string refs, see core/ir/tensor.h): Cast to
 * and from STRING (for cast.c), StringNormalizer, StringConcat and
 * StringSplit. Every kernel that creates strings needs its inputs' values
 * at prepare (KN_ERR_NEEDS_VALUE otherwise), so it only ever runs eagerly
 * or folded, and allocates the bytes from the plan with engine_api->alloc. */
#include "core/cpu/text/string_ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel/tensor_common.h"

/* ---- helpers ---- */

static int need_value(kn_kctx *k, int32_t idx)
{
    const kn_tensor *t = kn_input(k, idx);
    if (t && !t->data)
        return kn_fail(k->err, KN_ERR_NEEDS_VALUE, "%s creates strings: input %d must be known",
                       k->node->op_type, (int)idx);
    return KN_OK;
}

static int need_string(kn_kctx *k, int32_t idx)
{
    const kn_tensor *t = kn_input(k, idx);
    if (!t || t->dtype != KN_STRING)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: input %d must be a string tensor, got %s",
                       k->node->op_type, (int)idx, t ? kn_dtype_name(t->dtype) : "none");
    return KN_OK;
}

static char *alloc_chars(kn_kctx *k, int64_t n)
{
    if (!k->engine_api || !k->engine_api->alloc) {
        kn_fail(k->err, KN_ERR_INTERNAL, "%s: no engine to allocate strings", k->node->op_type);
        return NULL;
    }
    if (n < 0 || (uint64_t)n > SIZE_MAX / 2) {
        kn_fail(k->err, KN_ERR_LIMIT, "%s: strings are too large", k->node->op_type);
        return NULL;
    }
    char *p = k->engine_api->alloc(k->engine, (size_t)n);
    if (!p)
        kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory for strings", k->node->op_type);
    return p;
}

/* ---- Cast ---- */

#define NUM_TEXT 40 /* longest number text, with room */

/* numpy's str(): the shortest %g that reads back as the same value, with
 * ".0" added to whole numbers; NaN, INF, -INF as ONNX's test data has them. */
static int float_text(double v, int32_t dtype, char *buf)
{
    if (isnan(v))
        return snprintf(buf, NUM_TEXT, "NaN");
    if (isinf(v))
        return snprintf(buf, NUM_TEXT, v < 0 ? "-INF" : "INF");
    int max = dtype == KN_DOUBLE ? 17 : 9;
    for (int p = 1; p <= max; p++) {
        snprintf(buf, NUM_TEXT, "%.*g", p, v);
        int same;
        if (dtype == KN_DOUBLE)
            same = strtod(buf, NULL) == v;
        else if (dtype == KN_FLOAT16)
            same = kn_f32_to_f16(strtof(buf, NULL)) == kn_f32_to_f16((float)v);
        else if (dtype == KN_BFLOAT16)
            same = kn_f32_to_bf16(strtof(buf, NULL)) == kn_f32_to_bf16((float)v);
        else
            same = strtof(buf, NULL) == (float)v;
        if (same)
            break;
    }
    if (!strpbrk(buf, ".eni"))
        strcat(buf, ".0");
    return (int)strlen(buf);
}

static int number_text(const kn_tensor *t, int64_t i, char *buf)
{
    switch (t->dtype) {
    case KN_FLOAT: return float_text(((const float *)t->data)[i], KN_FLOAT, buf);
    case KN_DOUBLE: return float_text(((const double *)t->data)[i], KN_DOUBLE, buf);
    case KN_FLOAT16:
        return float_text(kn_f16_to_f32(((const uint16_t *)t->data)[i]), KN_FLOAT16, buf);
    case KN_BFLOAT16:
        return float_text(kn_bf16_to_f32(((const uint16_t *)t->data)[i]), KN_BFLOAT16, buf);
    case KN_BOOL: return snprintf(buf, NUM_TEXT, ((const uint8_t *)t->data)[i] ? "True" : "False");
    case KN_UINT64:
        return snprintf(buf, NUM_TEXT, "%llu",
                        (unsigned long long)((const uint64_t *)t->data)[i]);
    default: return snprintf(buf, NUM_TEXT, "%lld", (long long)kn_read_int(t, i));
    }
}

static int cast_string_ok(int32_t dt)
{
    return kn_convert_supported(dt) && dt != KN_STRING;
}

int kn_cast_string_prepare(kn_kctx *k, int32_t to)
{
    const kn_tensor *in = k->in[0];
    int32_t other = in->dtype == KN_STRING ? to : in->dtype;
    if (other != KN_STRING && !cast_string_ok(other))
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: %s to %s is not supported",
                       k->node->op_type, kn_dtype_name(in->dtype), kn_dtype_name(to));
    if (to == KN_STRING && in->dtype != KN_STRING && need_value(k, 0) != KN_OK)
        return k->err->code;
    kn_copy_desc(k->out[0], in);
    k->out[0]->dtype = to;
    return KN_OK;
}

/* One string as a number of dtype `to`, stored in element i of dst. */
static void parse_number(const kn_string *s, int32_t to, void *dst, int64_t i)
{
    char small[64], *buf = small;
    if (s->len >= (int64_t)sizeof small && !(buf = malloc((size_t)s->len + 1)))
        buf = small; /* out of memory: parse the first bytes only */
    size_t n = buf == small && s->len >= (int64_t)sizeof small ? sizeof small - 1 : (size_t)s->len;
    if (n)
        memcpy(buf, s->ptr, n);
    buf[n] = 0;
    if (to == KN_FLOAT || to == KN_FLOAT16 || to == KN_BFLOAT16 || to == KN_DOUBLE) {
        double d = to == KN_DOUBLE ? strtod(buf, NULL) : (double)strtof(buf, NULL);
        kn_convert_span(KN_DOUBLE, &d, 0, to, dst, i, 1, 1, KN_E8M0_ROUND_UP);
    } else {
        char *end = NULL;
        int64_t v;
        if (to == KN_UINT64 || to == KN_UINT32 || to == KN_UINT16 || to == KN_UINT8)
            v = (int64_t)strtoull(buf, &end, 10);
        else
            v = strtoll(buf, &end, 10);
        if (end == buf || *end) { /* "1.5", "True" */
            if (strcmp(buf, "True") == 0 || strcmp(buf, "true") == 0)
                v = 1;
            else {
                double d = strtod(buf, NULL);
                kn_convert_span(KN_DOUBLE, &d, 0, to, dst, i, 1, 1, KN_E8M0_ROUND_UP);
                goto done;
            }
        }
        kn_convert_span(KN_INT64, &v, 0, to, dst, i, 1, 1, KN_E8M0_ROUND_UP);
    }
done:
    if (buf != small)
        free(buf);
}

int kn_cast_string_run(kn_kctx *k)
{
    const kn_tensor *in = k->in[0];
    kn_tensor *out = k->out[0];
    int64_t n = kn_tensor_numel(out);
    if (in->dtype == KN_STRING && out->dtype == KN_STRING) {
        memcpy(out->data, in->data, (size_t)n * sizeof(kn_string));
        return KN_OK;
    }
    if (in->dtype == KN_STRING) {
        for (int64_t i = 0; i < n; i++)
            parse_number(&((const kn_string *)in->data)[i], out->dtype, out->data, i);
        return KN_OK;
    }
    char *chars = alloc_chars(k, n * NUM_TEXT);
    if (!chars)
        return k->err->code;
    kn_string *dst = out->data;
    for (int64_t i = 0; i < n; i++) {
        char *p = chars + i * NUM_TEXT;
        int len = number_text(in, i, p);
        dst[i].ptr = p;
        dst[i].len = len;
    }
    return KN_OK;
}

/* ---- StringNormalizer (opset 10) ---- */

typedef struct strnorm {
    int action; /* 0 none, 1 lower, 2 upper */
    int case_sensitive;
    const kn_attr *stop;
} strnorm;

static int ascii_lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }
static int ascii_upper(int c) { return c >= 'a' && c <= 'z' ? c - 32 : c; }

static int strnorm_read(kn_kctx *k, strnorm *m)
{
    const char *a = kn_attr_string(k->node, "case_change_action", "NONE");
    m->action = strcmp(a, "LOWER") == 0 ? 1 : strcmp(a, "UPPER") == 0 ? 2 : 0;
    if (m->action == 0 && strcmp(a, "NONE") != 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "StringNormalizer: case_change_action '%s' "
                       "is not LOWER, UPPER or NONE", a);
    m->case_sensitive = kn_attr_int(k->node, "is_case_sensitive", 0) != 0;
    m->stop = kn_node_attr(k->node, "stopwords");
    if (m->stop && m->stop->type != KN_ATTR_STRINGS)
        m->stop = NULL;
    return KN_OK;
}

static int is_stopword(const strnorm *m, const kn_string *s)
{
    for (int32_t w = 0; m->stop && w < m->stop->count; w++) {
        const char *sw = m->stop->strings[w];
        size_t len = strlen(sw);
        if ((int64_t)len != s->len)
            continue;
        size_t j = 0;
        if (m->case_sensitive)
            j = len && memcmp(sw, s->ptr, len) == 0 ? len : (len ? 0 : len);
        else
            while (j < len && ascii_lower((unsigned char)sw[j]) ==
                                  ascii_lower((unsigned char)s->ptr[j]))
                j++;
        if (j == len)
            return 1;
    }
    return 0;
}

static int strnorm_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK || need_string(k, 0) != KN_OK ||
        need_value(k, 0) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    if (!(x->rank == 1 || (x->rank == 2 && x->dims[0] == 1)))
        return kn_fail(k->err, KN_ERR_SHAPE, "StringNormalizer: input must be [C] or [1, C]");
    strnorm m;
    if (strnorm_read(k, &m) != KN_OK)
        return k->err->code;
    int64_t n = kn_tensor_numel(x), kept = 0;
    for (int64_t i = 0; i < n; i++)
        kept += !is_stopword(&m, &((const kn_string *)x->data)[i]);
    kn_tensor *y = k->out[0];
    y->dtype = KN_STRING;
    y->rank = x->rank;
    y->dims[0] = x->rank == 2 ? 1 : (kept ? kept : 1);
    if (x->rank == 2)
        y->dims[1] = kept ? kept : 1;
    return KN_OK;
}

static int strnorm_run(kn_kctx *k)
{
    const kn_tensor *x = k->in[0];
    strnorm m;
    if (strnorm_read(k, &m) != KN_OK)
        return k->err->code;
    const kn_string *src = x->data;
    kn_string *dst = k->out[0]->data;
    int64_t n = kn_tensor_numel(x), kept = 0;
    int64_t total = kn_strings_bytes(src, n);
    char *chars = alloc_chars(k, total);
    if (!chars)
        return k->err->code;
    for (int64_t i = 0; i < n; i++) {
        if (is_stopword(&m, &src[i]))
            continue;
        for (int64_t j = 0; j < src[i].len; j++) {
            int c = (unsigned char)src[i].ptr[j];
            chars[j] = (char)(m.action == 1 ? ascii_lower(c) : m.action == 2 ? ascii_upper(c) : c);
        }
        dst[kept].ptr = chars;
        dst[kept].len = src[i].len;
        chars += src[i].len;
        kept++;
    }
    if (!kept) {
        dst[0].ptr = chars;
        dst[0].len = 0;
    }
    return KN_OK;
}

/* ---- StringConcat (opset 20): elementwise with broadcasting ---- */

/* Linear index into t of output element `o` (row-major over out's dims),
 * with t's dims right-aligned and broadcast. */
static int64_t bcast_index(const kn_tensor *t, const kn_tensor *out, int64_t o)
{
    int64_t idx = 0, stride = 1;
    for (int32_t d = out->rank - 1; d >= 0; d--) {
        int64_t c = o % out->dims[d];
        o /= out->dims[d];
        int32_t td = d - (out->rank - t->rank);
        if (td < 0)
            break;
        if (t->dims[td] != 1)
            idx += c * stride;
        stride *= t->dims[td];
    }
    return idx;
}

static int concat_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK || need_string(k, 0) != KN_OK ||
        need_string(k, 1) != KN_OK || need_value(k, 0) != KN_OK || need_value(k, 1) != KN_OK)
        return k->err->code;
    if (kn_broadcast_shape(k->in[0], k->in[1], k->out[0], k->err) != KN_OK)
        return k->err->code;
    k->out[0]->dtype = KN_STRING;
    return KN_OK;
}

static int concat_run(kn_kctx *k)
{
    const kn_tensor *a = k->in[0], *b = k->in[1];
    kn_tensor *y = k->out[0];
    int64_t n = kn_tensor_numel(y), total = 0;
    const kn_string *sa = a->data, *sb = b->data;
    for (int64_t i = 0; i < n; i++) {
        int64_t len = sa[bcast_index(a, y, i)].len + sb[bcast_index(b, y, i)].len;
        if (len < 0 || total > INT64_MAX / 2 - len)
            return kn_fail(k->err, KN_ERR_LIMIT, "StringConcat: strings are too large");
        total += len;
    }
    char *chars = alloc_chars(k, total);
    if (!chars)
        return k->err->code;
    kn_string *dst = y->data;
    for (int64_t i = 0; i < n; i++) {
        const kn_string *x1 = &sa[bcast_index(a, y, i)], *x2 = &sb[bcast_index(b, y, i)];
        dst[i].ptr = chars;
        if (x1->len)
            memcpy(chars, x1->ptr, (size_t)x1->len);
        if (x2->len)
            memcpy(chars + x1->len, x2->ptr, (size_t)x2->len);
        dst[i].len = x1->len + x2->len;
        chars += dst[i].len;
    }
    return KN_OK;
}

/* ---- StringSplit (opset 20): Python's str.split(delimiter, maxsplit) ---- */

static int is_space(int c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* Splits s; calls back with each piece when pieces is not NULL; returns the
 * number of pieces. */
static int64_t split_one(const kn_string *s, const char *delim, size_t dlen, int64_t maxsplit,
                         kn_string *pieces)
{
    int64_t count = 0;
    const char *p = s->ptr, *end = s->ptr + s->len;
    if (dlen) {
        const char *start = p;
        while (p + dlen <= end && (maxsplit < 0 || count < maxsplit)) {
            if (memcmp(p, delim, dlen) == 0) {
                if (pieces)
                    pieces[count] = (kn_string){start, p - start};
                count++;
                p += dlen;
                start = p;
            } else {
                p++;
            }
        }
        if (pieces)
            pieces[count] = (kn_string){start, end - start};
        return count + 1;
    }
    while (p < end) {
        while (p < end && is_space((unsigned char)*p))
            p++;
        if (p == end)
            break;
        const char *start = p;
        if (maxsplit >= 0 && count >= maxsplit) {
            p = end;
        } else {
            while (p < end && !is_space((unsigned char)*p))
                p++;
        }
        if (pieces)
            pieces[count] = (kn_string){start, p - start};
        count++;
    }
    return count;
}

static int split_attrs(kn_kctx *k, const char **delim, size_t *dlen, int64_t *maxsplit)
{
    const kn_attr *d = kn_node_attr(k->node, "delimiter");
    *delim = d && d->type == KN_ATTR_STRING && d->s ? d->s : "";
    *dlen = d && d->type == KN_ATTR_STRING && d->s ? (size_t)d->s_len : 0;
    const kn_attr *m = kn_node_attr(k->node, "maxsplit");
    *maxsplit = m && m->type == KN_ATTR_INT ? m->i : -1;
    if (*maxsplit < 0)
        *maxsplit = -1;
    return KN_OK;
}

static int split_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK || need_string(k, 0) != KN_OK || need_value(k, 0) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    if (x->rank >= KN_MAX_RANK)
        return kn_fail(k->err, KN_ERR_SHAPE, "StringSplit: input rank %d is too large",
                       (int)x->rank);
    const char *delim;
    size_t dlen;
    int64_t maxsplit, most = 0, n = kn_tensor_numel(x);
    split_attrs(k, &delim, &dlen, &maxsplit);
    for (int64_t i = 0; i < n; i++) {
        int64_t c = split_one(&((const kn_string *)x->data)[i], delim, dlen, maxsplit, NULL);
        most = c > most ? c : most;
    }
    kn_tensor *y = k->out[0];
    kn_copy_desc(y, x);
    y->dtype = KN_STRING;
    y->dims[y->rank++] = most;
    kn_tensor *z = kn_output(k, 1);
    if (z) {
        kn_copy_desc(z, x);
        z->dtype = KN_INT64;
    }
    return KN_OK;
}

static int split_run(kn_kctx *k)
{
    const kn_tensor *x = k->in[0];
    kn_tensor *y = k->out[0], *z = kn_output(k, 1);
    const char *delim;
    size_t dlen;
    int64_t maxsplit, n = kn_tensor_numel(x), most = y->dims[y->rank - 1];
    split_attrs(k, &delim, &dlen, &maxsplit);
    kn_string *dst = y->data;
    for (int64_t i = 0; i < n; i++) {
        kn_string *row = dst + i * most;
        int64_t c = split_one(&((const kn_string *)x->data)[i], delim, dlen, maxsplit, row);
        for (int64_t j = c; j < most; j++)
            row[j] = (kn_string){"", 0};
        if (z)
            ((int64_t *)z->data)[i] = c;
    }
    return KN_OK;
}

const kn_op_def kn_op_StringNormalizer = {
    .op_type = "StringNormalizer", .since_version = 10, .dtypes = KN_BIT(KN_STRING),
    .prepare = strnorm_prepare, .run = strnorm_run
};
const kn_op_def kn_op_StringConcat = {
    .op_type = "StringConcat", .since_version = 20, .dtypes = KN_BIT(KN_STRING),
    .prepare = concat_prepare, .run = concat_run
};
const kn_op_def kn_op_StringSplit = {
    .op_type = "StringSplit", .since_version = 20, .dtypes = KN_BIT(KN_STRING),
    .prepare = split_prepare, .run = split_run
};
