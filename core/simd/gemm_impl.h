/* Body of the blocked GEMM, written once and instantiated by gemm.c for
 * float and double. Before including, gemm.c defines:
 *   GT             element type
 *   GS             type letter (s or d), giving kn_sgemm / kn_dgemm
 *   GISA           suffix of the entry points (empty, or _avx2 etc. when one
 *                  file per instruction set includes this)
 *   GMR, GNR       micro-tile rows and columns (what one micro-kernel call
 *                  computes from packed panels)
 *   GMC, GKC, GNC  cache blocks: an MC x KC block of A stays in L2 while a
 *                  KC x NR sliver of B stays in L1
 *   GMICRO()       expression giving the micro-kernel, a function
 *                  (kc, packed A panel, packed B panel, GMR x GNR tile)
 *   GMICRO_HALF()  optional: a micro-kernel computing only the first GNR/2
 *                  columns, used for a last column panel that narrow
 *   GDOT()         optional: the dot product (x, v, k) of the matrix-vector
 *                  path, when the instantiating file has a faster one
 *   GMICRO_C()     optional: a micro-kernel writing a whole tile straight
 *                  to C, (kc, A panel, B panel, c, ldc, bias or NULL,
 *                  accumulate): c = tile + bias[r], or c += tile; used
 *                  where alpha is 1 and beta 0 (or a later depth block)
 *
 * Loop nest per task (one rectangle of C): columns in NC blocks, depth in
 * KC blocks (pack B once), rows in MC blocks (pack A), then micro-tiles.
 * Each task packs into its own workspace slot, so tasks share nothing but
 * the read-only inputs; the little repacking this costs is ~1/(2*MC) and
 * ~1/(2*NC) of the arithmetic. */

#define G_CAT_(a, b) a##b
#define G_CAT(a, b) G_CAT_(a, b)
#define G_FN(name) G_CAT(G_CAT(name, GS), GISA) /* per instance: several may share a file */
#define G_ARGS G_CAT(G_CAT(kn_, GS), gemm_args)
/* entry points: kn_<GS><name><GISA>, e.g. kn_sgemm_avx2 */
#define G_PUB(name) G_CAT(G_CAT(G_CAT(kn_, GS), name), GISA)

/* packed A blocks (gemm_pack_a) start at panel bounds only if GMC is whole panels */
_Static_assert(GMC % GMR == 0, "GMC must be a multiple of GMR");

typedef void (*G_FN(micro_fn_))(int64_t kc, const GT *a, const GT *b, GT *tile);
typedef void (*G_FN(micro_c_fn_))(int64_t kc, const GT *a, const GT *b, GT *c, int64_t ldc,
                                  const GT *bias, int accumulate);

#ifdef GDOT
#define G_DOT GDOT()
#else
/* Dot product with two vector accumulators (a plain loop would not be
 * vectorised without reassociation). */
#if defined(__GNUC__)
typedef GT G_FN(vec_) __attribute__((vector_size(16)));
#define G_L ((int)(16 / sizeof(GT)))

static inline G_FN(vec_) G_FN(vload_)(const GT *p)
{
    G_FN(vec_) v;
    memcpy(&v, p, sizeof v);
    return v;
}

static GT G_FN(dot_)(const GT *x, const GT *v, int64_t k)
{
    G_FN(vec_) s0 = {0}, s1 = {0};
    int64_t p = 0;
    for (; p + 2 * G_L <= k; p += 2 * G_L) {
        s0 += G_FN(vload_)(x + p) * G_FN(vload_)(v + p);
        s1 += G_FN(vload_)(x + p + G_L) * G_FN(vload_)(v + p + G_L);
    }
    s0 += s1;
    GT s = 0;
    for (int l = 0; l < G_L; l++)
        s += s0[l];
    for (; p < k; p++)
        s += x[p] * v[p];
    return s;
}
#undef G_L
#else
static GT G_FN(dot_)(const GT *x, const GT *v, int64_t k)
{
    GT s = 0;
    for (int64_t p = 0; p < k; p++)
        s += x[p] * v[p];
    return s;
}
#endif
#define G_DOT G_FN(dot_)
#endif

/* op(A)[i0 .. i0+mc, p0 .. p0+kc] into panels of GMR rows, column by column,
 * rows past m zero-filled so the micro-kernel needs no edge cases. */
static void G_FN(pack_a_)(const G_ARGS *g, int64_t i0, int64_t mc, int64_t p0, int64_t kc, GT *dst)
{
    for (int64_t ir = 0; ir < mc; ir += GMR) {
        int64_t mr = mc - ir < GMR ? mc - ir : GMR;
        GT *d = dst + ir * kc;
        if (!g->trans_a) {
            for (int64_t r = 0; r < mr; r++) {
                const GT *src = g->a + (i0 + ir + r) * g->lda + p0;
                for (int64_t p = 0; p < kc; p++)
                    d[p * GMR + r] = src[p];
            }
        } else {
            for (int64_t p = 0; p < kc; p++) {
                const GT *src = g->a + (p0 + p) * g->lda + i0 + ir;
                for (int64_t r = 0; r < mr; r++)
                    d[p * GMR + r] = src[r];
            }
        }
        for (int64_t r = mr; r < GMR; r++)
            for (int64_t p = 0; p < kc; p++)
                d[p * GMR + r] = 0;
    }
}

/* op(B)[p0 .. p0+kc, j0 .. j0+nc] into panels of GNR columns, row by row. */
static void G_FN(pack_b_)(const G_ARGS *g, int64_t p0, int64_t kc, int64_t j0, int64_t nc, GT *dst)
{
    if (!g->trans_b) {
        /* Row-major B: walk each source row once, dealing it out to the
         * panels. Reading along rows keeps the hardware prefetcher on one
         * stream; reading panel by panel would jump a whole row (often
         * several KiB) per 64 bytes and miss cache on every line. */
        for (int64_t p = 0; p < kc; p++) {
            const GT *src = g->b + (p0 + p) * g->ldb + j0;
            int64_t jr = 0;
            for (; jr + GNR <= nc; jr += GNR)
                memcpy(dst + jr * kc + p * GNR, src + jr, sizeof(GT) * GNR);
            if (jr < nc) {
                GT *row = dst + jr * kc + p * GNR;
                int64_t j = 0;
                for (; j < nc - jr; j++)
                    row[j] = src[jr + j];
                for (; j < GNR; j++)
                    row[j] = 0;
            }
        }
        return;
    }
    for (int64_t jr = 0; jr < nc; jr += GNR) {
        int64_t nr = nc - jr < GNR ? nc - jr : GNR;
        GT *d = dst + jr * kc;
        {
            for (int64_t c = 0; c < nr; c++) {
                const GT *src = g->b + (j0 + jr + c) * g->ldb + p0;
                for (int64_t p = 0; p < kc; p++)
                    d[p * GNR + c] = src[p];
            }
            for (int64_t c = nr; c < GNR; c++)
                for (int64_t p = 0; p < kc; p++)
                    d[p * GNR + c] = 0;
        }
    }
}

/* One row of a finished micro-tile into C: the first depth block applies
 * beta and the bias, later ones accumulate. restrict and the fixed-width
 * case let gcc -O2 vectorise it. */
static inline void G_FN(store_row_)(GT *restrict c, const GT *restrict t, int64_t nr, GT alpha,
                                    GT beta, GT add, int first)
{
    if (nr == GNR) {
        if (!first)
            for (int j = 0; j < GNR; j++)
                c[j] += alpha * t[j];
        else if (beta == 0)
            for (int j = 0; j < GNR; j++)
                c[j] = alpha * t[j] + add;
        else
            for (int j = 0; j < GNR; j++)
                c[j] = alpha * t[j] + beta * c[j] + add;
        return;
    }
    for (int64_t j = 0; j < nr; j++)
        c[j] = alpha * t[j] + (first ? (beta == 0 ? 0 : beta * c[j]) + add : c[j]);
}

static void G_FN(store_)(const G_ARGS *g, int64_t i0, int64_t j0, int64_t mr, int64_t nr,
                         const GT *tile, int first)
{
    for (int64_t r = 0; r < mr; r++) {
        GT add = first && g->bias ? g->bias[i0 + r] : 0;
        G_FN(store_row_)(g->c + (i0 + r) * g->ldc + j0, tile + r * GNR, nr, g->alpha, g->beta, add,
                         first);
    }
}

typedef struct G_FN(job_) {
    const G_ARGS *g;
    int64_t m_round;         /* m rounded up to GMR: row stride of packed_a blocks */
    GT *ws;
    int64_t slot;            /* elements per task slot */
    int64_t a_elems;         /* the A part of a slot; B follows */
    int64_t tn;              /* tasks across columns */
    int64_t mchunk, nchunk;  /* rectangle of C per task */
    G_FN(micro_fn_) micro;
    G_FN(micro_fn_) micro_half; /* for panels of at most GNR / 2 columns */
    G_FN(micro_c_fn_) micro_c;  /* whole tiles straight to C, or NULL */
} G_FN(job_);

static void G_FN(task_)(void *ctx, int64_t begin, int64_t end)
{
    const G_FN(job_) *job = ctx;
    const G_ARGS *g = job->g;
    /* Concurrent ranges never share a begin index, so it names a free slot;
     * a range holding several tasks runs them one after another in it. */
    GT *apack = job->ws + begin * job->slot;
    GT *bpack = apack + job->a_elems;
    _Alignas(64) GT tile[GMR * GNR];
    for (int64_t t = begin; t < end; t++) {
        int64_t i_lo = (t / job->tn) * job->mchunk, j_lo = (t % job->tn) * job->nchunk;
        int64_t i_hi = i_lo + job->mchunk < g->m ? i_lo + job->mchunk : g->m;
        int64_t j_hi = j_lo + job->nchunk < g->n ? j_lo + job->nchunk : g->n;
        for (int64_t jc = j_lo; jc < j_hi; jc += GNC) {
            int64_t nc = j_hi - jc < GNC ? j_hi - jc : GNC;
            for (int64_t pc = 0; pc < g->k; pc += GKC) {
                int64_t kc = g->k - pc < GKC ? g->k - pc : GKC;
                G_FN(pack_b_)(g, pc, kc, jc, nc, bpack);
                for (int64_t ic = i_lo; ic < i_hi; ic += GMC) {
                    int64_t mc = i_hi - ic < GMC ? i_hi - ic : GMC;
                    const GT *ablk = apack;
                    if (g->packed_a) /* depth block pc, then panels from row ic */
                        ablk = g->packed_a + pc * job->m_round + ic * kc;
                    else
                        G_FN(pack_a_)(g, ic, mc, pc, kc, apack);
                    for (int64_t jr = 0; jr < nc; jr += GNR) {
                        int64_t nr = nc - jr < GNR ? nc - jr : GNR;
                        for (int64_t ir = 0; ir < mc; ir += GMR) {
                            int64_t mr = mc - ir < GMR ? mc - ir : GMR;
                            int direct = nr == GNR && mr == GMR && (pc > 0 || g->beta == 0);
                            if (job->micro_c && direct) {
                                int64_t i = ic + ir;
                                job->micro_c(kc, ablk + ir * kc, bpack + jr * kc,
                                             g->c + i * g->ldc + jc + jr, g->ldc,
                                             pc == 0 && g->bias ? g->bias + i : NULL, pc > 0);
                                continue;
                            }
                            G_FN(micro_fn_) micro = nr <= GNR / 2 ? job->micro_half : job->micro;
                            micro(kc, ablk + ir * kc, bpack + jr * kc, tile);
                            G_FN(store_)(g, ic + ir, jc + jr, mr, nr, tile, pc == 0);
                        }
                    }
                }
            }
        }
    }
}

static int64_t G_FN(round_up_)(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

/* Elements of one task slot (A block + B block, each 64-byte aligned). */
static int64_t G_FN(slot_elems_)(int64_t m, int64_t n, int64_t k, int64_t *a_elems)
{
    int64_t mcm = G_FN(round_up_)(m < GMC ? m : GMC, GMR);
    int64_t kcm = k < GKC ? (k > 0 ? k : 1) : GKC;
    int64_t ncm = G_FN(round_up_)(n < GNC ? n : GNC, GNR);
    int64_t per_line = 64 / (int64_t)sizeof(GT);
    if (a_elems)
        *a_elems = G_FN(round_up_)(mcm * kcm, per_line);
    return G_FN(round_up_)(mcm * kcm, per_line) + G_FN(round_up_)(kcm * ncm, per_line);
}

size_t G_PUB(gemm_workspace_size)(int64_t m, int64_t n, int64_t k, int32_t threads)
{
    if (m < 1)
        m = 1;
    if (n < 1)
        n = 1;
    if (threads < 1)
        threads = 1;
    return (size_t)G_FN(slot_elems_)(m, n, k, NULL) * sizeof(GT) * (size_t)threads + 64;
}

/* Whole op(A) in the layout task_ reads: depth blocks of GKC, each holding
 * all row panels. Task row ranges and GMC are multiples of GMR, so every
 * A block a task needs starts at a panel boundary. */
size_t G_PUB(gemm_packed_a_size)(int64_t m, int64_t k)
{
    return (size_t)(G_FN(round_up_)(m > 0 ? m : 1, GMR) * (k > 0 ? k : 1)) * sizeof(GT);
}

void G_PUB(gemm_pack_a)(int trans_a, int64_t m, int64_t k, const GT *a, int64_t lda, GT *dst)
{
    G_ARGS g = {.trans_a = trans_a, .m = m, .k = k, .a = a, .lda = lda};
    int64_t m_round = G_FN(round_up_)(m, GMR);
    for (int64_t pc = 0; pc < k; pc += GKC) {
        int64_t kc = k - pc < GKC ? k - pc : GKC;
        G_FN(pack_a_)(&g, 0, m, pc, kc, dst + pc * m_round);
    }
}

/* C = beta * C + bias, for the degenerate products (k == 0, alpha == 0). */
static void G_FN(scale_only_)(const G_ARGS *g)
{
    for (int64_t i = 0; i < g->m; i++) {
        GT *c = g->c + i * g->ldc;
        GT add = g->bias ? g->bias[i] : 0;
        for (int64_t j = 0; j < g->n; j++)
            c[j] = (g->beta == 0 ? 0 : g->beta * c[j]) + add;
    }
}

/* Matrix-vector products (m == 1 or n == 1) skip packing, which would cost
 * as much as the arithmetic. Seen from the output vector y (stride ys):
 * y[o] = alpha * sum_p X[o*so + p*sp] * v[p*vs] + beta * y[o] + bias(o). */
typedef struct G_FN(gemv_) {
    const GT *x, *v;
    int64_t so, sp, vs, k;
    GT *y;
    int64_t ys;
    GT alpha, beta;
    const GT *bias;
    int64_t bias_step; /* 0: one bias for all outputs (m == 1) */
} G_FN(gemv_);

#define G_GEMV_BLOCK 64

static void G_FN(gemv_task_)(void *ctx, int64_t begin, int64_t end)
{
    const G_FN(gemv_) *q = ctx;
    for (int64_t o0 = begin; o0 < end; o0 += G_GEMV_BLOCK) {
        int64_t len = end - o0 < G_GEMV_BLOCK ? end - o0 : G_GEMV_BLOCK;
        _Alignas(64) GT acc[G_GEMV_BLOCK];
        if (q->sp == 1) {
            /* rows of X are contiguous: one dot product per output */
            for (int64_t o = 0; o < len; o++) {
                const GT *xr = q->x + (o0 + o) * q->so;
                if (q->vs == 1) {
                    acc[o] = G_DOT(xr, q->v, q->k);
                } else {
                    GT s = 0;
                    for (int64_t p = 0; p < q->k; p++)
                        s += xr[p] * q->v[p * q->vs];
                    acc[o] = s;
                }
            }
        } else {
            /* columns contiguous (so == 1): accumulate scaled rows */
            for (int j = 0; j < G_GEMV_BLOCK; j++)
                acc[j] = 0;
            for (int64_t p = 0; p < q->k; p++) {
                const GT *xr = q->x + p * q->sp + o0;
                GT vp = q->v[p * q->vs];
                if (len == G_GEMV_BLOCK) {
                    for (int j = 0; j < G_GEMV_BLOCK; j++)
                        acc[j] += vp * xr[j];
                } else {
                    for (int64_t j = 0; j < len; j++)
                        acc[j] += vp * xr[j];
                }
            }
        }
        for (int64_t o = 0; o < len; o++) {
            GT *y = q->y + (o0 + o) * q->ys;
            GT add = q->bias ? q->bias[(o0 + o) * q->bias_step] : 0;
            *y = q->alpha * acc[o] + (q->beta == 0 ? 0 : q->beta * *y) + add;
        }
    }
}

static void G_FN(gemv_run_)(kn_threadpool *pool, const G_ARGS *g)
{
    G_FN(gemv_) q = {.k = g->k, .alpha = g->alpha, .beta = g->beta, .bias = g->bias};
    int64_t outs;
    if (g->m == 1) { /* y = op(B)^T a, along the row of C */
        outs = g->n;
        q.x = g->b;
        q.so = g->trans_b ? g->ldb : 1;
        q.sp = g->trans_b ? 1 : g->ldb;
        q.v = g->a;
        q.vs = g->trans_a ? g->lda : 1;
        q.y = g->c;
        q.ys = 1;
        q.bias_step = 0;
    } else { /* n == 1: y = op(A) b, down the column of C */
        outs = g->m;
        q.x = g->a;
        q.so = g->trans_a ? 1 : g->lda;
        q.sp = g->trans_a ? g->lda : 1;
        q.v = g->b;
        q.vs = g->trans_b ? 1 : g->ldb;
        q.y = g->c;
        q.ys = g->ldc;
        q.bias_step = 1;
    }
    /* One of so, sp is always 1; the dot form serves when both are. */
    int64_t grain = G_GEMV_BLOCK * (1 + (int64_t)(16384 / (g->k + 1)));
    kn_parallel_for(pool, outs, grain, G_FN(gemv_task_), &q);
}

/* Last resort when the caller's workspace is too small for even one slot:
 * correct, unpacked, slow. */
static void G_FN(naive_)(const G_ARGS *g)
{
    for (int64_t i = 0; i < g->m; i++)
        for (int64_t j = 0; j < g->n; j++) {
            GT s = 0;
            for (int64_t p = 0; p < g->k; p++) {
                GT av = g->trans_a ? g->a[p * g->lda + i] : g->a[i * g->lda + p];
                GT bv = g->trans_b ? g->b[j * g->ldb + p] : g->b[p * g->ldb + j];
                s += av * bv;
            }
            GT *c = g->c + i * g->ldc + j;
            *c = g->alpha * s + (g->beta == 0 ? 0 : g->beta * *c) + (g->bias ? g->bias[i] : 0);
        }
}

void G_PUB(gemm)(kn_threadpool *pool, const G_ARGS *g, void *workspace, size_t ws_bytes)
{
    if (g->m <= 0 || g->n <= 0)
        return;
    if (g->k <= 0 || g->alpha == 0) {
        G_FN(scale_only_)(g);
        return;
    }
    if (g->m == 1 || g->n == 1) {
        G_FN(gemv_run_)(pool, g);
        return;
    }
    int64_t a_elems;
    int64_t slot = G_FN(slot_elems_)(g->m, g->n, g->k, &a_elems);
    uintptr_t addr = (uintptr_t)workspace;
    size_t skip = (size_t)((64 - addr % 64) % 64);
    size_t slot_bytes = (size_t)slot * sizeof(GT);
    int64_t slots = ws_bytes > skip ? (int64_t)((ws_bytes - skip) / slot_bytes) : 0;
    if (!workspace || slots < 1) {
        G_FN(naive_)(g);
        return;
    }
    /* Tasks: no more than threads or slots, and each worth about a million
     * flops so that waking a thread pays for itself. */
    int64_t tasks = kn_threadpool_threads(pool);
    double flops = 2.0 * (double)g->m * (double)g->n * (double)g->k;
    if (tasks > slots)
        tasks = slots;
    if ((double)tasks > flops / (1 << 20))
        tasks = (int64_t)(flops / (1 << 20));
    if (tasks < 1)
        tasks = 1;
    /* Split columns first (every task then packs its own slice of B once),
     * rows only when there are too few column panels. */
    int64_t nb_n = (g->n + GNR - 1) / GNR, nb_m = (g->m + GMR - 1) / GMR;
    int64_t tn = tasks < nb_n ? tasks : nb_n;
    int64_t tm = tasks / tn < nb_m ? tasks / tn : nb_m;
    if (tm < 1)
        tm = 1;
    G_FN(job_) job = {.g = g,
                      .m_round = G_FN(round_up_)(g->m, GMR),
                      .ws = (GT *)((char *)workspace + skip),
                      .slot = slot,
                      .a_elems = a_elems,
                      .micro = GMICRO(),
#ifdef GMICRO_HALF
                      .micro_half = GMICRO_HALF(),
#else
                      .micro_half = GMICRO(),
#endif
#ifdef GMICRO_C
                      .micro_c = g->alpha == 1 ? GMICRO_C() : NULL,
#endif
    };
    job.nchunk = (nb_n + tn - 1) / tn * GNR;
    job.mchunk = (nb_m + tm - 1) / tm * GMR;
    job.tn = (g->n + job.nchunk - 1) / job.nchunk;
    tm = (g->m + job.mchunk - 1) / job.mchunk;
    kn_parallel_for(pool, tm * job.tn, 1, G_FN(task_), &job);
}

#undef G_GEMV_BLOCK
#undef G_DOT
#undef G_ARGS
#undef G_PUB
#undef G_FN
#undef G_CAT
#undef G_CAT_
