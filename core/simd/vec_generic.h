/* kv backend: 16-byte GCC/Clang vector extensions, 4 floats (see vec.h).
 * The compiler maps them to SSE2 on any x86-64, NEON on arm64 and plain
 * scalar code where there is no vector unit. kv_fma rounds twice. */
#if !defined(__GNUC__)
#error "core/simd/vec_generic.h needs GCC or Clang vector extensions"
#endif

typedef float kv __attribute__((vector_size(16)));
typedef int32_t kvm __attribute__((vector_size(16)));
#define KV_W 4
#define KV_NAME "generic"

static inline kv kv_zero(void) { return (kv){0, 0, 0, 0}; }
static inline kv kv_set1(float x) { return (kv){x, x, x, x}; }
static inline kv kv_loadu(const float *p)
{
    kv v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void kv_storeu(float *p, kv v) { memcpy(p, &v, sizeof v); }
static inline kv kv_load_part(const float *p, int n, float fill)
{
    kv v = kv_set1(fill);
    memcpy(&v, p, sizeof(float) * (size_t)n);
    return v;
}
static inline void kv_store_part(float *p, kv v, int n) { memcpy(p, &v, sizeof(float) * (size_t)n); }
static inline kv kv_load_even(const float *p) { return (kv){p[0], p[2], p[4], p[6]}; }
static inline kv kv_add(kv a, kv b) { return a + b; }
static inline kv kv_sub(kv a, kv b) { return a - b; }
static inline kv kv_mul(kv a, kv b) { return a * b; }
static inline kv kv_div(kv a, kv b) { return a / b; }
static inline kv kv_fma(kv a, kv b, kv c) { return a * b + c; }
static inline kv kv_select(kvm m, kv t, kv f)
{
    kvm ti, fi;
    memcpy(&ti, &t, sizeof ti);
    memcpy(&fi, &f, sizeof fi);
    kvm r = (m & ti) | (~m & fi);
    kv out;
    memcpy(&out, &r, sizeof out);
    return out;
}
static inline kvm kv_lt(kv a, kv b) { return a < b; }
static inline kvm kv_gt(kv a, kv b) { return a > b; }
static inline kvm kv_ne(kv a, kv b) { return a != b; }
static inline kv kv_max(kv a, kv b) { return kv_select(a > b, a, b); }
static inline kv kv_min(kv a, kv b) { return kv_select(a < b, a, b); }
static inline kv kv_abs(kv a)
{
    kvm bits;
    memcpy(&bits, &a, sizeof bits);
    bits &= 0x7fffffff;
    memcpy(&a, &bits, sizeof a);
    return a;
}
static inline kv kv_round(kv a)
{
    /* adding and removing 1.5 * 2^23 rounds to an integer in the current
     * (nearest-even) mode; exact for |a| < 2^22 */
    const kv magic = kv_set1(12582912.0f);
    return (a + magic) - magic; /* not reassociated: no -ffast-math here */
}
static inline kv kv_pow2i(kv n)
{
    kvm e = (__builtin_convertvector(n, kvm) + 127) << 23;
    kv out;
    memcpy(&out, &e, sizeof out);
    return out;
}
static inline float kv_hsum(kv a) { return (a[0] + a[2]) + (a[1] + a[3]); }
static inline float kv_hmax(kv a)
{
    float m = a[0];
    for (int l = 1; l < 4; l++)
        m = a[l] > m ? a[l] : m;
    return m;
}
