/* The padding engine of Pad (pad.c), shared with CenterCropPad: given
 * per-axis begin / end pads (negative pads crop), it sets output 0's
 * descriptor and builds the state pad.c's run() uses. */
#ifndef KN_CPU_IMAGE_PAD_H
#define KN_CPU_IMAGE_PAD_H

#include <stdint.h>

#include "core/kernel/op.h"

enum { IMG_PAD_CONSTANT, IMG_PAD_REFLECT, IMG_PAD_EDGE, IMG_PAD_WRAP };

/* Plans padding input 0 by begin[d] / end[d] along every axis d in mode;
 * value (16 bytes, an element of input 0's dtype) is the constant, unless
 * value_input >= 0 names an input holding it (read at run time). Sets
 * k->state; fails with KN_ERR_SHAPE naming op when a size goes negative. */
int img_pad_plan(kn_kctx *k, const char *op, int mode, const int64_t *begin, const int64_t *end,
                 const void *value, int32_t value_input);
int img_pad_run(kn_kctx *k);
void img_pad_release(kn_kctx *k);

#endif
