/* Activations that kernels apply in their epilogue (Conv, fused ops) and
 * that the elementwise ops run on their own. One description, used by the
 * vector kernels (kernels.h) and by the scalar reference below. */
#ifndef KN_SIMD_ACTIVATION_H
#define KN_SIMD_ACTIVATION_H

#include <math.h>

typedef enum kn_act_kind {
    KN_ACT_NONE = 0,
    KN_ACT_RELU,         /* max(x, 0), NaN kept */
    KN_ACT_CLIP,         /* min(max(x, alpha), beta) */
    KN_ACT_LEAKY_RELU,   /* x < 0 ? alpha x : x */
    KN_ACT_SIGMOID,      /* 1 / (1 + e^-x) */
    KN_ACT_HARD_SIGMOID, /* clamp(alpha x + beta, 0, 1) */
    KN_ACT_TANH,
    KN_ACT_HARD_SWISH,   /* x * clamp(x / 6 + 1/2, 0, 1) */
    KN_ACT_SILU,         /* x * sigmoid(x) */
    KN_ACT_GELU,         /* x / 2 * (1 + erf(x / sqrt 2)) */
    KN_ACT_COUNT
} kn_act_kind;

typedef struct kn_activation {
    kn_act_kind kind;
    float alpha, beta; /* Clip: min, max; LeakyRelu: alpha; HardSigmoid: alpha, beta */
} kn_activation;

/* Scalar definition of each activation: what the vector kernels must
 * match within a few ulp. */
static inline float kn_act_ref(const kn_activation *a, float x)
{
    switch (a ? a->kind : KN_ACT_NONE) {
    case KN_ACT_RELU:
        return x < 0 ? 0.0f : x;
    case KN_ACT_CLIP:
        return x < a->alpha ? a->alpha : x > a->beta ? a->beta : x;
    case KN_ACT_LEAKY_RELU:
        return x < 0 ? a->alpha * x : x;
    case KN_ACT_SIGMOID:
        return (float)(1.0 / (1.0 + exp(-(double)x)));
    case KN_ACT_HARD_SIGMOID: {
        float v = a->alpha * x + a->beta;
        return v < 0 ? 0.0f : v > 1 ? 1.0f : v;
    }
    case KN_ACT_TANH:
        return (float)tanh((double)x);
    case KN_ACT_HARD_SWISH: {
        float v = x / 6.0f + 0.5f;
        return x * (v < 0 ? 0.0f : v > 1 ? 1.0f : v);
    }
    case KN_ACT_SILU:
        return (float)((double)x / (1.0 + exp(-(double)x)));
    case KN_ACT_GELU:
        return (float)(0.5 * (double)x * (1.0 + erf((double)x * 0.70710678118654752440)));
    default:
        return x;
    }
}

#endif
