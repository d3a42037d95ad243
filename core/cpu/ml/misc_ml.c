/* Operators of the ai.onnx.ml domain that work on plain numeric tensors:
 * Binarizer (1), ArrayFeatureExtractor (1) and TreeEnsemble (5).
 *
 * TreeEnsemble evaluates decision trees stored as parallel node arrays:
 * node i compares feature nodes_featureids[i] with nodes_splits[i] by
 * nodes_modes[i] (<=, <, >=, >, ==, !=, or membership in a set), and goes
 * to nodes_truenodeids[i] / nodes_falsenodeids[i], which name a leaf when
 * nodes_trueleafs[i] / nodes_falseleafs[i] is set. A leaf adds
 * leaf_weights[l] to output column leaf_targetids[l]; trees combine by
 * sum, average, min or max, then an optional softmax or logistic. Sets of
 * the membership nodes are consecutive runs of membership_values separated
 * by NaN, in node order. A NaN feature takes the true branch where
 * nodes_missing_value_tracks_true says so, else the comparison decides
 * (false, except "!="). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel/tensor_common.h"

#define ML_DOMAIN "ai.onnx.ml"

/* ---- Binarizer: 1 where x > threshold, else 0 ---- */

static int binarizer_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    kn_copy_desc(k->out[0], k->in[0]);
    return KN_OK;
}

typedef struct binarizer_job {
    int32_t dtype;
    double threshold;
    const char *x;
    char *y;
} binarizer_job;

static void binarizer_range(void *ctx, int64_t begin, int64_t end)
{
    const binarizer_job *j = ctx;
    size_t es = kn_dtype_size(j->dtype);
    double v[KN_CHUNK];
    for (int64_t i = begin; i < end; i += KN_CHUNK) {
        int64_t m = end - i < KN_CHUNK ? end - i : KN_CHUNK;
        kn_convert(j->dtype, j->x + (size_t)i * es, KN_DOUBLE, v, m);
        for (int64_t t = 0; t < m; t++)
            v[t] = v[t] > j->threshold ? 1 : 0;
        kn_convert(KN_DOUBLE, v, j->dtype, j->y + (size_t)i * es, m);
    }
}

static int binarizer_run(kn_kctx *k)
{
    binarizer_job j = {k->in[0]->dtype, kn_attr_float(k->node, "threshold", 0), k->in[0]->data,
                       k->out[0]->data};
    kn_parallel_for(k->threads, kn_tensor_numel(k->in[0]), KN_GRAIN, binarizer_range, &j);
    return KN_OK;
}

/* int64 thresholds beyond 2^53 compare approximately (double). */
const kn_op_def kn_op_Binarizer = {
    .domain = ML_DOMAIN, .op_type = "Binarizer", .since_version = 1,
    .dtypes = KN_MASK_FLOATS | KN_BIT(KN_INT32) | KN_BIT(KN_INT64), .flags = KN_OP_INPLACE,
    .prepare = binarizer_prepare, .run = binarizer_run
};

/* ---- ArrayFeatureExtractor: X[..., Y] along the last axis ---- */

static int afe_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0], *y = k->in[1];
    if (y->dtype != KN_INT64)
        return kn_fail(k->err, KN_ERR_DTYPE, "ArrayFeatureExtractor: indices must be int64, not %s",
                       kn_dtype_name(y->dtype));
    if (x->rank < 1)
        return kn_fail(k->err, KN_ERR_SHAPE, "ArrayFeatureExtractor: X must have rank >= 1");
    kn_tensor *z = k->out[0];
    kn_copy_desc(z, x);
    if (x->rank == 1) { /* a 1-D input gives one row, as in ONNX Runtime */
        z->rank = 2;
        z->dims[0] = 1;
    }
    z->dims[z->rank - 1] = kn_tensor_numel(y);
    return KN_OK;
}

static int afe_run(kn_kctx *k)
{
    const kn_tensor *x = k->in[0], *y = k->in[1];
    int64_t width = x->dims[x->rank - 1], n = kn_tensor_numel(y);
    int64_t rows = width > 0 ? kn_tensor_numel(x) / width : 0;
    size_t es = kn_dtype_size(x->dtype);
    const int64_t *idx = y->data;
    for (int64_t i = 0; i < n; i++)
        if (idx[i] < 0 || idx[i] >= width)
            return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT, "ArrayFeatureExtractor: index %lld is "
                           "out of range for %lld features", (long long)idx[i], (long long)width);
    const char *src = x->data;
    char *dst = k->out[0]->data;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t i = 0; i < n; i++)
            memcpy(dst + (size_t)(r * n + i) * es, src + (size_t)(r * width + idx[i]) * es, es);
    return KN_OK;
}

const kn_op_def kn_op_ArrayFeatureExtractor = {
    .domain = ML_DOMAIN, .op_type = "ArrayFeatureExtractor", .since_version = 1,
    .dtypes = KN_MASK_FLOATS | KN_BIT(KN_INT32) | KN_BIT(KN_INT64), .prepare = afe_prepare,
    .run = afe_run
};

/* ---- TreeEnsemble ---- */

enum { TE_LEQ, TE_LT, TE_GTE, TE_GT, TE_EQ, TE_NEQ, TE_MEMBER };
enum { AGG_AVERAGE, AGG_SUM, AGG_MIN, AGG_MAX };
enum { POST_NONE, POST_SOFTMAX, POST_LOGISTIC, POST_SOFTMAX_ZERO };

typedef struct te_node {
    int64_t feature, next[2]; /* next[1]: true branch, next[0]: false */
    uint8_t leaf[2], mode, nan_true;
    double split;
    int64_t set_begin, set_end; /* membership values of a member node */
} te_node;

typedef struct te_state {
    int64_t n_nodes, n_leaves, n_trees, n_targets, n_features, rows;
    int agg, post;
    te_node *nodes;
    int64_t *roots, *leaf_target;
    double *leaf_weight, *members;
} te_state;

/* A tensor attribute as n doubles (NULL if absent or not numeric). */
static double *tensor_attr(const kn_node *node, const char *name, int64_t *n)
{
    const kn_attr *a = kn_node_attr(node, name);
    *n = 0;
    if (!a || a->type != KN_ATTR_TENSOR || !a->t || !kn_convert_supported(a->t->dtype))
        return NULL;
    *n = kn_tensor_numel(a->t);
    double *v = malloc((size_t)(*n > 0 ? *n : 1) * sizeof *v);
    if (v)
        kn_convert(a->t->dtype, a->t->data, KN_DOUBLE, v, *n);
    return v;
}

static void te_release(kn_kctx *k)
{
    te_state *s = k->state;
    if (s) {
        free(s->nodes);
        free(s->leaf_weight);
        free(s->members);
    }
    free(s);
    k->state = NULL;
}

static int te_prepare(kn_kctx *k)
{
    const char *op = "TreeEnsemble";
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    if (x->rank != 2)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: X must be [rows, features], not rank %d", op,
                       (int)x->rank);
    te_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    k->state = s;
    s->rows = x->dims[0];
    s->n_features = x->dims[1];
    s->agg = (int)kn_attr_int(k->node, "aggregate_function", AGG_SUM);
    s->post = (int)kn_attr_int(k->node, "post_transform", POST_NONE);
    s->n_targets = kn_attr_int(k->node, "n_targets", 0);
    if (s->agg < AGG_AVERAGE || s->agg > AGG_MAX || s->n_targets < 1)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: bad aggregate_function or n_targets", op);
    if (s->post < POST_NONE || s->post > POST_SOFTMAX_ZERO)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: post_transform %d is not supported", op,
                       s->post);
    int32_t nf, nt, ntl, nfa, nfl, nr, nlt, nmv;
    const int64_t *feat = kn_attr_ints(k->node, "nodes_featureids", &nf);
    const int64_t *tid = kn_attr_ints(k->node, "nodes_truenodeids", &nt);
    const int64_t *tleaf = kn_attr_ints(k->node, "nodes_trueleafs", &ntl);
    const int64_t *fid = kn_attr_ints(k->node, "nodes_falsenodeids", &nfa);
    const int64_t *fleaf = kn_attr_ints(k->node, "nodes_falseleafs", &nfl);
    const int64_t *roots = kn_attr_ints(k->node, "tree_roots", &nr);
    const int64_t *ltarget = kn_attr_ints(k->node, "leaf_targetids", &nlt);
    const int64_t *mvt = kn_attr_ints(k->node, "nodes_missing_value_tracks_true", &nmv);
    int64_t n_modes, n_splits, n_weights, n_members;
    double *modes = tensor_attr(k->node, "nodes_modes", &n_modes);
    double *splits = tensor_attr(k->node, "nodes_splits", &n_splits);
    s->leaf_weight = tensor_attr(k->node, "leaf_weights", &n_weights);
    s->members = tensor_attr(k->node, "membership_values", &n_members);
    s->n_nodes = nf;
    s->n_leaves = nlt;
    s->n_trees = nr;
    s->roots = (int64_t *)roots;
    s->leaf_target = (int64_t *)ltarget;
    s->nodes = calloc((size_t)(nf > 0 ? nf : 1), sizeof *s->nodes);
    int rc = KN_OK;
    if (!s->nodes || (n_weights && !s->leaf_weight))
        rc = kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    else if (nt != nf || ntl != nf || nfa != nf || nfl != nf || n_modes != nf || n_splits != nf ||
             (nmv && nmv != nf) || n_weights != nlt || nr < 1 || !modes || !splits)
        rc = kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: node and leaf attributes differ in length",
                     op);
    int64_t set = 0;
    for (int64_t i = 0; rc == KN_OK && i < nf; i++) {
        te_node *n = &s->nodes[i];
        if (!(modes[i] >= TE_LEQ && modes[i] <= TE_MEMBER) || feat[i] < 0 ||
            feat[i] >= s->n_features) {
            rc = kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: node %lld has a bad mode or feature",
                         op, (long long)i);
            break;
        }
        n->feature = feat[i];
        n->mode = (uint8_t)modes[i];
        n->split = splits[i];
        n->next[1] = tid[i];
        n->next[0] = fid[i];
        n->leaf[1] = tleaf[i] != 0;
        n->leaf[0] = fleaf[i] != 0;
        n->nan_true = nmv && mvt[i];
        for (int b = 0; b < 2 && rc == KN_OK; b++)
            if (n->next[b] < 0 || n->next[b] >= (n->leaf[b] ? nlt : nf))
                rc = kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: node %lld branches to a missing "
                             "%s", op, (long long)i, n->leaf[b] ? "leaf" : "node");
        if (rc == KN_OK && n->mode == TE_MEMBER) { /* next NaN-terminated run */
            n->set_begin = set;
            while (set < n_members && s->members[set] == s->members[set])
                set++;
            n->set_end = set++;
        }
    }
    for (int64_t i = 0; rc == KN_OK && i < nlt; i++)
        if (ltarget[i] < 0 || ltarget[i] >= s->n_targets)
            rc = kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: leaf %lld targets column %lld of %lld",
                         op, (long long)i, (long long)ltarget[i], (long long)s->n_targets);
    for (int64_t i = 0; rc == KN_OK && i < nr; i++)
        if (roots[i] < 0 || roots[i] >= nf)
            rc = kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: tree root %lld is not a node", op,
                         (long long)roots[i]);
    free(modes);
    free(splits);
    if (rc != KN_OK)
        return rc;
    kn_tensor *y = k->out[0];
    y->dtype = x->dtype;
    y->rank = 2;
    y->dims[0] = s->rows;
    y->dims[1] = s->n_targets;
    /* per row: features, sums, hit counts (min/max) */
    k->scratch_bytes = (size_t)(s->n_features + 2 * s->n_targets) * sizeof(double);
    return KN_OK;
}

static int te_branch(const te_state *s, const te_node *n, double v)
{
    if (v != v && n->nan_true)
        return 1;
    switch (n->mode) {
    case TE_LEQ: return v <= n->split;
    case TE_LT: return v < n->split;
    case TE_GTE: return v >= n->split;
    case TE_GT: return v > n->split;
    case TE_EQ: return v == n->split;
    case TE_NEQ: return v != n->split;
    default:
        for (int64_t i = n->set_begin; i < n->set_end; i++)
            if (s->members[i] == v)
                return 1;
        return 0;
    }
}

static int te_run(kn_kctx *k)
{
    const te_state *s = k->state;
    const kn_tensor *x = k->in[0];
    double *feat = k->scratch, *acc = feat + s->n_features, *hits = acc + s->n_targets;
    size_t es = kn_dtype_size(x->dtype);
    for (int64_t r = 0; r < s->rows; r++) {
        kn_convert(x->dtype, (const char *)x->data + (size_t)(r * s->n_features) * es, KN_DOUBLE,
                   feat, s->n_features);
        for (int64_t t = 0; t < s->n_targets; t++)
            acc[t] = hits[t] = 0;
        for (int64_t tr = 0; tr < s->n_trees; tr++) {
            int64_t id = s->roots[tr], steps = 0;
            for (;;) {
                const te_node *n = &s->nodes[id];
                int b = te_branch(s, n, feat[n->feature]);
                id = n->next[b];
                if (n->leaf[b])
                    break;
                if (++steps > s->n_nodes)
                    return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT, "TreeEnsemble: tree %lld "
                                   "has a cycle", (long long)tr);
            }
            int64_t t = s->leaf_target[id];
            double w = s->leaf_weight[id];
            if (s->agg == AGG_MIN)
                acc[t] = hits[t] && acc[t] < w ? acc[t] : w;
            else if (s->agg == AGG_MAX)
                acc[t] = hits[t] && acc[t] > w ? acc[t] : w;
            else
                acc[t] += w;
            hits[t] = 1;
        }
        if (s->agg == AGG_AVERAGE)
            for (int64_t t = 0; t < s->n_targets; t++)
                acc[t] /= (double)s->n_trees;
        if (s->post == POST_LOGISTIC) {
            for (int64_t t = 0; t < s->n_targets; t++)
                acc[t] = 1 / (1 + exp(-acc[t]));
        } else if (s->post == POST_SOFTMAX || s->post == POST_SOFTMAX_ZERO) {
            /* SOFTMAX_ZERO leaves zeros at zero */
            double mx = -INFINITY, sum = 0;
            for (int64_t t = 0; t < s->n_targets; t++)
                mx = acc[t] > mx ? acc[t] : mx;
            for (int64_t t = 0; t < s->n_targets; t++) {
                int keep_zero = s->post == POST_SOFTMAX_ZERO && acc[t] == 0;
                acc[t] = keep_zero ? 0 : exp(acc[t] - mx);
                sum += acc[t];
            }
            for (int64_t t = 0; t < s->n_targets && sum > 0; t++)
                acc[t] /= sum;
        }
        kn_convert(KN_DOUBLE, acc, x->dtype, (char *)k->out[0]->data + (size_t)(r * s->n_targets) * es,
                   s->n_targets);
    }
    return KN_OK;
}

const kn_op_def kn_op_TreeEnsemble = {
    .domain = ML_DOMAIN, .op_type = "TreeEnsemble", .since_version = 5,
    .dtypes = KN_MASK_FLOATS | KN_BIT(KN_FLOAT16), .prepare = te_prepare, .run = te_run,
    .release = te_release
};
