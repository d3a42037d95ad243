/* kv backend: WebAssembly SIMD128, 4 floats (see vec.h). Built with
 * emcc -msimd128 (or clang --target=wasm32 -msimd128). There is no fused
 * multiply-add in SIMD128 proper, so kv_fma rounds twice. */
#include <wasm_simd128.h>

typedef v128_t kv;
typedef v128_t kvm;
#define KV_W 4
#define KV_NAME "wasm128"

static inline kv kv_zero(void) { return wasm_f32x4_splat(0.0f); }
static inline kv kv_set1(float x) { return wasm_f32x4_splat(x); }
static inline kv kv_loadu(const float *p) { return wasm_v128_load(p); }
static inline void kv_storeu(float *p, kv v) { wasm_v128_store(p, v); }
static inline kv kv_load_part(const float *p, int n, float fill)
{
    float t[4] = {fill, fill, fill, fill};
    memcpy(t, p, sizeof(float) * (size_t)n);
    return wasm_v128_load(t);
}
static inline void kv_store_part(float *p, kv v, int n)
{
    float t[4];
    wasm_v128_store(t, v);
    memcpy(p, t, sizeof(float) * (size_t)n);
}
static inline kv kv_load_even(const float *p)
{
    float t[8];
    memcpy(t, p, sizeof(float) * 7); /* p[7] is not read */
    t[7] = 0;
    return wasm_i32x4_shuffle(wasm_v128_load(t), wasm_v128_load(t + 4), 0, 2, 4, 6);
}
static inline kv kv_add(kv a, kv b) { return wasm_f32x4_add(a, b); }
static inline kv kv_sub(kv a, kv b) { return wasm_f32x4_sub(a, b); }
static inline kv kv_mul(kv a, kv b) { return wasm_f32x4_mul(a, b); }
static inline kv kv_div(kv a, kv b) { return wasm_f32x4_div(a, b); }
static inline kv kv_fma(kv a, kv b, kv c) { return wasm_f32x4_add(wasm_f32x4_mul(a, b), c); }
static inline kv kv_max(kv a, kv b) { return wasm_v128_bitselect(a, b, wasm_f32x4_gt(a, b)); }
static inline kv kv_min(kv a, kv b) { return wasm_v128_bitselect(a, b, wasm_f32x4_lt(a, b)); }
static inline kv kv_abs(kv a) { return wasm_f32x4_abs(a); }
static inline kv kv_round(kv a) { return wasm_f32x4_nearest(a); }
static inline kv kv_pow2i(kv n)
{
    v128_t e = wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(n), wasm_i32x4_splat(127));
    return wasm_i32x4_shl(e, 23);
}
static inline kvm kv_lt(kv a, kv b) { return wasm_f32x4_lt(a, b); }
static inline kvm kv_gt(kv a, kv b) { return wasm_f32x4_gt(a, b); }
static inline kvm kv_ne(kv a, kv b) { return wasm_f32x4_ne(a, b); }
static inline kv kv_select(kvm m, kv t, kv f) { return wasm_v128_bitselect(t, f, m); }
static inline float kv_hsum(kv a)
{
    return (wasm_f32x4_extract_lane(a, 0) + wasm_f32x4_extract_lane(a, 2)) +
           (wasm_f32x4_extract_lane(a, 1) + wasm_f32x4_extract_lane(a, 3));
}
static inline float kv_hmax(kv a)
{
    kv s = kv_max(a, wasm_i32x4_shuffle(a, a, 2, 3, 0, 1));
    s = kv_max(s, wasm_i32x4_shuffle(s, s, 1, 0, 3, 2));
    return wasm_f32x4_extract_lane(s, 0);
}
