/* The malformed corpus: inputs derived deterministically from seed models
 * and tensors of ONNX's test data plus synthetic graphs, each of which must
 * give an error with a message (or load harmlessly and pass the IR
 * invariants) — never a crash, hang, leak or huge allocation. ASan, UBSan
 * and valgrind (KILN_READER_QUICK=1 for a smaller corpus) do the watching.
 *
 * Mutations: every truncation length (sampled for big files), seeded bit
 * flips, byte overwrites and splices, and structural rewrites at each field
 * found by walking the protobuf structure: other wire types, oversized and
 * over-long length varints, over-long and extreme varint values. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_support.h"

static const char *const seed_models[] = {
    "node/test_conv_with_strides_padding", "node/test_if", "node/test_loop11",
    "node/test_scan9_sum", "node/test_constant", "node/test_gru_defaults",
    "node/test_lstm_with_peepholes", "node/test_resize_upsample_scales_linear",
    "node/test_cast_FLOAT_to_FLOAT16", "node/test_sequence_insert_at_back",
    "node/test_optional_get_element_sequence",
    "node/test_range_float_type_positive_delta_expanded", "node/test_adagrad",
    "node/test_loop16_seq_none", "node/test_if_opt", "node/test_split_variable_parts_1d",
    "pytorch-converted/test_Conv2d", "pytorch-converted/test_BatchNorm2d_eval",
    "pytorch-operator/test_operator_conv", "simple/test_expand_shape_model1"};

static const char *const seed_tensors[] = {
    "pytorch-converted/test_Conv2d/test_data_set_0/input_0.pb",
    "node/test_cast_FLOAT_to_FLOAT16/test_data_set_0/output_0.pb",
    "node/test_constantofshape_int_zeros/test_data_set_0/input_0.pb",
    "node/test_sequence_insert_at_back/test_data_set_0/input_0.pb"};

typedef struct corpus {
    long cases, errors, loaded;
    int tensors;        /* inputs are TensorProtos, not models */
    const char *seed;   /* what is running, for a failure's message */
    const char *kind;
    size_t pos;
    uint64_t rng;
} corpus;

static uint64_t rnd(corpus *c)
{
    c->rng ^= c->rng << 13; /* xorshift64: deterministic across platforms */
    c->rng ^= c->rng >> 7;
    c->rng ^= c->rng << 17;
    return c->rng;
}

static int run_case(corpus *c, const uint8_t *p, size_t n)
{
    kn_err e = {0, {0}};
    int rc;
    c->cases++;
    if (c->tensors) {
        kn_bump *pool = kn_bump_create();
        kn_tensor t;
        rc = kn_onnx_read_tensor(pool, p, n, &t, NULL, &e);
        if (rc == KN_OK && (t.rank < 0 || t.rank > KN_MAX_RANK || kn_tensor_nbytes(&t) < 0 ||
                            !t.data))
            cr_assert_fail("%s %s at %zu: decoded an impossible tensor", c->seed, c->kind,
                           c->pos);
        kn_bump_destroy(pool);
    } else {
        kn_model_ir *ir = NULL;
        rc = kn_onnx_read_model(p, n, NULL, 0, &ir, &e);
        if (rc == KN_OK) {
            check_graph(ir->graph, 0);
            kn_model_ir_free(ir);
        } else if (ir) {
            cr_assert_fail("%s %s at %zu: failure left a model", c->seed, c->kind, c->pos);
        }
    }
    if (rc == KN_OK) {
        c->loaded++;
        return rc;
    }
    c->errors++;
    if (getenv("KILN_READER_VERBOSE")) /* to review what the corpus provokes */
        fprintf(stderr, "%s %s at %zu: %s\n", c->seed, c->kind, c->pos, e.msg);
    if (!e.msg[0] || e.code != rc ||
        (rc != KN_ERR_INVALID_MODEL && rc != KN_ERR_UNSUPPORTED && rc != KN_ERR_LIMIT))
        cr_assert_fail("%s %s at %zu: status %d (%s) with message '%s'", c->seed, c->kind,
                       c->pos, rc, kn_status_name(rc), e.msg);
    return rc;
}

/* ---- byte-level mutations ---- */

static void truncations(corpus *c, const uint8_t *p, size_t n)
{
    size_t step = quick() ? n / 30 + 1 : n <= 4096 ? 1 : n / 2048 + 1;
    c->kind = "truncation";
    for (size_t len = 0; len < n; len += step) {
        c->pos = len;
        run_case(c, p, len);
    }
}

static void point_mutations(corpus *c, const uint8_t *p, size_t n, uint8_t *buf, int count)
{
    static const uint8_t specials[] = {0x00, 0xff, 0x80, 0x7f, 0x01, 0x0a, 0x12, 0x3a};
    memcpy(buf, p, n);
    for (int i = 0; i < count && n; i++) {
        size_t at = (size_t)(rnd(c) % n);
        uint8_t old = buf[at];
        c->pos = at;
        if (i % 3 != 2) {
            c->kind = "bit flip";
            buf[at] ^= (uint8_t)(1u << (rnd(c) % 8));
        } else {
            c->kind = "byte overwrite";
            buf[at] = rnd(c) % 2 ? specials[rnd(c) % sizeof specials] : (uint8_t)rnd(c);
        }
        run_case(c, buf, n);
        buf[at] = old;
    }
}

/* Deletes, duplicates or inserts random bytes at a random place. */
static void splices(corpus *c, const uint8_t *p, size_t n, uint8_t *buf, int count)
{
    c->kind = "splice";
    for (int i = 0; i < count && n; i++) {
        size_t at = (size_t)(rnd(c) % n), len = (size_t)(rnd(c) % 16) + 1, m = 0;
        if (len > n - at)
            len = n - at;
        c->pos = at;
        memcpy(buf, p, at);
        m = at;
        switch (i % 3) {
        case 0: break; /* delete [at, at+len) */
        case 1: memcpy(buf + m, p + at, len); m += len; break; /* duplicate it */
        default:
            for (size_t k = 0; k < len; k++)
                buf[m++] = (uint8_t)rnd(c);
        }
        memcpy(buf + m, p + at + (i % 3 == 0 ? len : 0), n - at - (i % 3 == 0 ? len : 0));
        m += n - at - (i % 3 == 0 ? len : 0);
        run_case(c, buf, m);
    }
}

/* ---- structural mutations ---- */

typedef struct field_at {
    size_t tag, value, value_end; /* value: the varint (or the LEN field's length varint) */
    size_t body, body_end;        /* LEN: the payload */
    long parent;                  /* index of the enclosing LEN field, -1 at top level */
    uint8_t wire;
} field_at;

static int varint_at(const uint8_t *p, size_t *pos, size_t end, uint64_t *v)
{
    *v = 0;
    for (int i = 0; i < 10 && *pos < end; i++) {
        uint8_t b = p[(*pos)++];
        *v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80))
            return 1;
    }
    return 0;
}

/* Reads one field at *pos; 0 if it is not well formed. */
static int field_ok(const uint8_t *p, size_t *pos, size_t end, field_at *f, size_t *body,
                    size_t *body_end)
{
    uint64_t tag, v;
    f->tag = *pos;
    if (!varint_at(p, pos, end, &tag) || tag >> 3 == 0)
        return 0;
    f->wire = (uint8_t)(tag & 7);
    f->value = *pos;
    switch (f->wire) {
    case 0:
        if (!varint_at(p, pos, end, &v))
            return 0;
        break;
    case 1: case 5: {
        size_t k = f->wire == 1 ? 8 : 4;
        if (end - *pos < k)
            return 0;
        *pos += k;
        break;
    }
    case 2:
        if (!varint_at(p, pos, end, &v) || v > end - *pos)
            return 0;
        *body = *pos;
        *body_end = *pos + (size_t)v;
        f->value_end = *pos;
        *pos += (size_t)v;
        return 1;
    default: return 0;
    }
    f->value_end = *pos;
    return 1;
}

static int is_message(const uint8_t *p, size_t pos, size_t end)
{
    field_at f;
    size_t b, be;
    while (pos < end)
        if (!field_ok(p, &pos, end, &f, &b, &be))
            return 0;
    return 1;
}

/* Records every field, recursing into LEN payloads that parse as messages
 * (a string may parse too; mutating it is just another case). */
static void walk(const uint8_t *p, size_t pos, size_t end, field_at *out, size_t *n, size_t cap,
                 long parent, int depth)
{
    field_at f;
    size_t b = 0, be = 0;
    while (pos < end && *n < cap && field_ok(p, &pos, end, &f, &b, &be)) {
        f.parent = parent;
        f.body = b;
        f.body_end = be;
        long self = (long)*n;
        out[(*n)++] = f;
        if (f.wire == 2 && depth < 64 && be > b && is_message(p, b, be))
            walk(p, b, be, out, n, cap, self, depth + 1);
    }
}

/* p with [from, to) replaced by rep. */
static void replace_run(corpus *c, const uint8_t *p, size_t n, uint8_t *buf, size_t from,
                        size_t to, const uint8_t *rep, size_t rn)
{
    memcpy(buf, p, from);
    memcpy(buf + from, rep, rn);
    memcpy(buf + from + rn, p + to, n - to);
    run_case(c, buf, n - (to - from) + rn);
}

static size_t put_varint(uint8_t *out, uint64_t v)
{
    size_t k = 0;
    do {
        out[k++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return k;
}

/* Cuts field f's payload at `cut` and shrinks the length of f and of every
 * enclosing field to match, so the damage is seen by the inner message's
 * parser rather than by the outermost length check. */
static void nested_truncation(corpus *c, const uint8_t *p, size_t n, uint8_t *buf,
                              const field_at *fields, long fi, size_t cut)
{
    const field_at *f = &fields[fi];
    size_t removed = f->body_end - cut;
    /* Work on a copy, splicing from the innermost change outwards: every
     * later splice lies before the earlier ones, so original offsets hold. */
    uint8_t *work = malloc(n + 1);
    cr_assert_not_null(work);
    memcpy(work, p, cut);
    memcpy(work + cut, p + f->body_end, n - f->body_end);
    size_t m = n - removed;
    for (long a = fi; a >= 0; a = fields[a].parent) {
        const field_at *anc = &fields[a];
        uint8_t rep[10];
        size_t rn = put_varint(rep, (uint64_t)(anc->body_end - anc->body - removed));
        size_t old = anc->value_end - anc->value;
        memmove(work + anc->value + rn, work + anc->value_end, m - anc->value_end);
        memcpy(work + anc->value, rep, rn);
        m = m - old + rn;
        removed += old - rn;
    }
    memcpy(buf, work, m);
    free(work);
    run_case(c, buf, m);
}

static void structural(corpus *c, const uint8_t *p, size_t n, uint8_t *buf, size_t max_fields)
{
    static const uint8_t overlong[11] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                         0x80, 0x80, 0x80, 0x80, 0x00};
    size_t cap = n / 2 + 1, count = 0;
    field_at *fields = malloc(cap * sizeof *fields);
    cr_assert_not_null(fields);
    walk(p, 0, n, fields, &count, cap, -1, 0);
    size_t step = count > max_fields ? count / max_fields + 1 : 1;
    for (size_t i = 0; i < count; i += step) {
        const field_at *f = &fields[i];
        c->pos = f->tag;
        c->kind = "wire type rewrite";
        memcpy(buf, p, n);
        for (uint8_t w = 0; w < 8; w++) {
            if (w == f->wire)
                continue;
            buf[f->tag] = (uint8_t)((p[f->tag] & ~7u) | w);
            run_case(c, buf, n);
        }
        if (f->wire == 2 && f->body_end > f->body) {
            c->kind = "nested truncation";
            size_t len = f->body_end - f->body, cuts = quick() ? 2 : 12;
            size_t cstep = len > cuts ? len / cuts : 1;
            for (size_t cut = f->body; cut < f->body_end; cut += cstep)
                nested_truncation(c, p, n, buf, fields, (long)i, cut);
        }
        if (f->wire != 0 && f->wire != 2)
            continue;
        uint64_t old;
        size_t at = f->value;
        varint_at(p, &at, n, &old);
        const uint64_t values[] = {
            UINT64_C(0xffffffffff), UINT64_MAX, old + 1, old - 1, INT64_C(1) << 62,
            UINT64_C(0xffffffff), (uint64_t)INT64_MIN, 0};
        c->kind = f->wire == 2 ? "length rewrite" : "varint rewrite";
        for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
            uint8_t rep[10];
            size_t rn = put_varint(rep, values[k]);
            replace_run(c, p, n, buf, f->value, f->value_end, rep, rn);
        }
        c->kind = "over-long varint";
        replace_run(c, p, n, buf, f->value, f->value_end, overlong, sizeof overlong);
    }
    free(fields);
}

static void mutate(corpus *c, const char *seed, const uint8_t *p, size_t n)
{
    uint8_t *buf = malloc(n + 64);
    cr_assert_not_null(buf);
    c->seed = seed;
    c->kind = "original";
    c->pos = 0;
    run_case(c, p, n);
    truncations(c, p, n);
    point_mutations(c, p, n, buf, quick() ? 40 : 300);
    splices(c, p, n, buf, quick() ? 10 : 60);
    structural(c, p, n, buf, quick() ? 12 : 150);
    free(buf);
}

/* ---- synthetic models: the semantic errors, in bulk ---- */

static pbw model_with_value_dim(int64_t dim, int in_initializer)
{
    pbw g = relu_graph();
    if (in_initializer) {
        float data[4] = {0};
        pbw t = mk_tensor("w", KN_FLOAT, 1, &dim, data, sizeof data);
        w_msg(&g, 5, &t);
    } else {
        add_node(&g, "Neg", "n", L("y"), L("v"));
        add_vi(&g, 13, "v", 1, &dim);
    }
    return mk_model(&g, 13);
}

static pbw cycle_model(int len)
{
    pbw g = relu_graph();
    char in[32], out[32];
    for (int i = 0; i < len; i++) {
        snprintf(in, sizeof in, "c%d", i);
        snprintf(out, sizeof out, "c%d", (i + 1) % len);
        add_node(&g, "Neg", NULL, L(in), L(out));
    }
    return mk_model(&g, 13);
}

static void synthetic(corpus *c, pbw m, int must_fail)
{
    c->kind = "synthetic";
    int rc = run_case(c, m.p, m.n);
    if (must_fail && rc == KN_OK)
        cr_assert_fail("synthetic case %zu loaded", c->pos);
    mutate(c, "synthetic", m.p, m.n);
    free(m.p);
}

static void synthetic_cases(corpus *c)
{
    static const int64_t dims[] = {-1, INT64_MIN, INT64_MAX, INT64_C(1) << 62, -4, 3};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        for (int init = 0; init < 2; init++) {
            c->pos = i;
            /* Negative dims always fail; an initializer's dims must match its 4 floats. */
            synthetic(c, model_with_value_dim(dims[i], init), dims[i] < 0 || (init && dims[i] != 4));
        }
    for (int len = 1; len <= 6; len++)
        synthetic(c, cycle_model(len), 1);
    pbw g = relu_graph();
    add_node(&g, "Add", "dangling", L("y", "missing"), L("z"));
    synthetic(c, mk_model(&g, 13), 1);
    g = relu_graph();
    add_node(&g, "Neg", "dup", L("x"), L("y"));
    synthetic(c, mk_model(&g, 13), 1);
    for (int depth = 1; depth <= 40; depth += 13)
        synthetic(c, nested_ifs(depth), depth > KN_ONNX_MAX_DEPTH);
}

static void *read_seed(const char *rel, const char *file, size_t *n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s%s", TESTDATA, rel, file);
    void *p = kt_read_file(path, n);
    cr_assert_not_null(p, "seed %s missing", path);
    return p;
}

Test(reader_corpus, malformed_inputs_fail_cleanly, .timeout = 300)
{
    need_testdata();
    corpus c;
    memset(&c, 0, sizeof c);
    c.rng = 0x9e3779b97f4a7c15ull;
    size_t n_models = sizeof seed_models / sizeof seed_models[0];
    for (size_t i = 0; i < n_models; i += quick() ? 5 : 1) {
        size_t n;
        uint8_t *p = read_seed(seed_models[i], "/model.onnx", &n);
        mutate(&c, seed_models[i], p, n);
        free(p);
    }
    synthetic_cases(&c);
    c.tensors = 1;
    for (size_t i = 0; i < sizeof seed_tensors / sizeof seed_tensors[0]; i++) {
        size_t n;
        uint8_t *p = read_seed(seed_tensors[i], "", &n);
        mutate(&c, seed_tensors[i], p, n);
        free(p);
    }
    fprintf(stderr, "malformed corpus: %ld cases, %ld errors, %ld loaded\n", c.cases, c.errors,
            c.loaded);
    cr_assert_eq(c.cases, c.errors + c.loaded);
    cr_assert_geq(c.cases, quick() ? 1000 : 10000);
    cr_assert_gt(c.errors, c.cases / 2);
}
