/* kv backend: AVX2 + FMA, 8 floats (see vec.h). The includer has enabled
 * avx2 and fma for this code. */
#include <immintrin.h>

typedef __m256 kv;
typedef __m256 kvm;
#define KV_W 8
#define KV_NAME "avx2"

static inline kv kv_zero(void) { return _mm256_setzero_ps(); }
static inline kv kv_set1(float x) { return _mm256_set1_ps(x); }
static inline kv kv_loadu(const float *p) { return _mm256_loadu_ps(p); }
static inline void kv_storeu(float *p, kv v) { _mm256_storeu_ps(p, v); }
static inline __m256i kv_first_(int n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
static inline kv kv_load_part(const float *p, int n, float fill)
{
    __m256i m = kv_first_(n);
    return _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(p, m),
                            _mm256_castsi256_ps(m));
}
static inline void kv_store_part(float *p, kv v, int n) { _mm256_maskstore_ps(p, kv_first_(n), v); }
static inline kv kv_load_even(const float *p)
{
    __m256 a = _mm256_loadu_ps(p);
    __m256 b = _mm256_maskload_ps(p + 8, kv_first_(7)); /* p[15] is not read */
    __m256 t = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)); /* a0 a2 b0 b2 a4 a6 b4 b6 */
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(t), _MM_SHUFFLE(3, 1, 2, 0)));
}
static inline kv kv_add(kv a, kv b) { return _mm256_add_ps(a, b); }
static inline kv kv_sub(kv a, kv b) { return _mm256_sub_ps(a, b); }
static inline kv kv_mul(kv a, kv b) { return _mm256_mul_ps(a, b); }
static inline kv kv_div(kv a, kv b) { return _mm256_div_ps(a, b); }
static inline kv kv_fma(kv a, kv b, kv c) { return _mm256_fmadd_ps(a, b, c); }
static inline kv kv_max(kv a, kv b) { return _mm256_max_ps(a, b); } /* a > b ? a : b */
static inline kv kv_min(kv a, kv b) { return _mm256_min_ps(a, b); } /* a < b ? a : b */
static inline kv kv_abs(kv a)
{
    return _mm256_castsi256_ps(
        _mm256_and_si256(_mm256_castps_si256(a), _mm256_set1_epi32(0x7fffffff)));
}
static inline kv kv_round(kv a)
{
    return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
static inline kv kv_pow2i(kv n)
{
    __m256i e = _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127));
    return _mm256_castsi256_ps(_mm256_slli_epi32(e, 23));
}
static inline kvm kv_lt(kv a, kv b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
static inline kvm kv_gt(kv a, kv b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
static inline kvm kv_ne(kv a, kv b) { return _mm256_cmp_ps(a, b, _CMP_NEQ_UQ); }
static inline kv kv_select(kvm m, kv t, kv f) { return _mm256_blendv_ps(f, t, m); }
static inline float kv_hsum(kv a)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
}
static inline float kv_hmax(kv a)
{
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
}
