/* Strided copy engine: one loop nest behind Transpose (permuted strides),
 * Slice (offset and stepped, possibly negative, strides), Expand (zero
 * strides) and Tile (dims split into repeat x size with a zero stride).
 * Works on element byte size, so one code path serves every dtype. */
#include <string.h>

#include "core/kernel/tensor_common.h"

void kn_dense_strides(const int64_t *dims, int32_t rank, int64_t *strides)
{
    /* Unsigned so a shape whose full product overflows (refused later by
     * its byte size) is no undefined behaviour here. */
    uint64_t s = 1;
    for (int32_t d = rank - 1; d >= 0; d--) {
        strides[d] = (int64_t)s;
        s *= (uint64_t)dims[d];
    }
}

void kn_strided_init(kn_strided_plan *p, size_t elem_size, int32_t rank, const int64_t *dims,
                     const int64_t *strides, int64_t offset)
{
    memset(p, 0, sizeof *p);
    p->elem_size = elem_size;
    p->offset = offset;
    p->numel = 1;
    for (int32_t d = 0; d < rank; d++)
        if (dims[d] == 0) { /* empty: nothing to walk, and no products to overflow */
            p->numel = 0;
            return;
        }
    int32_t r = 0;
    for (int32_t d = 0; d < rank; d++) {
        p->numel *= dims[d];
        if (dims[d] == 1)
            continue; /* its index is always 0: stride irrelevant */
        /* The outer dim continues the inner one in the source when its
         * stride spans exactly the inner dim: walk both as one. */
        if (r > 0 && p->strides[r - 1] == strides[d] * dims[d]) {
            p->dims[r - 1] *= dims[d];
            p->strides[r - 1] = strides[d];
            continue;
        }
        p->dims[r] = dims[d];
        p->strides[r] = strides[d];
        r++;
    }
    if (r == 0) {
        p->dims[0] = 1;
        p->strides[0] = 0;
        r = 1;
    }
    p->rank = r;
}

#define STRIDED_LOOP(T)                                                       \
    do {                                                                      \
        const T *s_ = (const T *)src;                                         \
        T *d_ = (T *)dst;                                                     \
        for (int64_t i = 0; i < n; i++)                                       \
            d_[i] = s_[i * stride];                                           \
    } while (0)

/* n elements from src (advancing `stride` elements each) to dense dst. */
static void copy_row(char *dst, const char *src, int64_t n, int64_t stride, size_t es)
{
    if (stride == 1) {
        memcpy(dst, src, (size_t)n * es);
        return;
    }
    if (stride == 0) {
        kn_fill_pattern(dst, src, es, n);
        return;
    }
    switch (es) {
    case 1: STRIDED_LOOP(uint8_t); break;
    case 2: STRIDED_LOOP(uint16_t); break;
    case 4: STRIDED_LOOP(uint32_t); break;
    case 8: STRIDED_LOOP(uint64_t); break;
    default:
        for (int64_t i = 0; i < n; i++)
            memcpy(dst + (size_t)i * es, src + (ptrdiff_t)(i * stride) * (ptrdiff_t)es, es);
    }
}

typedef struct strided_job {
    const kn_strided_plan *p;
    const char *src;
    char *dst;
} strided_job;

/* Copies output elements [begin, end): finds the source position of
 * `begin` once, then advances an odometer row by row. */
static void strided_range(void *ctx, int64_t begin, int64_t end)
{
    const strided_job *job = ctx;
    const kn_strided_plan *p = job->p;
    const int32_t last = p->rank - 1;
    const ptrdiff_t es = (ptrdiff_t)p->elem_size;
    int64_t idx[KN_STRIDED_MAX_RANK];
    int64_t rem = begin, src = p->offset;
    for (int32_t d = last; d >= 0; d--) {
        idx[d] = rem % p->dims[d];
        rem /= p->dims[d];
        src += idx[d] * p->strides[d];
    }
    for (int64_t pos = begin; pos < end;) {
        int64_t n = p->dims[last] - idx[last];
        if (n > end - pos)
            n = end - pos;
        copy_row(job->dst + (ptrdiff_t)pos * es, job->src + (ptrdiff_t)src * es, n,
                 p->strides[last], p->elem_size);
        pos += n;
        idx[last] += n;
        src += n * p->strides[last];
        for (int32_t d = last; d > 0 && idx[d] == p->dims[d]; d--) {
            src += p->strides[d - 1] - idx[d] * p->strides[d];
            idx[d] = 0;
            idx[d - 1]++;
        }
    }
}

/* ---- tiled 2-D transposes ----
 * When the output's innermost dim walks the source with a large stride but
 * the dim before it walks the source contiguously (NCHW <-> NHWC, a plain
 * matrix transpose), row-by-row copying touches a new cache line for every
 * element read. Copying TILE x TILE blocks instead reads TILE short
 * contiguous runs and writes TILE short contiguous rows, all cache
 * resident. Work units are (outer index, block of TILE output rows). */
#define TILE 32

static int is_tiled_transpose(const kn_strided_plan *p)
{
    int32_t last = p->rank - 1;
    /* A narrow output row (NCHW -> NHWC of an RGB image: 3 columns) still
     * gains: copied row by row it would be one call per 3 elements. */
    return p->rank >= 2 && p->strides[last - 1] == 1 && p->strides[last] != 1 &&
           p->strides[last] != 0 && p->dims[last - 1] >= TILE / 2 && p->dims[last] >= 2 &&
           p->elem_size <= 8;
}

#define TILE_LOOP(T)                                                          \
    for (int64_t c0 = 0; c0 < cols; c0 += TILE) {                             \
        int64_t c1 = c0 + TILE < cols ? c0 + TILE : cols;                     \
        for (int64_t r = r0; r < r1; r++) {                                   \
            const T *s_ = (const T *)src + r;                                 \
            T *d_ = (T *)dst + r * cols;                                      \
            for (int64_t c = c0; c < c1; c++)                                 \
                d_[c] = s_[c * cs];                                           \
        }                                                                     \
    }

/* The same for an image's 3 or 4 channels (NCHW -> NHWC of a network's
 * input): the column count a constant, so a pixel is three or four plain
 * moves instead of a trip round the tile's inner loop. */
#define NARROW_LOOP(T, COLS)                                                  \
    for (int64_t r = r0; r < r1; r++) {                                       \
        const T *s_ = (const T *)src + r;                                     \
        T *d_ = (T *)dst + r * (COLS);                                        \
        for (int64_t c = 0; c < (COLS); c++)                                  \
            d_[c] = s_[c * cs];                                               \
    }
#define NARROW(T)                                                             \
    do {                                                                      \
        if (cols == 3)                                                        \
            NARROW_LOOP(T, 3)                                                 \
        else if (cols == 4)                                                   \
            NARROW_LOOP(T, 4)                                                 \
        else                                                                  \
            TILE_LOOP(T)                                                      \
    } while (0)

static void tile_range(void *ctx, int64_t begin, int64_t end)
{
    const strided_job *job = ctx;
    const kn_strided_plan *p = job->p;
    const int32_t last = p->rank - 1;
    const int64_t rows = p->dims[last - 1], cols = p->dims[last], cs = p->strides[last];
    const int64_t blocks = (rows + TILE - 1) / TILE;
    const ptrdiff_t es = (ptrdiff_t)p->elem_size;
    for (int64_t u = begin; u < end; u++) {
        /* source offset of this outer index, and the 2-D slice it owns */
        int64_t rem = u / blocks, off = p->offset;
        for (int32_t d = last - 2; d >= 0; d--) {
            off += (rem % p->dims[d]) * p->strides[d];
            rem /= p->dims[d];
        }
        const char *src = job->src + off * es;
        char *dst = job->dst + (u / blocks) * rows * cols * es;
        int64_t r0 = (u % blocks) * TILE, r1 = r0 + TILE < rows ? r0 + TILE : rows;
        switch (es) {
        case 1: NARROW(uint8_t); break;
        case 2: NARROW(uint16_t); break;
        case 4: NARROW(uint32_t); break;
        default: NARROW(uint64_t); break;
        }
    }
}

void kn_strided_run(const kn_strided_plan *p, const void *src, void *dst, kn_threadpool *pool)
{
    if (p->numel <= 0)
        return;
    strided_job job = {p, src, dst};
    if (is_tiled_transpose(p)) {
        const int32_t last = p->rank - 1;
        int64_t blocks = (p->dims[last - 1] + TILE - 1) / TILE;
        int64_t units = p->numel / (p->dims[last - 1] * p->dims[last]) * blocks;
        int64_t per_unit = TILE * p->dims[last] * (int64_t)p->elem_size;
        kn_parallel_for(pool, units, 65536 / per_unit + 1, tile_range, &job);
        return;
    }
    /* ~64 KiB per task keeps the split worthwhile for small elements. */
    int64_t grain = (int64_t)(65536 / p->elem_size);
    kn_parallel_for(pool, p->numel, grain > 0 ? grain : 1, strided_range, &job);
}
