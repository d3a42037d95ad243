/* What the host code and the device code of the CUDA backend both read:
 * the parameter blocks its kernels take by value and the numbers naming
 * their operations. Included by C files and by the .cu files, so it is
 * plain C with fixed-width types only. */
#ifndef KN_CUDA_DEVICE_PARAMS_H
#define KN_CUDA_DEVICE_PARAMS_H

#include <stdint.h>

enum { KN_CUDA_MAX_DIMS = 8 };

/* An elementwise walk over an output of `rank` dims: operand k's element
 * for output position (c_0 .. c_rank-1) is at sum c_d * stride[k][d]
 * (0 along a broadcast dim). `flat`: every operand is contiguous with the
 * output's shape, so element i is at i. */
typedef struct kn_cuda_walk {
    int64_t n;
    int32_t rank, flat;
    int64_t dims[KN_CUDA_MAX_DIMS];
    int64_t stride[2][KN_CUDA_MAX_DIMS];
    int64_t offset; /* of operand 0 (a Slice's start) */
} kn_cuda_walk;

/* Unary operations. The activations take kn_act_kind's numbers
 * (core/simd/activation.h; the C side checks they agree), so a fused
 * kernel's `activation` attribute is passed through unchanged. */
enum {
    KN_CUDA_U_NONE = 0,
    KN_CUDA_U_RELU = 1,
    KN_CUDA_U_CLIP = 2,
    KN_CUDA_U_LEAKY_RELU = 3,
    KN_CUDA_U_SIGMOID = 4,
    KN_CUDA_U_HARD_SIGMOID = 5,
    KN_CUDA_U_TANH = 6,
    KN_CUDA_U_HARD_SWISH = 7,
    KN_CUDA_U_SILU = 8,
    KN_CUDA_U_GELU = 9,
    KN_CUDA_U_EXP = 32,
    KN_CUDA_U_LOG,
    KN_CUDA_U_SQRT,
    KN_CUDA_U_NEG,
    KN_CUDA_U_ABS,
    KN_CUDA_U_RECIPROCAL,
    KN_CUDA_U_ERF,
    KN_CUDA_U_FLOOR,
    KN_CUDA_U_CEIL,
    KN_CUDA_U_SOFTPLUS,
    KN_CUDA_U_ELU,
    KN_CUDA_U_SIN,
    KN_CUDA_U_COS,
    KN_CUDA_U_GELU_TANH, /* Gelu with approximate="tanh" */
};

/* Binary operations: y = act(a OP b). */
enum {
    KN_CUDA_B_ADD = 0,
    KN_CUDA_B_SUB,
    KN_CUDA_B_MUL,
    KN_CUDA_B_DIV,
    KN_CUDA_B_POW,
    KN_CUDA_B_MAX,
    KN_CUDA_B_MIN,
    KN_CUDA_B_PRELU, /* a < 0 ? a * b : a */
};

/* Comparisons: y = (a OP b) as bool (one byte, 0 or 1). */
enum {
    KN_CUDA_C_EQUAL = 0,
    KN_CUDA_C_LESS,
    KN_CUDA_C_GREATER,
    KN_CUDA_C_LESS_EQUAL,
    KN_CUDA_C_GREATER_EQUAL
};

/* An activation applied after a product or a binary op. */
typedef struct kn_cuda_act {
    int32_t op; /* KN_CUDA_U_*: an activation or KN_CUDA_U_NONE */
    float alpha, beta;
} kn_cuda_act;

/* kiln.ElementwiseChain: up to KN_CUDA_CHAIN_STEPS steps applied to each
 * element in turn. A step's op is a KN_CUDA_U_* unary op, or
 * KN_CUDA_CHAIN_BINARY + a KN_CUDA_B_* op whose other operand is tensor
 * `operand` of kn_cuda_chain_operands or, when operand is -1, the scalar
 * alpha; `reversed`: operand OP value (RSub, RDiv). */
enum { KN_CUDA_CHAIN_STEPS = 16, KN_CUDA_CHAIN_OPERANDS = 8, KN_CUDA_CHAIN_BINARY = 100 };
typedef struct kn_cuda_chain {
    int64_t n;
    int32_t n_steps;
    int32_t op[KN_CUDA_CHAIN_STEPS], operand[KN_CUDA_CHAIN_STEPS], reversed[KN_CUDA_CHAIN_STEPS];
    float alpha[KN_CUDA_CHAIN_STEPS], beta[KN_CUDA_CHAIN_STEPS];
} kn_cuda_chain;

/* The chain's tensor operands: X's shape (full) or one element. */
typedef struct kn_cuda_chain_operands {
    const float *data[KN_CUDA_CHAIN_OPERANDS];
    int32_t full[KN_CUDA_CHAIN_OPERANDS];
} kn_cuda_chain_operands;

/* Resize: how output index o of an axis maps to input coordinates (the
 * ONNX coordinate_transformation_mode), how nearest rounds, and the
 * interpolation; an axis with moves[d] 0 reads input index o for output
 * index o (an unresized N or C), so the kernel does no arithmetic there. */
enum { KN_CUDA_RS_NEAREST = 0, KN_CUDA_RS_LINEAR, KN_CUDA_RS_CUBIC };
enum {
    KN_CUDA_CT_HALF_PIXEL = 0,
    KN_CUDA_CT_HALF_PIXEL_SYMMETRIC,
    KN_CUDA_CT_PYTORCH_HALF_PIXEL,
    KN_CUDA_CT_ALIGN_CORNERS,
    KN_CUDA_CT_ASYMMETRIC,
    KN_CUDA_CT_TF_HALF_PIXEL_FOR_NN
};
enum {
    KN_CUDA_NM_ROUND_PREFER_FLOOR = 0,
    KN_CUDA_NM_ROUND_PREFER_CEIL,
    KN_CUDA_NM_FLOOR,
    KN_CUDA_NM_CEIL
};
typedef struct kn_cuda_resize {
    int64_t n; /* output elements */
    int32_t rank, mode, ctm, nearest_mode;
    double cubic_a;
    int64_t in_dims[KN_CUDA_MAX_DIMS], out_dims[KN_CUDA_MAX_DIMS], in_stride[KN_CUDA_MAX_DIMS];
    /* scale[d] = output / input length; width[d] = scale[d] * in_dims[d],
     * the real-valued output length some transforms divide by */
    double scale[KN_CUDA_MAX_DIMS], width[KN_CUDA_MAX_DIMS];
    int32_t moves[KN_CUDA_MAX_DIMS];
} kn_cuda_resize;

/* Pad: output element (o_0 .. o_r-1) reads input index o_d - begin[d]
 * along each axis, or, outside the input, the constant (mode constant) or
 * the index the mode maps it to: the nearest edge, the reflection without
 * repeating the edge, or the wrapped one. value holds the constant's bytes
 * (little-endian, the element's size). */
enum { KN_CUDA_PAD_CONSTANT = 0, KN_CUDA_PAD_REFLECT, KN_CUDA_PAD_EDGE, KN_CUDA_PAD_WRAP };
typedef struct kn_cuda_pad {
    int64_t n; /* output elements */
    int32_t rank, mode;
    int64_t in_dims[KN_CUDA_MAX_DIMS], out_dims[KN_CUDA_MAX_DIMS], begin[KN_CUDA_MAX_DIMS];
    int64_t in_stride[KN_CUDA_MAX_DIMS];
    uint64_t value;
} kn_cuda_pad;

/* Pooling windows cuDNN cannot take (asymmetric pads, a ceil_mode window,
 * dilations), done directly: output position o along spatial dim d reads
 * input positions o * stride - pad + t * dilation, t < kernel, those inside
 * the input. NCHW, or channels-last when nhwc. With count_include_pad an
 * average divides by the taps inside the input and its pads (ONNX's rule:
 * a ceil_mode window running past the end padding counts short). */
enum { KN_CUDA_POOL_MAX = 0, KN_CUDA_POOL_AVERAGE_EXCLUDE_PAD, KN_CUDA_POOL_AVERAGE_INCLUDE_PAD };
typedef struct kn_cuda_pool {
    int64_t n; /* output elements */
    int32_t nsp, mode, nhwc;
    int64_t batch, channels;
    int64_t in[3], out[3], kernel[3], stride[3], pad[3], dilation[3];
    int64_t pad_end[3]; /* count_include_pad: padding counts up to here */
} kn_cuda_pool;

#endif
