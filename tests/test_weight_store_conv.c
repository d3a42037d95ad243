/* Convolution weights in the model's shared weight store: a 3x3 layer that
 * oneDNN runs as Winograd (its transformed weights are a one-way copy: shared
 * by every session, but no source to restore the raw bytes from, so those
 * stay) and a 1x1 layer run directly (its reordered copy is shared and its
 * raw pages are given back). Sessions do not grow the packed bytes and agree
 * bit for bit; a session on Kiln's CPU kernels gets the raw bytes back and
 * matches a model that never evicted anything. oneDNN has Winograd only on
 * AVX-512 CPUs: elsewhere the 3x3 layer runs directly too, its copy is
 * two-way, and the expectations count one-way copies rather than assume
 * one. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

#include "core/engine/load.h"
#include "core/engine/registry.h"
#include "core/engine/session.h"
#include "core/engine/weight_store.h"
#include "core/opt/optimize.h"
#include "reader_support.h"

#define C 256
#define WIDE 1024 /* the 1x1 layer's outputs: 1024 x 256 floats = 1 MiB of W */
#define HW 14

static float input[C * HW * HW];

static void fill(float *w, int64_t n, uint32_t seed, float scale)
{
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        w[i] = ((float)(seed >> 8) / 16777216.0f - 0.5f) * scale;
    }
}

static void add_weight(pbw *g, const char *name, const int64_t dims[4], uint32_t seed)
{
    int64_t n = dims[0] * dims[1] * dims[2] * dims[3];
    float *w = malloc(sizeof(float) * (size_t)n);
    cr_assert(w);
    fill(w, n, seed, 0.1f);
    pbw t = mk_tensor(name, KN_FLOAT, 4, dims, w, sizeof(float) * (size_t)n);
    w_msg(g, 5, &t);
    free(w);
}

static void add_ints_attr(pbw *node, const char *name, const int64_t *v, int n)
{
    pbw a = {0};
    w_str(&a, 1, name);
    for (int i = 0; i < n; i++)
        w_int(&a, 8, v[i]);
    w_int(&a, 20, 7); /* AttributeProto.INTS */
    w_msg(node, 5, &a);
}

/* Y = Conv1x1(Relu(Conv3x3(X, W1, pads 1)), W2) */
static pbw conv_model(void)
{
    static const int64_t xd[] = {1, C, HW, HW}, yd[] = {1, WIDE, HW, HW};
    static const int64_t w1d[] = {C, C, 3, 3}, w2d[] = {WIDE, C, 1, 1};
    static const int64_t pads[] = {1, 1, 1, 1};
    pbw g = {0};
    pbw c1 = mk_node("Conv", "c1", L("X", "W1"), L("A"));
    add_ints_attr(&c1, "pads", pads, 4);
    w_msg(&g, 1, &c1);
    add_node(&g, "Relu", "r1", L("A"), L("B"));
    add_node(&g, "Conv", "c2", L("B", "W2"), L("Y"));
    w_str(&g, 2, "convs");
    add_weight(&g, "W1", w1d, 1);
    add_weight(&g, "W2", w2d, 2);
    add_vi(&g, 11, "X", 4, xd);
    add_vi(&g, 12, "Y", 4, yd);
    return mk_model(&g, 17);
}

static kn_model *load_conv(const pbw *bytes, uint32_t backends_off)
{
    kn_err err = {0};
    kn_model *m = NULL;
    kn_load_options o = {.optimize = KN_OPT_ALL, .backends_off = backends_off};
    cr_assert_eq(kn_model_load(bytes->p, bytes->n, NULL, 0, &o, &m, &err), KN_OK, "%s", err.msg);
    return m;
}

static kn_session *new_session(const kn_model *m)
{
    kn_session_config cfg = {0};
    kn_session *s = NULL;
    kn_err err = {0};
    cr_assert_eq(kn_session_create(m, NULL, &cfg, &s, &err), KN_OK, "%s", err.msg);
    return s;
}

static float *run(kn_session *s)
{
    static const int64_t dims[] = {1, C, HW, HW};
    kn_err err = {0};
    cr_assert_eq(kn_session_bind(s, 0, KN_FLOAT, dims, 4, input, sizeof input, 0, &err), KN_OK,
                 "%s", err.msg);
    cr_assert_eq(kn_session_run(s, &err), KN_OK, "%s", err.msg);
    const kn_tensor *y = kn_session_output(s, 0);
    cr_assert(y && kn_tensor_numel(y) == WIDE * HW * HW);
    float *out = malloc(sizeof(float) * WIDE * HW * HW);
    cr_assert(out);
    memcpy(out, y->data, sizeof(float) * WIDE * HW * HW);
    return out;
}

static kn_weight_store_stats stats(const kn_model *m)
{
    kn_weight_store_stats st = {0};
    kn_weight_store_get_stats(m->weights, &st);
    return st;
}

Test(weight_store_conv, sessions_share_conv_weights)
{
    int32_t dnnl = kn_backend_index("dnnl");
    if (!(kn_backends_usable(0) & (1u << dnnl)))
        cr_skip_test("oneDNN is not available here: convolution weights are never packed");
    fill(input, C * HW * HW, 7, 2.0f);
    pbw bytes = conv_model();
    kn_model *m = load_conv(&bytes, 0);
    cr_assert_eq(stats(m).n_evictable, 2, "both convolution weights are the store's");

    kn_session *a = new_session(m);
    float *out_a = run(a);
    kn_weight_store_stats st = stats(m);
    cr_assert_geq(st.n_packed, 2, "one copy per weight at least");
    cr_assert_leq(st.n_one_way, 1, "only the 3x3 layer can be Winograd");
    const int one_way = st.n_one_way;
    cr_assert_eq(st.n_evicted, 2 - one_way, "the 1x1 weights' pages are given back, Winograd "
                 "ones are not (a one-way copy cannot restore them): %d evicted, %d one-way",
                 (int)st.n_evicted, one_way);

    kn_session *b = new_session(m);
    float *out_b = run(b);
    kn_weight_store_stats st2 = stats(m);
    cr_assert_eq(st2.packed_bytes, st.packed_bytes, "a second session grew the packed bytes");
    cr_assert_eq(st2.n_packed, st.n_packed);
    cr_assert_eq(memcmp(out_a, out_b, sizeof(float) * WIDE * HW * HW), 0);

    /* Kiln's own kernels read the raw bytes: restored from the packed copy */
    uint32_t usable = m->backends;
    m->backends &= ~(1u << dnnl);
    kn_session *cpu = new_session(m);
    m->backends = usable;
    float *out_cpu = run(cpu);
    cr_assert_eq(stats(m).restores, 2 - one_way, "each evicted weight came back once");
    kn_model *fresh = load_conv(&bytes, 1u << dnnl);
    kn_session *ref = new_session(fresh);
    float *out_ref = run(ref);
    cr_assert_eq(memcmp(out_cpu, out_ref, sizeof(float) * WIDE * HW * HW), 0,
                 "restored weights differ from the model's own");
    double worst = 0, scale = 0;
    for (int64_t i = 0; i < WIDE * HW * HW; i++) {
        worst = fmax(worst, fabs((double)out_a[i] - out_ref[i]));
        scale = fmax(scale, fabs((double)out_ref[i]));
    }
    cr_assert_leq(worst, 1e-4 * scale, "oneDNN and the CPU kernels differ by %g (max %g)", worst,
                  scale);
    free(out_a);
    free(out_b);
    free(out_cpu);
    free(out_ref);
    kn_session_destroy(a);
    kn_session_destroy(b);
    kn_session_destroy(cpu);
    kn_session_destroy(ref);
    kn_model_destroy(m);
    kn_model_destroy(fresh);
    free(bytes.p);
}

/* Y = Conv1x1(X, W) with 64 x C floats of W: 64 KiB, shared but too small
 * to evict. */
#define NARROW 64
static pbw small_conv_model(void)
{
    static const int64_t xd[] = {1, C, HW, HW}, yd[] = {1, NARROW, HW, HW};
    static const int64_t wd[] = {NARROW, C, 1, 1};
    pbw g = {0};
    add_node(&g, "Conv", "c", L("X", "W"), L("Y"));
    w_str(&g, 2, "small_conv");
    add_weight(&g, "W", wd, 3);
    add_vi(&g, 11, "X", 4, xd);
    add_vi(&g, 12, "Y", 4, yd);
    return mk_model(&g, 17);
}

static void run_small(kn_session *s, float *out)
{
    static const int64_t dims[] = {1, C, HW, HW};
    kn_err err = {0};
    cr_assert_eq(kn_session_bind(s, 0, KN_FLOAT, dims, 4, input, sizeof input, 0, &err), KN_OK,
                 "%s", err.msg);
    cr_assert_eq(kn_session_run(s, &err), KN_OK, "%s", err.msg);
    const kn_tensor *y = kn_session_output(s, 0);
    cr_assert(y && kn_tensor_numel(y) == NARROW * HW * HW);
    memcpy(out, y->data, sizeof(float) * NARROW * HW * HW);
}

/* A plan of every new shape used to reorder weights under 1 MiB again
 * (half of ResNet-18's): now they are shared too, only never evicted. */
Test(weight_store_conv, small_weights_are_shared_but_kept_resident)
{
    int32_t dnnl = kn_backend_index("dnnl");
    if (!(kn_backends_usable(0) & (1u << dnnl)))
        cr_skip_test("oneDNN is not available here: convolution weights are never packed");
    fill(input, C * HW * HW, 11, 2.0f);
    pbw bytes = small_conv_model();
    kn_model *m = load_conv(&bytes, 0);
    cr_assert_eq(stats(m).n_shared, 1, "the 64 KiB weight is the store's");
    cr_assert_eq(stats(m).n_evictable, 0, "but too small to give its pages back");

    static float out_a[NARROW * HW * HW], out_b[NARROW * HW * HW], out_ref[NARROW * HW * HW];
    kn_session *a = new_session(m);
    run_small(a, out_a);
    kn_weight_store_stats st = stats(m);
    kn_session *b = new_session(m);
    run_small(b, out_b);
    kn_weight_store_stats st2 = stats(m);
    cr_assert_eq(st2.n_packed, st.n_packed, "a second session packed its own copy");
    cr_assert_eq(st2.packed_bytes, st.packed_bytes);
    cr_assert_eq(st2.n_evicted, 0);
    cr_assert_eq(memcmp(out_a, out_b, sizeof out_a), 0);

    kn_model *fresh = load_conv(&bytes, 1u << dnnl);
    kn_session *ref = new_session(fresh);
    run_small(ref, out_ref);
    double worst = 0, scale = 0;
    for (int64_t i = 0; i < NARROW * HW * HW; i++) {
        worst = fmax(worst, fabs((double)out_a[i] - out_ref[i]));
        scale = fmax(scale, fabs((double)out_ref[i]));
    }
    cr_assert_leq(worst, 1e-4 * scale, "oneDNN and the CPU kernels differ by %g (max %g)", worst,
                  scale);
    kn_session_destroy(a);
    kn_session_destroy(b);
    kn_session_destroy(ref);
    kn_model_destroy(m);
    kn_model_destroy(fresh);
    free(bytes.p);
}

/* The model in a file of its own (removed by the caller). */
static void write_model_file(const pbw *bytes, char *path, size_t cap)
{
    snprintf(path, cap, "/tmp/kiln_test_ws_conv_%d.onnx", (int)getpid());
    FILE *f = fopen(path, "wb");
    cr_assert(f, "cannot write %s", path);
    cr_assert_eq(fwrite(bytes->p, 1, bytes->n, f), bytes->n);
    fclose(f);
}

static kn_model *load_conv_file(const char *path)
{
    kn_err err = {0};
    kn_model *m = NULL;
    kn_load_options o = {.optimize = KN_OPT_ALL};
    cr_assert_eq(kn_model_load_file(path, &o, &m, &err), KN_OK, "%s", err.msg);
    return m;
}

/* The two-layer model written to a file and loaded from it, one oneDNN
 * session run on it (*a, its output *out): then both layers' raw pages are
 * given back, the Winograd one's because the file still holds them. */
static kn_model *evicted_file_model(pbw *bytes, char *path, size_t cap, kn_session **a,
                                    float **out)
{
    int32_t dnnl = kn_backend_index("dnnl");
    if (!(kn_backends_usable(0) & (1u << dnnl)))
        cr_skip_test("oneDNN is not available here: convolution weights are never packed");
    fill(input, C * HW * HW, 7, 2.0f);
    *bytes = conv_model();
    write_model_file(bytes, path, cap);
    kn_model *m = load_conv_file(path);
    *a = new_session(m);
    *out = run(*a);
    cr_assert_eq(stats(m).n_evicted, 2, "both layers' raw pages are given back from a file: "
                 "%d evicted", (int)stats(m).n_evicted);
    return m;
}

/* Loaded from a file, the Winograd layer's raw weights go too (the file
 * still holds them), and come back from it bit for bit. */
Test(weight_store_conv, one_way_weights_are_read_back_from_the_model_file)
{
    pbw bytes;
    char path[64];
    kn_session *a;
    float *out_a;
    kn_model *m = evicted_file_model(&bytes, path, sizeof path, &a, &out_a);
    int32_t dnnl = kn_backend_index("dnnl");

    uint32_t usable = m->backends;
    m->backends &= ~(1u << dnnl);
    kn_session *cpu = new_session(m);
    m->backends = usable;
    float *out_cpu = run(cpu);
    cr_assert_eq(stats(m).n_evicted, 0);
    cr_assert_eq(stats(m).restores, 2, "one per evicted weight: from its packed copy, or from "
                 "the file for a one-way copy");
    kn_model *fresh = load_conv(&bytes, 1u << dnnl);
    kn_session *ref = new_session(fresh);
    float *out_ref = run(ref);
    cr_assert_eq(memcmp(out_cpu, out_ref, sizeof(float) * WIDE * HW * HW), 0,
                 "weights read back from the file differ from the model's own");
    free(out_a);
    free(out_cpu);
    free(out_ref);
    kn_session_destroy(a);
    kn_session_destroy(cpu);
    kn_session_destroy(ref);
    kn_model_destroy(m);
    kn_model_destroy(fresh);
    remove(path);
    free(bytes.p);
}

/* A file truncated after loading cannot give the weights back: the session
 * that needs them fails with an error that says so, and the model stays
 * usable for sessions that do not. */
Test(weight_store_conv, a_truncated_model_file_is_an_error_not_a_crash)
{
    pbw bytes;
    char path[64];
    kn_session *a;
    float *out_a;
    kn_model *m = evicted_file_model(&bytes, path, sizeof path, &a, &out_a);
    int32_t dnnl = kn_backend_index("dnnl");
    if (stats(m).n_one_way == 0) {
        kn_session_destroy(a);
        kn_model_destroy(m);
        remove(path);
        free(out_a);
        free(bytes.p);
        cr_skip_test("no one-way copy on this CPU (oneDNN's Winograd needs AVX-512): every "
                     "weight comes back from its packed copy, the file is never read again");
    }
    FILE *f = fopen(path, "wb"); /* truncates it */
    cr_assert(f);
    fclose(f);

    uint32_t usable = m->backends;
    m->backends &= ~(1u << dnnl);
    kn_session_config cfg = {0};
    kn_session *cpu = NULL;
    kn_err err = {0};
    int rc = kn_session_create(m, NULL, &cfg, &cpu, &err);
    m->backends = usable;
    cr_assert_eq(rc, KN_ERR_IO, "rc %d: %s", rc, err.msg);
    cr_assert(strstr(err.msg, "model file") && strstr(err.msg, path) && strstr(err.msg, "truncated"),
              "%s", err.msg);
    cr_assert_null(cpu);

    kn_session *b = new_session(m); /* oneDNN's: served by the packed copies */
    float *out_b = run(b);
    cr_assert_eq(memcmp(out_a, out_b, sizeof(float) * WIDE * HW * HW), 0);
    free(out_a);
    free(out_b);
    kn_session_destroy(a);
    kn_session_destroy(b);
    kn_model_destroy(m);
    remove(path);
    free(bytes.p);
}
