/* kv backend: WebAssembly SIMD128, 4 floats (see vec.h). Built with
 * emcc -msimd128 (or clang --target=wasm32 -msimd128). There is no fused
 * multiply-add in SIMD128 proper, so kv_fma rounds twice there: a multiply
 * and an add, two instructions on the same two x86 ports, which caps a
 * matrix product at half the rate of a fused one.
 *
 * With -mrelaxed-simd (the extra relaxed build, wasm/CMakeLists.txt) kv_fma
 * is Relaxed SIMD's f32x4.relaxed_madd, a * b + c, one vfmadd where the
 * CPU has FMA (rounded once or twice: the standard lets the engine pick).
 * Emscripten 3.1.6's LLVM 14 knows it only as the draft's f32x4.fma,
 * encoded with an opcode browsers no longer accept, so the linked module
 * goes through wasm/postlink/standard_relaxed_opcodes.mjs, which gives it
 * the standard opcode. The operands are passed in the standard's order. */
#include <wasm_simd128.h>

typedef v128_t kv;
typedef v128_t kvm;
#define KV_W 4
#ifdef __wasm_relaxed_simd__
#define KV_NAME "wasm128-relaxed"
#else
#define KV_NAME "wasm128"
#endif

static inline kv kv_zero(void) { return wasm_f32x4_splat(0.0f); }
static inline kv kv_set1(float x) { return wasm_f32x4_splat(x); }
static inline kv kv_loadu(const float *p) { return wasm_v128_load(p); }
static inline void kv_storeu(float *p, kv v) { wasm_v128_store(p, v); }
/* Partial loads and stores by lane instructions: the tails of short rows
 * (7x7 and 14x14 planes) are common enough that a round trip through a
 * stack buffer and a memcpy call shows in the profile. */
static inline kv kv_load_part(const float *p, int n, float fill)
{
    kv v = wasm_f32x4_splat(fill);
    if (n >= 2) {
        v = wasm_v128_load64_lane(p, v, 0);
        if (n == 3)
            v = wasm_f32x4_replace_lane(v, 2, p[2]);
    } else if (n == 1) {
        v = wasm_f32x4_replace_lane(v, 0, p[0]);
    }
    return v;
}
static inline void kv_store_part(float *p, kv v, int n)
{
    if (n >= 2) {
        wasm_v128_store64_lane(p, v, 0);
        if (n == 3)
            wasm_v128_store32_lane(p + 2, v, 2);
    } else if (n == 1) {
        wasm_v128_store32_lane(p, v, 0);
    }
}
static inline kv kv_load_even(const float *p)
{
    kv hi = wasm_v128_load32_lane(p + 6, wasm_v128_load64_zero(p + 4), 2); /* p[7] is not read */
    return wasm_i32x4_shuffle(wasm_v128_load(p), hi, 0, 2, 4, 6);
}
static inline kv kv_add(kv a, kv b) { return wasm_f32x4_add(a, b); }
static inline kv kv_sub(kv a, kv b) { return wasm_f32x4_sub(a, b); }
static inline kv kv_mul(kv a, kv b) { return wasm_f32x4_mul(a, b); }
static inline kv kv_div(kv a, kv b) { return wasm_f32x4_div(a, b); }
#ifdef __wasm_relaxed_simd__
static inline kv kv_fma(kv a, kv b, kv c) { return __builtin_wasm_fma_f32x4(a, b, c); }
#else
static inline kv kv_fma(kv a, kv b, kv c) { return wasm_f32x4_add(wasm_f32x4_mul(a, b), c); }
#endif
/* pmax(x, y) = x < y ? y : x and pmin(x, y) = y < x ? y : x, one maxps /
 * minps each in V8, where a compare and bitselect take three instructions. */
static inline kv kv_max(kv a, kv b) { return wasm_f32x4_pmax(b, a); } /* a > b ? a : b */
static inline kv kv_min(kv a, kv b) { return wasm_f32x4_pmin(b, a); } /* a < b ? a : b */
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
