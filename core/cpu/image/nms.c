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

/* The boxes kept so far for one batch and class, one array per coordinate
 * (and the area), so that testing a candidate against all of them is a
 * loop the compiler vectorizes: with many classes offset apart (torchvision's
 * batched NMS), a candidate overlaps few kept boxes and is compared with
 * every one of them, thousands per candidate. In float, as ONNX Runtime
 * computes it (its NMS takes float boxes only), so ties break alike. */
typedef struct kept_boxes {
    float *y1, *x1, *y2, *x2, *area;
    int64_t n;
} kept_boxes;

static inline float fmin2(float a, float b) { return a < b ? a : b; }
static inline float fmax2(float a, float b) { return a > b ? a : b; }

/* Box i of a batch as (ymin, xmin, ymax, xmax). */
static void read_box(const kn_tensor *boxes, int64_t base, int center, float *b)
{
    float v[4];
    for (int i = 0; i < 4; i++)
        v[i] = (float)kn_read_double(boxes, base + i);
    if (center) {
        b[0] = v[1] - v[3] / 2;
        b[1] = v[0] - v[2] / 2;
        b[2] = v[1] + v[3] / 2;
        b[3] = v[0] + v[2] / 2;
    } else {
        b[0] = fmin2(v[0], v[2]);
        b[1] = fmin2(v[1], v[3]);
        b[2] = fmax2(v[0], v[2]);
        b[3] = fmax2(v[1], v[3]);
    }
}

/* Whether any kept box's IoU with candidate b exceeds the threshold (the
 * division, then >, as ONNX Runtime compares); empty boxes never suppress
 * anything. Per block of 16 the intersections come first, without a
 * branch (vectorized); the division only for a block that has one. */
static int suppressed(const kept_boxes *k, const float *b, float threshold)
{
    float area_b = (b[2] - b[0]) * (b[3] - b[1]);
    if (!(area_b > 0))
        return 0;
    enum { BLOCK = 16 };
    float inter[BLOCK];
    for (int64_t j0 = 0; j0 < k->n; j0 += BLOCK) {
        int64_t len = k->n - j0 < BLOCK ? k->n - j0 : BLOCK;
        int any = 0;
        for (int64_t j = 0; j < len; j++) {
            float ih = fmin2(k->y2[j0 + j], b[2]) - fmax2(k->y1[j0 + j], b[0]);
            float iw = fmin2(k->x2[j0 + j], b[3]) - fmax2(k->x1[j0 + j], b[1]);
            inter[j] = ih > 0 && iw > 0 ? ih * iw : 0;
            any |= inter[j] > 0;
        }
        for (int64_t j = 0; any && j < len; j++) {
            float area = k->area[j0 + j];
            if (inter[j] > 0 && area > 0 && inter[j] / (area + area_b - inter[j]) > threshold)
                return 1;
        }
    }
    return 0;
}

static void keep(kept_boxes *k, const float *b)
{
    int64_t j = k->n++;
    k->y1[j] = b[0];
    k->x1[j] = b[1];
    k->y2[j] = b[2];
    k->x2[j] = b[3];
    k->area[j] = (b[2] - b[0]) * (b[3] - b[1]);
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
    size_t kept_cap = (size_t)(per_class > 0 ? per_class : 1);
    float *kept_mem = malloc(sizeof(float) * 5 * kept_cap);
    if (!st || !cand || !kept_mem) {
        free(st);
        free(cand);
        free(kept_mem);
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "NonMaxSuppression: out of memory");
    }
    st->count = 0;
    for (int64_t b = 0; b < nb && per_class > 0; b++) {
        for (int64_t c = 0; c < nc; c++) {
            int64_t m = 0;
            kept_boxes kept = {kept_mem, kept_mem + kept_cap, kept_mem + 2 * kept_cap,
                               kept_mem + 3 * kept_cap, kept_mem + 4 * kept_cap, 0};
            for (int64_t i = 0; i < n; i++) {
                double s = kn_read_double(scores, (b * nc + c) * n + i);
                if (s > score_min)
                    cand[m++] = (nms_cand){s, i};
            }
            qsort(cand, (size_t)m, sizeof *cand, cand_cmp);
            for (int64_t i = 0; i < m && kept.n < per_class; i++) {
                float box[4];
                read_box(boxes, (b * n + cand[i].index) * 4, (int)center, box);
                if (suppressed(&kept, box, (float)iou))
                    continue;
                keep(&kept, box);
                int64_t *row = st->rows + 3 * st->count++;
                row[0] = b;
                row[1] = c;
                row[2] = cand[i].index;
            }
        }
    }
    free(cand);
    free(kept_mem);
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
