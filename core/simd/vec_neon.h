/* kv backend: AArch64 Advanced SIMD (NEON), 4 floats (see vec.h).
 * ASIMD is part of every AArch64 CPU, so no target pragma is needed; what
 * this adds over vec_generic.h (which GCC also lowers to NEON) is the
 * fused multiply-add, one-instruction rounding, selects, lane loads and
 * across-lane reductions, and a table whose GEMM tile uses 30 of the 32
 * vector registers (kernels_body.h). */
#include <arm_neon.h>

typedef float32x4_t kv;
typedef uint32x4_t kvm;
#define KV_W 4
#define KV_NAME "neon"

static inline kv kv_zero(void) { return vdupq_n_f32(0.0f); }
static inline kv kv_set1(float x) { return vdupq_n_f32(x); }
static inline kv kv_loadu(const float *p) { return vld1q_f32(p); }
static inline void kv_storeu(float *p, kv v) { vst1q_f32(p, v); }
/* Tails by lane loads and stores (no stack round trip, no memcpy call):
 * 7x7 and 14x14 planes end in partial vectors on every row. */
static inline kv kv_load_part(const float *p, int n, float fill)
{
    kv v = vdupq_n_f32(fill);
    if (n >= 2) {
        v = vcombine_f32(vld1_f32(p), vget_high_f32(v));
        if (n == 3)
            v = vld1q_lane_f32(p + 2, v, 2);
    } else if (n == 1) {
        v = vld1q_lane_f32(p, v, 0);
    }
    return v;
}
static inline void kv_store_part(float *p, kv v, int n)
{
    if (n >= 2) {
        vst1_f32(p, vget_low_f32(v));
        if (n == 3)
            vst1q_lane_f32(p + 2, v, 2);
    } else if (n == 1) {
        vst1q_lane_f32(p, v, 0);
    }
}
static inline kv kv_load_even(const float *p)
{
    /* p[4], p[5], p[6], p[6]: p[7] is not read (vld2q_f32 would) */
    kv hi = vcombine_f32(vld1_f32(p + 4), vld1_dup_f32(p + 6));
    return vuzp1q_f32(vld1q_f32(p), hi);
}
static inline kv kv_add(kv a, kv b) { return vaddq_f32(a, b); }
static inline kv kv_sub(kv a, kv b) { return vsubq_f32(a, b); }
static inline kv kv_mul(kv a, kv b) { return vmulq_f32(a, b); }
static inline kv kv_div(kv a, kv b) { return vdivq_f32(a, b); }
static inline kv kv_fma(kv a, kv b, kv c) { return vfmaq_f32(c, a, b); }
static inline kvm kv_lt(kv a, kv b) { return vcltq_f32(a, b); }
static inline kvm kv_gt(kv a, kv b) { return vcgtq_f32(a, b); }
static inline kvm kv_ne(kv a, kv b) { return vmvnq_u32(vceqq_f32(a, b)); }
static inline kv kv_select(kvm m, kv t, kv f) { return vbslq_f32(m, t, f); }
/* FMAX returns NaN when either operand is NaN; vec.h promises the x86
 * rule (a NaN in a gives b), so a compare and a select, as every backend
 * without maxps semantics does. */
static inline kv kv_max(kv a, kv b) { return vbslq_f32(vcgtq_f32(a, b), a, b); }
static inline kv kv_min(kv a, kv b) { return vbslq_f32(vcltq_f32(a, b), a, b); }
static inline kv kv_abs(kv a) { return vabsq_f32(a); }
static inline kv kv_round(kv a) { return vrndnq_f32(a); } /* FRINTN: nearest, ties to even */
static inline kv kv_pow2i(kv n)
{
    int32x4_t e = vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127));
    return vreinterpretq_f32_s32(vshlq_n_s32(e, 23));
}
/* (a0 + a2) + (a1 + a3), the order of vec_generic.h */
static inline float kv_hsum(kv a)
{
    float32x2_t s = vadd_f32(vget_low_f32(a), vget_high_f32(a));
    return vget_lane_f32(vpadd_f32(s, s), 0);
}
static inline float kv_hmax(kv a) { return vmaxvq_f32(a); }
