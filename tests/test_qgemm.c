/* The packed int16 GEMM and depthwise taps of core/simd/qgemm.c against
 * int64 loops, exactly: the instance compiled into the library (SSE2 on
 * x86-64, SIMD128 under Emscripten) and the plain-C instance of
 * vec_i16.h, built here from the same source under other names, on shapes
 * with row, column and odd-depth tails and operands at +-255. Then the
 * dot-product GEMM of core/simd/qgemm_dot.c (plain C here, as in every
 * native build) against the int16 one, bit for bit, in both of its modes
 * and under each reading of bytes above 127 that engines have. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#define KN_VEC_I16_PORTABLE 1
#define kn_qgemm_packed_a_len portable_packed_a_len
#define kn_qgemm_packed_b_len portable_packed_b_len
#define kn_qgemm_pack_a portable_pack_a
#define kn_qgemm_pack_b portable_pack_b
#define kn_qgemm_packed portable_packed
#define kn_qdw_taps portable_dw_taps
#define kn_qgemm_isa portable_isa
#define kn_qgemm_beats_float portable_beats_float
#include "core/simd/qgemm.c"
#include "core/simd/qgemm_dot.h"
#include "core/simd/vec_i8dot.h"
#undef kn_qgemm_packed_a_len
#undef kn_qgemm_packed_b_len
#undef kn_qgemm_pack_a
#undef kn_qgemm_pack_b
#undef kn_qgemm_packed
#undef kn_qdw_taps
#undef kn_qgemm_isa
#undef kn_qgemm_beats_float

/* the library's instance (qgemm.h's guard is taken by the renamed copy) */
size_t kn_qgemm_packed_a_len(int64_t m, int64_t k);
size_t kn_qgemm_packed_b_len(int64_t k, int64_t n);
void kn_qgemm_pack_a(int64_t m, int64_t k, const int16_t *a, int64_t lda, int16_t *dst);
void kn_qgemm_pack_b(int64_t k, int64_t n, const int16_t *b, int64_t ldb, int16_t *dst);
void kn_qgemm_packed(int64_t m, int64_t n, int64_t k, const int16_t *pa, const int16_t *pb,
                     int32_t *c, int64_t ldc);
void kn_qdw_taps(int32_t *out, const int16_t *const *src, const int16_t *w, int32_t taps,
                 int64_t n);
const char *kn_qgemm_isa(void);

typedef struct qgemm_impl {
    size_t (*a_len)(int64_t, int64_t);
    size_t (*b_len)(int64_t, int64_t);
    void (*pack_a)(int64_t, int64_t, const int16_t *, int64_t, int16_t *);
    void (*pack_b)(int64_t, int64_t, const int16_t *, int64_t, int16_t *);
    void (*packed)(int64_t, int64_t, int64_t, const int16_t *, const int16_t *, int32_t *, int64_t);
    void (*dw)(int32_t *, const int16_t *const *, const int16_t *, int32_t, int64_t);
    const char *name;
} qgemm_impl;

static int16_t value(unsigned *seed)
{
    unsigned r = (unsigned)rand_r(seed);
    return (int16_t)(r % 8 == 0 ? (r & 8 ? 255 : -255) : (int)(r % 511) - 255); /* extremes too */
}

static void check_gemm(const qgemm_impl *q, int64_t m, int64_t n, int64_t k)
{
    unsigned seed = (unsigned)(m * 131 + n * 7 + k);
    int64_t lda = k + 3, ldb = n + 5, ldc = n + 2; /* strides wider than the rows */
    int16_t *a = malloc(sizeof(int16_t) * (size_t)(m * lda)),
            *b = malloc(sizeof(int16_t) * (size_t)(k * ldb));
    for (int64_t i = 0; i < m * lda; i++)
        a[i] = value(&seed);
    for (int64_t i = 0; i < k * ldb; i++)
        b[i] = value(&seed);
    int16_t *pa = malloc(sizeof(int16_t) * q->a_len(m, k)),
            *pb = malloc(sizeof(int16_t) * q->b_len(k, n));
    int32_t *c = malloc(sizeof(int32_t) * (size_t)(m * ldc));
    q->pack_a(m, k, a, lda, pa);
    q->pack_b(k, n, b, ldb, pb);
    q->packed(m, n, k, pa, pb, c, ldc);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            int64_t want = 0;
            for (int64_t p = 0; p < k; p++)
                want += (int64_t)a[i * lda + p] * b[p * ldb + j];
            cr_assert_eq(c[i * ldc + j], (int32_t)want,
                         "%s %lldx%lldx%lld: c[%lld][%lld] %d vs %lld", q->name, (long long)m,
                         (long long)n, (long long)k, (long long)i, (long long)j, c[i * ldc + j],
                         (long long)want);
        }
    free(a);
    free(b);
    free(pa);
    free(pb);
    free(c);
}

static void check_dw(const qgemm_impl *q, int32_t taps, int64_t n)
{
    unsigned seed = (unsigned)(taps * 17 + n);
    int16_t *x = malloc(sizeof(int16_t) * (size_t)(n + taps + 8)), w[32];
    const int16_t *src[32];
    for (int64_t i = 0; i < n + taps + 8; i++)
        x[i] = value(&seed);
    for (int32_t t = 0; t < taps; t++) {
        w[t] = value(&seed);
        src[t] = x + (t * 5) % (taps + 1); /* overlapping runs, as taps of one row are */
    }
    int32_t *out = malloc(sizeof(int32_t) * (size_t)n);
    q->dw(out, src, w, taps, n);
    for (int64_t f = 0; f < n; f++) {
        int64_t want = 0;
        for (int32_t t = 0; t < taps; t++)
            want += (int64_t)w[t] * src[t][f];
        cr_assert_eq(out[f], (int32_t)want, "%s %d taps: [%lld] %d vs %lld", q->name, taps,
                     (long long)f, out[f], (long long)want);
    }
    free(x);
    free(out);
}

static const qgemm_impl impls[] = {
    {kn_qgemm_packed_a_len, kn_qgemm_packed_b_len, kn_qgemm_pack_a, kn_qgemm_pack_b,
     kn_qgemm_packed, kn_qdw_taps, "compiled-in"},
    {portable_packed_a_len, portable_packed_b_len, portable_pack_a, portable_pack_b,
     portable_packed, portable_dw_taps, "portable"},
};

Test(qgemm, products_equal_int64_loops)
{
    const int64_t shapes[][3] = {{1, 1, 1},    {4, 8, 2},     {5, 9, 3},   {7, 17, 33},
                                 {16, 64, 64}, {13, 40, 576}, {3, 100, 1}, {64, 8, 147}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t i = 0; i < 2; i++)
            check_gemm(&impls[i], shapes[s][0], shapes[s][1], shapes[s][2]);
    cr_assert_str_neq(kn_qgemm_isa(), "", "names its code");
}

Test(qgemm, depthwise_taps_equal_int64_loops)
{
    const int32_t taps[] = {1, 2, 9, 25};
    for (size_t t = 0; t < sizeof taps / sizeof taps[0]; t++)
        for (size_t i = 0; i < 2; i++)
            check_dw(&impls[i], taps[t], 64);
}

/* 8-bit data less a zero point, as the convolution hands them over: uint8
 * or int8 values (extremes often) minus a zero point of their type; *shift
 * is what brings them back into [0, 255] (the dot GEMM's z). */
static void eight_bit(unsigned *seed, int kind, int16_t *dst, int64_t count, int32_t *shift)
{
    /* kind: 0 uint8, 1 int8, 2 int8 with zero point 0 (symmetric weights) */
    int32_t lo = kind ? -128 : 0, zp = kind == 2 ? 0 : lo + (int32_t)(rand_r(seed) % 256);
    for (int64_t i = 0; i < count; i++) {
        unsigned r = (unsigned)rand_r(seed);
        int32_t x = r % 4 == 0 ? (r & 4 ? lo + 255 : lo) : lo + (int32_t)(r % 256);
        dst[i] = (int16_t)(x - zp);
    }
    *shift = zp - lo;
}

/* the dot GEMM in `mode` under `reading` against the int16 GEMM */
static void check_dot(int64_t m, int64_t n, int64_t k, int w_kind, int x_kind, int mode,
                      int reading)
{
    unsigned seed = (unsigned)(m * 977 + n * 31 + k * 3 + w_kind * 2 + x_kind);
    int64_t lda = k + 1, ldc = n + 3;
    int16_t *a = malloc(sizeof(int16_t) * (size_t)(m * lda)),
            *b = malloc(sizeof(int16_t) * (size_t)(k * n));
    int32_t z, unused;
    for (int64_t r = 0; r < m; r++) /* per-channel weight zero points */
        eight_bit(&seed, w_kind, a + r * lda, lda, &unused);
    eight_bit(&seed, x_kind, b, k * n, &z);
    int16_t *pa = malloc(sizeof(int16_t) * kn_qgemm_packed_a_len(m, k)),
            *pb = malloc(sizeof(int16_t) * kn_qgemm_packed_b_len(k, n));
    void *da = malloc(kn_qgemm_dot_packed_a_bytes(m, k)),
         *db = malloc(kn_qgemm_dot_packed_b_bytes(k, n));
    int32_t *want = malloc(sizeof(int32_t) * (size_t)(m * ldc)),
            *got = malloc(sizeof(int32_t) * (size_t)(m * ldc));
    kn_qgemm_pack_a(m, k, a, lda, pa);
    kn_qgemm_pack_b(k, n, b, n, pb);
    kn_qgemm_packed(m, n, k, pa, pb, want, ldc);
    int packed = kn_qgemm_dot_pack_a(m, k, a, lda, da);
    cr_assert(packed, "8-bit rows pack into bytes");
    if (w_kind == 2)
        cr_assert_eq(packed, KN_QDOT_ROWS_AS_THEY_ARE, "symmetric int8 rows need no shift");
    /* column sums only where a row was shifted; else they go unread */
    kn_qgemm_dot_pack_b(k, n, pb, z, mode, packed == KN_QDOT_ROWS_SHIFTED, db);
    /* and B packed from rows of bytes, panel by panel, as the convolution
     * packs the image: rows past the depth and columns past n hold z */
    int64_t depth = 4 * kn_qgemm_quads(k);
    size_t panel = kn_qgemm_dot_panel_b_bytes(k, mode);
    unsigned char *rows = malloc((size_t)(depth * KN_QGEMM_NR)),
                  *db_rows = malloc(panel * (size_t)((n + KN_QGEMM_NR - 1) / KN_QGEMM_NR));
    for (int64_t n0 = 0; n0 < n; n0 += KN_QGEMM_NR) {
        for (int64_t r = 0; r < depth; r++)
            for (int64_t j = 0; j < KN_QGEMM_NR; j++)
                rows[r * KN_QGEMM_NR + j] =
                    (unsigned char)(r < k && n0 + j < n ? b[r * n + n0 + j] + z : z);
        kn_qgemm_dot_pack_b_rows(k, rows, z, mode, packed == KN_QDOT_ROWS_SHIFTED,
                                 db_rows + (size_t)(n0 / KN_QGEMM_NR) * panel);
    }
    int32_t *got_rows = malloc(sizeof(int32_t) * (size_t)(m * ldc));
    kd_portable_reading = reading;
    kn_qgemm_dot_packed(m, n, k, da, db, z, mode, got, ldc);
    kn_qgemm_dot_packed(m, n, k, da, db_rows, z, mode, got_rows, ldc);
    kd_portable_reading = KD_READ_UNSIGNED;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            cr_assert_eq(got_rows[i * ldc + j], want[i * ldc + j],
                         "rows: mode %d reading %d, %lldx%lldx%lld: c[%lld][%lld] %d vs %d", mode,
                         reading, (long long)m, (long long)n, (long long)k, (long long)i,
                         (long long)j, got_rows[i * ldc + j], want[i * ldc + j]);
    free(rows);
    free(db_rows);
    free(got_rows);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            cr_assert_eq(got[i * ldc + j], want[i * ldc + j],
                         "mode %d reading %d, %lldx%lldx%lld (w %d, x %d): c[%lld][%lld] %d vs %d",
                         mode, reading, (long long)m, (long long)n, (long long)k, w_kind, x_kind,
                         (long long)i, (long long)j, got[i * ldc + j], want[i * ldc + j]);
    free(a);
    free(b);
    free(pa);
    free(pb);
    free(da);
    free(db);
    free(want);
    free(got);
}

Test(qgemm, dot_product_gemm_equals_int16_gemm)
{
    const int64_t shapes[][3] = {{1, 1, 1},    {4, 8, 4},    {5, 9, 3},    {7, 17, 33},
                                 {4, 8, 6},    {3, 20, 7},   {16, 64, 64}, {13, 40, 576},
                                 {64, 8, 147}, {9, 24, 2304}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int types = 0; types < 6; types++) { /* weights u8, s8, symmetric s8; image u8, s8 */
            const int64_t *d = shapes[s];
            /* one dot per quad only where bytes above 127 are read as unsigned */
            check_dot(d[0], d[1], d[2], types % 3, types / 3, KN_QDOT_UNSIGNED, KD_READ_UNSIGNED);
            /* halves under every reading */
            for (int reading = 0; reading < 3; reading++)
                check_dot(d[0], d[1], d[2], types % 3, types / 3, KN_QDOT_HALVES, reading);
        }
}

Test(qgemm, dot_product_gemm_refuses_rows_wider_than_bytes)
{
    int16_t a[2 * 5] = {0, 0, 0, 0, 0, -200, 100, 0, 0, 0}; /* row 1 spans 300 */
    unsigned char dst[256];
    cr_assert_eq(kn_qgemm_dot_pack_a(2, 5, a, 5, dst), 0);
    a[6] = 55; /* spans 255: fits, shifted */
    cr_assert_eq(kn_qgemm_dot_pack_a(2, 5, a, 5, dst), KN_QDOT_ROWS_SHIFTED);
    a[5] = -128; /* within a signed byte: as it is */
    cr_assert_eq(kn_qgemm_dot_pack_a(2, 5, a, 5, dst), KN_QDOT_ROWS_AS_THEY_ARE);
}

Test(qgemm, dot_product_mode_is_off_without_the_instruction)
{
    int32_t lanes[4];
    /* native builds have no dot instruction: the int16 GEMM serves them */
    cr_assert_eq(kn_qgemm_dot_probe(lanes), KN_QDOT_OFF);
    cr_assert_eq(kn_qgemm_dot_mode(), KN_QDOT_OFF);
    cr_assert_str_eq(kn_qgemm_dot_isa(), "portable");
}
