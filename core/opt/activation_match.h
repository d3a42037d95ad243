/* Recognising the activation that follows a value, for the fusion passes:
 * Relu, LeakyRelu, Sigmoid, HardSigmoid, Tanh, HardSwish, Clip (bounds as
 * attributes or, opset 11+, constant inputs), Gelu (exact), kiln.Gelu,
 * kiln.Silu, and x * Sigmoid(x) (Silu). The fused ops carry it as the
 * attributes `activation` (name) and `activation_params` (floats). */
#ifndef KN_OPT_ACTIVATION_MATCH_H
#define KN_OPT_ACTIVATION_MATCH_H

#include "core/simd/activation.h"
#include "core/opt/rewrite.h"

typedef struct kn_act_match {
    kn_activation act;
    int32_t output;     /* the activation's output value */
    int32_t nodes[2];   /* nodes it replaces */
    int32_t n_nodes;
} kn_act_match;

/* The activation applied to v and nothing else (v is private to it, or to
 * the Sigmoid and Mul of a Silu); 0 when there is none. */
int kn_opt_match_activation(kn_opt *o, int32_t v, kn_act_match *m);

/* Removes what one fused node replaces: the producer, the Add after it
 * (add_id, or -1) and, when has_act, the matched activation's nodes.
 * Returns the node the fused one goes after, and sets *out to the value it
 * writes (the activation's output when there is one). */
int32_t kn_opt_remove_fused_chain(kn_opt *o, int32_t producer, int32_t add_id,
                                  const kn_act_match *m, int has_act, int32_t *out);

/* Appends `activation` / `activation_params` after a copy of base's n
 * attributes; returns the array (pool) and its count in *count. */
kn_attr *kn_opt_attrs_with_activation(kn_opt *o, const kn_attr *base, int32_t n,
                                      const kn_activation *act, int32_t *count);

#endif
