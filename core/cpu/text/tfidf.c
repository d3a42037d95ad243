/* TfIdfVectorizer (opset 9) for int32/int64 token ids. String tokens (a
 * string X, or pool_strings) are refused with a clear error in prepare:
 * Kiln has string tensors, but this kernel does not match string n-grams
 * yet. KN_STRING is in the row's dtype mask so such a node reaches that
 * message instead of "no kernel for dtype string".
 *
 * For every row of X, every start position and, for n-grams longer than
 * one, every skip s in [0, max_skip_count] (items s + 1 apart), the n-gram
 * of each length in [min_gram_length, max_gram_length] is looked up in the
 * pool; a hit counts once for that (start, skip). 1-grams do not depend on
 * the skip and count once per position. Y[ngram_indexes[i]] then holds the
 * count of pool n-gram i (TF), 1 if it occurred (IDF) or the count (TFIDF),
 * times weights[i] for IDF/TFIDF.
 *
 * The pool is CSR-like: ngram_counts[n-1] is the offset in pool_int64s
 * of the n-grams of length n. prepare() sorts each length's n-grams so run
 * finds them by binary search. */
#include <stdlib.h>
#include <string.h>

#include "core/kernel/tensor_common.h"

enum { TF_TF, TF_IDF, TF_TFIDF };

typedef struct tfidf_len {
    int64_t offset;   /* items into the pool */
    int64_t count;    /* n-grams of this length */
    int64_t first_id; /* pool index of the first of them */
    int64_t *order;   /* local indices sorted by their items */
} tfidf_len;

typedef struct tfidf_state {
    int mode;
    int64_t min_n, max_n, max_skip;
    const int64_t *pool;
    const int64_t *indexes;    /* per pool n-gram: output column */
    const float *weights;      /* per pool n-gram, or NULL (all 1) */
    int64_t grams, width;      /* pool n-grams, output columns */
    int64_t rows, cols;        /* X as [rows, cols] */
    tfidf_len *lens;           /* [max_n], lens[n - 1] */
} tfidf_state;

static void tfidf_release(kn_kctx *k)
{
    tfidf_state *s = k->state;
    if (s && s->lens)
        for (int64_t n = 0; n < s->max_n; n++)
            free(s->lens[n].order);
    if (s)
        free(s->lens);
    free(s);
    k->state = NULL;
}

/* Compares an n-gram of the pool with n items (a token window). */
static int gram_cmp(const int64_t *pool_gram, const int64_t *items, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (pool_gram[i] != items[i])
            return pool_gram[i] < items[i] ? -1 : 1;
    return 0;
}

/* Insertion sort of a length's n-grams: pools are attribute-sized, and
 * prepare runs once. */
static void sort_grams(const int64_t *base, int64_t n, int64_t *order, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        order[i] = i;
    for (int64_t i = 1; i < count; i++) {
        int64_t v = order[i], j = i;
        while (j > 0 && gram_cmp(base + order[j - 1] * n, base + v * n, n) > 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
}

static int tfidf_prepare(kn_kctx *k)
{
    const char *op = "TfIdfVectorizer";
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    if (x->dtype == KN_STRING || kn_node_attr(k->node, "pool_strings"))
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: string tokens are not supported", op);
    if (x->dtype != KN_INT32 && x->dtype != KN_INT64)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: X must be int32 or int64, not %s", op,
                       kn_dtype_name(x->dtype));
    if (x->rank != 1 && x->rank != 2)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: X must be 1-D or 2-D, not rank %d", op,
                       (int)x->rank);
    tfidf_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    k->state = s;
    const char *mode = kn_attr_string(k->node, "mode", "");
    s->mode = strcmp(mode, "TF") == 0 ? TF_TF : strcmp(mode, "IDF") == 0 ? TF_IDF
              : strcmp(mode, "TFIDF") == 0 ? TF_TFIDF : -1;
    if (s->mode < 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: mode must be TF, IDF or TFIDF, not '%s'",
                       op, mode);
    s->min_n = kn_attr_int(k->node, "min_gram_length", 0);
    s->max_n = kn_attr_int(k->node, "max_gram_length", 0);
    s->max_skip = kn_attr_int(k->node, "max_skip_count", 0);
    int32_t n_pool, n_counts, n_idx, n_w;
    s->pool = kn_attr_ints(k->node, "pool_int64s", &n_pool);
    const int64_t *counts = kn_attr_ints(k->node, "ngram_counts", &n_counts);
    s->indexes = kn_attr_ints(k->node, "ngram_indexes", &n_idx);
    s->weights = kn_attr_floats(k->node, "weights", &n_w);
    if (s->min_n < 1 || s->max_n < s->min_n || s->max_skip < 0 || s->max_n > 64)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: need 1 <= min_gram_length (%lld) <= "
                       "max_gram_length (%lld) <= 64 and max_skip_count (%lld) >= 0", op,
                       (long long)s->min_n, (long long)s->max_n, (long long)s->max_skip);
    if (n_counts < s->max_n)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: ngram_counts has %d entries, need %lld",
                       op, (int)n_counts, (long long)s->max_n);
    s->lens = calloc((size_t)s->max_n, sizeof *s->lens);
    if (!s->lens)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    for (int64_t n = 1; n <= s->max_n; n++) {
        int64_t begin = counts[n - 1], end = n < n_counts ? counts[n] : n_pool;
        if (begin < 0 || end < begin || end > n_pool || (end - begin) % n != 0)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: ngram_counts do not split the pool "
                           "of %d items into %lld-grams", op, (int)n_pool, (long long)n);
        tfidf_len *l = &s->lens[n - 1];
        l->offset = begin;
        l->count = (end - begin) / n;
        l->first_id = s->grams;
        s->grams += l->count;
        l->order = malloc((size_t)(l->count > 0 ? l->count : 1) * sizeof *l->order);
        if (!l->order)
            return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
        if (l->count > 0) /* an empty pool has no base pointer */
            sort_grams(s->pool + begin, n, l->order, l->count);
    }
    /* n-grams longer than max_gram_length may follow in the pool: unused */
    if (n_idx < s->grams || (s->weights && n_w < s->grams))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: ngram_indexes (%d) and weights (%d) "
                       "need an entry per pool n-gram (%lld)", op, (int)n_idx,
                       (int)(s->weights ? n_w : n_idx), (long long)s->grams);
    for (int64_t i = 0; i < s->grams; i++) {
        if (s->indexes[i] < 0)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: ngram_indexes[%lld] is negative",
                           op, (long long)i);
        s->width = s->indexes[i] + 1 > s->width ? s->indexes[i] + 1 : s->width;
    }
    s->rows = x->rank == 2 ? x->dims[0] : 1;
    s->cols = x->dims[x->rank - 1];
    kn_tensor *y = k->out[0];
    y->dtype = KN_FLOAT;
    y->rank = x->rank;
    y->dims[0] = x->rank == 2 ? s->rows : s->width;
    y->dims[1] = s->width;
    /* per row: token ids as int64, counts per pool n-gram */
    k->scratch_bytes = (size_t)(s->cols + s->grams + 1) * sizeof(int64_t);
    return KN_OK;
}

/* Pool id of the n-gram items[0..n), or -1. */
static int64_t find_gram(const tfidf_state *s, int64_t n, const int64_t *items)
{
    const tfidf_len *l = &s->lens[n - 1];
    if (l->count == 0) /* no n-grams of this length (and maybe no pool at all) */
        return -1;
    const int64_t *base = s->pool + l->offset;
    int64_t lo = 0, hi = l->count;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int c = gram_cmp(base + l->order[mid] * n, items, n);
        if (c == 0)
            return l->first_id + l->order[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int tfidf_run(kn_kctx *k)
{
    const tfidf_state *s = k->state;
    const kn_tensor *x = k->in[0];
    int64_t *tokens = k->scratch, *counts = tokens + s->cols;
    float *y = k->out[0]->data;
    int64_t items[64];
    for (int64_t r = 0; r < s->rows; r++) {
        kn_convert(x->dtype, (const char *)x->data + (size_t)(r * s->cols) * kn_dtype_size(x->dtype),
                   KN_INT64, tokens, s->cols);
        memset(counts, 0, (size_t)s->grams * sizeof *counts);
        for (int64_t i = 0; i < s->cols; i++)
            for (int64_t n = s->min_n; n <= s->max_n; n++)
                for (int64_t skip = 0; skip <= (n == 1 ? 0 : s->max_skip); skip++) {
                    int64_t step = skip + 1;
                    if (i + (n - 1) * step >= s->cols)
                        break;
                    for (int64_t j = 0; j < n; j++)
                        items[j] = tokens[i + j * step];
                    int64_t id = find_gram(s, n, items);
                    if (id >= 0)
                        counts[id]++;
                }
        float *row = y + r * s->width;
        memset(row, 0, (size_t)s->width * sizeof *row);
        for (int64_t id = 0; id < s->grams; id++) {
            if (!counts[id])
                continue;
            float w = s->weights ? s->weights[id] : 1.0f;
            float c = s->mode == TF_IDF ? 1.0f : (float)counts[id];
            row[s->indexes[id]] += s->mode == TF_TF ? c : c * w;
        }
    }
    return KN_OK;
}

const kn_op_def kn_op_TfIdfVectorizer = {
    .op_type = "TfIdfVectorizer", .since_version = 9,
    .dtypes = KN_BIT(KN_INT32) | KN_BIT(KN_INT64) | KN_BIT(KN_STRING), .prepare = tfidf_prepare,
    .run = tfidf_run, .release = tfidf_release
};
