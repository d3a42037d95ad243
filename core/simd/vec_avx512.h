/* kv backend: AVX-512F, 16 floats (see vec.h). The includer has enabled
 * avx512f, avx2 and fma for this code. */
#include <immintrin.h>

typedef __m512 kv;
typedef __mmask16 kvm;
#define KV_W 16
#define KV_NAME "avx512"

static inline kv kv_zero(void) { return _mm512_setzero_ps(); }
static inline kv kv_set1(float x) { return _mm512_set1_ps(x); }
static inline kv kv_loadu(const float *p) { return _mm512_loadu_ps(p); }
static inline void kv_storeu(float *p, kv v) { _mm512_storeu_ps(p, v); }
static inline kvm kv_first_(int n) { return (kvm)((1u << n) - 1u); }
static inline kv kv_load_part(const float *p, int n, float fill)
{
    return _mm512_mask_loadu_ps(_mm512_set1_ps(fill), kv_first_(n), p);
}
static inline void kv_store_part(float *p, kv v, int n)
{
    _mm512_mask_storeu_ps(p, kv_first_(n), v);
}
static inline kv kv_load_even(const float *p)
{
    const __m512i idx = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    /* the second half is read with a mask so that p[2*KV_W-1] is not touched */
    __m512 hi = _mm512_maskz_loadu_ps((kvm)0x7fff, p + 16);
    return _mm512_permutex2var_ps(_mm512_loadu_ps(p), idx, hi);
}
static inline kv kv_add(kv a, kv b) { return _mm512_add_ps(a, b); }
static inline kv kv_sub(kv a, kv b) { return _mm512_sub_ps(a, b); }
static inline kv kv_mul(kv a, kv b) { return _mm512_mul_ps(a, b); }
static inline kv kv_div(kv a, kv b) { return _mm512_div_ps(a, b); }
static inline kv kv_fma(kv a, kv b, kv c) { return _mm512_fmadd_ps(a, b, c); }
static inline kv kv_max(kv a, kv b) { return _mm512_max_ps(a, b); } /* a > b ? a : b */
static inline kv kv_min(kv a, kv b) { return _mm512_min_ps(a, b); } /* a < b ? a : b */
static inline kv kv_abs(kv a)
{
    return _mm512_castsi512_ps(
        _mm512_and_epi32(_mm512_castps_si512(a), _mm512_set1_epi32(0x7fffffff)));
}
static inline kv kv_round(kv a)
{
    return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
static inline kv kv_pow2i(kv n)
{
    __m512i e = _mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127));
    return _mm512_castsi512_ps(_mm512_slli_epi32(e, 23));
}
#define KV_HAS_SCALE2_RECIP 1
static inline kv kv_scale2(kv p, kv n) { return _mm512_scalef_ps(p, n); }
static inline kv kv_recip(kv d)
{
    /* 14-bit estimate r, then r + r (1 - d r): the error squares to ~2^-28 */
    kv r = _mm512_rcp14_ps(d);
    return _mm512_fmadd_ps(r, _mm512_fnmadd_ps(d, r, _mm512_set1_ps(1.0f)), r);
}
static inline kvm kv_lt(kv a, kv b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
static inline kvm kv_gt(kv a, kv b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
static inline kvm kv_ne(kv a, kv b) { return _mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ); }
static inline kv kv_select(kvm m, kv t, kv f) { return _mm512_mask_blend_ps(m, f, t); }
static inline float kv_hsum(kv a) { return _mm512_reduce_add_ps(a); }
static inline float kv_hmax(kv a) { return _mm512_reduce_max_ps(a); }
