/* NonMaxSuppression (opsets 10 and 11, same semantics): per batch and
 * class, greedily keep the highest-scoring boxes whose IoU with every box
 * already kept is at most iou_threshold; boxes scoring at or below
 * score_threshold never enter; at most max_output_boxes_per_class per
 * class. Boxes are [y1, x1, y2, x2] with either diagonal (center_point_box
 * 0) or [x_center, y_center, width, height] (1). Output: one row
 * [batch, class, box] per kept box, batch-major, then class, then score.
 *
 * How many boxes survive is the op's whole result and decides the output
 * shape, so the selection runs in prepare(), which needs every input's
 * value (KN_ERR_NEEDS_VALUE otherwise: the runtime then prepares this node
 * with values at each run). run() copies the kept rows out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu/image/image_common.h"

typedef struct nms_state {
    int64_t count;
    int64_t rows[]; /* count x 3 */
} nms_state;

typedef struct nms_cand {
    double score;
    int64_t index;
} nms_cand;

/* Higher score first; equal scores keep the lower index first. */
static int cand_cmp(const void *a, const void *b)
{
    const nms_cand *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* Box i of a batch as (ymin, xmin, ymax, xmax). */
static void read_box(const kn_tensor *boxes, int64_t base, int center, double *b)
{
    double v[4];
    for (int i = 0; i < 4; i++)
        v[i] = kn_read_double(boxes, base + i);
    if (center) {
        b[0] = v[1] - v[3] / 2;
        b[1] = v[0] - v[2] / 2;
        b[2] = v[1] + v[3] / 2;
        b[3] = v[0] + v[2] / 2;
    } else {
        b[0] = fmin(v[0], v[2]);
        b[1] = fmin(v[1], v[3]);
        b[2] = fmax(v[0], v[2]);
        b[3] = fmax(v[1], v[3]);
    }
}

/* True when the IoU of a and b exceeds the threshold; empty boxes never
 * suppress anything. */
static int overlaps(const double *a, const double *b, double threshold)
{
    double area_a = (a[2] - a[0]) * (a[3] - a[1]), area_b = (b[2] - b[0]) * (b[3] - b[1]);
    if (!(area_a > 0) || !(area_b > 0))
        return 0;
    double ih = fmin(a[2], b[2]) - fmax(a[0], b[0]), iw = fmin(a[3], b[3]) - fmax(a[1], b[1]);
    if (ih <= 0 || iw <= 0)
        return 0;
    double inter = ih * iw;
    return inter / (area_a + area_b - inter) > threshold;
}

static double scalar_or(kn_kctx *k, int32_t idx, double dflt)
{
    const kn_tensor *t = kn_input(k, idx);
    return t && kn_tensor_numel(t) > 0 ? kn_read_double(t, 0) : dflt;
}

static int nms_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *boxes = k->in[0], *scores = k->in[1];
    if (!(KN_BIT(boxes->dtype) & IMG_MASK_FLOAT) || scores->dtype != boxes->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "NonMaxSuppression: boxes and scores must be float");
    if (boxes->rank != 3 || boxes->dims[2] != 4 || scores->rank != 3 ||
        scores->dims[0] != boxes->dims[0] || scores->dims[2] != boxes->dims[1])
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "NonMaxSuppression: boxes must be B x N x 4 and scores B x C x N");
    static const char *const names[] = {"boxes", "scores", "max_output_boxes_per_class",
                                        "iou_threshold", "score_threshold"};
    for (int32_t i = 0; i < 5; i++) {
        const kn_tensor *t = kn_input(k, i);
        if (t && !t->data && kn_tensor_numel(t) > 0)
            return kn_fail(k->err, KN_ERR_NEEDS_VALUE,
                           "NonMaxSuppression: output shape depends on the value of input '%s'",
                           names[i]);
        if (i >= 2 && t && kn_tensor_numel(t) > 1)
            return kn_fail(k->err, KN_ERR_SHAPE, "NonMaxSuppression: %s must be a scalar",
                           names[i]);
    }
    const kn_tensor *mo = kn_input(k, 2);
    if (mo && mo->dtype != KN_INT64 && mo->dtype != KN_INT32)
        return kn_fail(k->err, KN_ERR_DTYPE,
                       "NonMaxSuppression: max_output_boxes_per_class must be int64");
    int64_t max_out = mo && kn_tensor_numel(mo) > 0 ? kn_read_int(mo, 0) : 0;
    double iou = scalar_or(k, 3, 0), score_min = scalar_or(k, 4, -INFINITY);
    int64_t center = kn_attr_int(k->node, "center_point_box", 0);
    if (center != 0 && center != 1)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "NonMaxSuppression: center_point_box must be 0 or 1");
    if (iou < 0 || iou > 1)
        return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT,
                       "NonMaxSuppression: iou_threshold %g is outside [0, 1]", iou);

    int64_t nb = boxes->dims[0], nc = scores->dims[1], n = boxes->dims[1];
    int64_t per_class = max_out < n ? max_out : n;
    if (per_class < 0)
        per_class = 0;
    size_t rows_cap = (size_t)(nb * nc) * (size_t)per_class;
    nms_state *st = malloc(sizeof *st + rows_cap * 3 * sizeof(int64_t));
    nms_cand *cand = malloc(sizeof *cand * (size_t)(n > 0 ? n : 1));
    double *kept = malloc(sizeof(double) * 4 * (size_t)(per_class > 0 ? per_class : 1));
    if (!st || !cand || !kept) {
        free(st);
        free(cand);
        free(kept);
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "NonMaxSuppression: out of memory");
    }
    st->count = 0;
    for (int64_t b = 0; b < nb && per_class > 0; b++) {
        for (int64_t c = 0; c < nc; c++) {
            int64_t m = 0, nkept = 0;
            for (int64_t i = 0; i < n; i++) {
                double s = kn_read_double(scores, (b * nc + c) * n + i);
                if (s > score_min)
                    cand[m++] = (nms_cand){s, i};
            }
            qsort(cand, (size_t)m, sizeof *cand, cand_cmp);
            for (int64_t i = 0; i < m && nkept < per_class; i++) {
                double box[4];
                read_box(boxes, (b * n + cand[i].index) * 4, (int)center, box);
                int suppressed = 0;
                for (int64_t j = 0; j < nkept && !suppressed; j++)
                    suppressed = overlaps(kept + 4 * j, box, iou);
                if (suppressed)
                    continue;
                memcpy(kept + 4 * nkept++, box, sizeof box);
                int64_t *row = st->rows + 3 * st->count++;
                row[0] = b;
                row[1] = c;
                row[2] = cand[i].index;
            }
        }
    }
    free(cand);
    free(kept);
    k->state = st;
    kn_tensor *y = k->out[0];
    y->dtype = KN_INT64;
    y->rank = 2;
    y->dims[0] = st->count;
    y->dims[1] = 3;
    return KN_OK;
}

static int nms_run(kn_kctx *k)
{
    const nms_state *st = k->state;
    if (st->count > 0)
        memcpy(k->out[0]->data, st->rows, (size_t)st->count * 3 * sizeof(int64_t));
    return KN_OK;
}

static void nms_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_nonmaxsuppression_10 = {
    .op_type = "NonMaxSuppression", .since_version = 10, .dtypes = IMG_MASK_FLOAT,
    .prepare = nms_prepare, .run = nms_run, .release = nms_release
};
