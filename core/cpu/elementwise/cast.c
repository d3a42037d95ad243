/* Cast and CastLike between all numeric dtypes, bool, float16, bfloat16,
 * the float8 formats and the packed 4- and 2-bit types (packed.h). The
 * conversion itself is kn_convert_span (tensor_common.c), which goes
 * through int64 or double so one load and one store per dtype cover every
 * pair instead of a loop per pair. Opset 19 adds
 * `saturate` (float8 destinations: clamp out-of-range values, the default,
 * or give inf/NaN) and opset 24 `round_mode` (E8M0 destinations). To the
 * packed integer types values wrap like every integer Cast; to FLOAT4E2M1
 * they always saturate (it has no inf or NaN). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/kernel/packed.h"
#include "core/cpu/text/string_ops.h"
#include "core/kernel/tensor_common.h"

/* Cast-1 names the type as a string ("FLOAT", "INT64", ...); later opsets
 * give the TensorProto number. */
static int32_t target_dtype(const kn_kctx *k)
{
    const kn_attr *a = kn_node_attr(k->node, "to");
    if (!a)
        return KN_UNDEFINED;
    if (a->type == KN_ATTR_INT)
        /* an unknown or unsupported number is refused by cast_to, by number */
        return a->i > 0 && a->i <= INT32_MAX ? (int32_t)a->i : KN_UNDEFINED;
    if (a->type == KN_ATTR_STRING && a->s) {
        for (int32_t d = 1; d < KN_DTYPE_COUNT; d++)
            if (strcasecmp(a->s, kn_dtype_name(d)) == 0)
                return d;
        if (strcasecmp(a->s, "BFLOAT16") == 0)
            return KN_BFLOAT16;
    }
    return KN_UNDEFINED;
}

/* Cast's float8 attributes, checked by prepare and read again by run. */
typedef struct cast_mode {
    int saturate;
    int e8m0_round; /* KN_E8M0_ROUND_* */
} cast_mode;

static int read_mode(const kn_kctx *k, cast_mode *m)
{
    int64_t sat = kn_attr_int(k->node, "saturate", 1);
    const char *round = kn_attr_string(k->node, "round_mode", "up");
    m->saturate = sat != 0;
    if (strcmp(round, "up") == 0)
        m->e8m0_round = KN_E8M0_ROUND_UP;
    else if (strcmp(round, "down") == 0)
        m->e8m0_round = KN_E8M0_ROUND_DOWN;
    else if (strcmp(round, "nearest") == 0)
        m->e8m0_round = KN_E8M0_ROUND_NEAREST;
    else
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "%s: round_mode '%s' is not one of up, down, nearest", k->node->op_type,
                       round);
    if (sat != 0 && sat != 1)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: saturate must be 0 or 1, not %lld",
                       k->node->op_type, (long long)sat);
    return KN_OK;
}

static const char *type_text(int32_t dt, char *buf, size_t cap)
{
    if (kn_dtype_bits(dt) != 0 || dt == KN_STRING)
        return kn_dtype_name(dt);
    snprintf(buf, cap, "element type %d", (int)dt);
    return buf;
}

static int cast_to(kn_kctx *k, int32_t to)
{
    const kn_tensor *in = k->in[0];
    if (in->dtype == KN_STRING || to == KN_STRING)
        return kn_cast_string_prepare(k, to);
    if (!kn_cast_supported(in->dtype) || !kn_cast_supported(to)) {
        char a[32], b[32];
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: %s to %s is not supported",
                       k->node->op_type, type_text(in->dtype, a, sizeof a),
                       type_text(to, b, sizeof b));
    }
    cast_mode m;
    if (read_mode(k, &m) != KN_OK)
        return k->err->code;
    kn_copy_desc(k->out[0], in);
    k->out[0]->dtype = to;
    return KN_OK;
}

static int cast_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    int32_t to = target_dtype(k);
    if (to == KN_UNDEFINED)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Cast: attribute 'to' is missing or invalid");
    return cast_to(k, to);
}

static int castlike_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *like = kn_input(k, 1);
    if (!like)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "CastLike: input 'target_type' is missing");
    return cast_to(k, like->dtype);
}

typedef struct cast_job {
    int32_t from, to;
    const char *src;
    char *dst;
    cast_mode mode;
    int64_t numel, per; /* elements; per: elements per unit of work */
} cast_job;

/* [begin, end) counts groups of `per` elements, whole bytes of a packed
 * destination, so no two threads write into one byte. */
static void cast_range(void *ctx, int64_t begin, int64_t end)
{
    const cast_job *j = ctx;
    int64_t first = begin * j->per, last = end * j->per;
    last = last < j->numel ? last : j->numel;
    kn_convert_span(j->from, j->src, first, j->to, j->dst, first, last - first, j->mode.saturate,
                    j->mode.e8m0_round);
}

static int cast_run(kn_kctx *k)
{
    const kn_tensor *in = k->in[0];
    kn_tensor *out = k->out[0];
    if (in->dtype == KN_STRING || out->dtype == KN_STRING)
        return kn_cast_string_run(k);
    int64_t numel = kn_tensor_numel(out), per = kn_packed_per_byte(out->dtype);
    cast_job job = {in->dtype, out->dtype, in->data, out->data, {1, KN_E8M0_ROUND_UP}, numel, per};
    if (read_mode(k, &job.mode) != KN_OK) /* prepare checked it already */
        return k->err->code;
    kn_parallel_for(k->threads, (numel + per - 1) / per, KN_GRAIN / per, cast_range, &job);
    kn_packed_clear_tail(out->dtype, out->data, numel);
    return KN_OK;
}

const kn_op_def kn_op_Cast = {
    .op_type = "Cast", .since_version = 1, .flags = KN_OP_PACKED, .prepare = cast_prepare,
    .run = cast_run
};
const kn_op_def kn_op_CastLike = {
    .op_type = "CastLike", .since_version = 15, .flags = KN_OP_PACKED,
    .prepare = castlike_prepare, .run = cast_run
};
