/* The CUDA backend's kernels, one row per kn_op_def, grouped by the family
 * file that defines them. Each kernel's prepare() declines what it does
 * not serve (another dtype, an attribute cuDNN lacks, no device), and the
 * node then runs on the next backend, with the engine copying its inputs
 * and outputs across. */
#include <stddef.h>

#include "core/kernel/op.h"

/* One op list per family, packed as written. */
/* clang-format off */
#define CUDA_ELEMENTWISE_OPS(X)                                                                    \
    X(Relu) X(LeakyRelu) X(Sigmoid) X(HardSigmoid) X(HardSwish) X(Tanh) X(Gelu) X(Exp) X(Log)     \
    X(Sqrt) X(Neg) X(Abs) X(Reciprocal) X(Erf) X(Floor) X(Ceil) X(Softplus) X(Elu) X(Sin) X(Cos)  \
    X(Clip) X(Add) X(Sub) X(Mul) X(Div) X(Pow) X(Max) X(Min) X(PRelu) X(kiln_Gelu) X(kiln_Silu)    \
    X(kiln_ElementwiseChain) X(Equal) X(Less) X(Greater) X(LessOrEqual) X(GreaterOrEqual)          \
    X(Where) X(Cast)

#define CUDA_TENSOR_OPS(X)                                                                         \
    X(Reshape) X(Flatten) X(Squeeze) X(Unsqueeze) X(Identity) X(Transpose) X(Slice) X(Expand)      \
    X(Gather) X(Concat) X(Split)

#define CUDA_PRODUCT_OPS(X) X(MatMul) X(Gemm) X(kiln_FusedMatMul) X(kiln_FusedGemm)

#define CUDA_CONV_POOL_OPS(X)                                                                      \
    X(padded_Conv) X(padded_FusedConv) X(padded_NhwcConv) X(MaxPool) X(AveragePool)              \
    X(kiln_NhwcMaxPool) X(kiln_NhwcAveragePool)

#define CUDA_ROW_OPS(X)                                                                            \
    X(Softmax) X(LogSoftmax) X(LayerNormalization) X(kiln_LayerNormalization) X(ReduceMean)        \
    X(ReduceSum) X(ReduceMax) X(ReduceMin) X(GlobalAveragePool) X(GlobalMaxPool)                   \
    X(kiln_NhwcGlobalAveragePool)

#define CUDA_ATTENTION_OPS(X) X(kiln_Attention)

#define CUDA_IMAGE_OPS(X) X(Resize) X(Upsample) X(Pad)

/* clang-format on */

#define DECLARE(name) extern const kn_op_def kn_cuda_##name;
#define ENTRY(name) &kn_cuda_##name,

CUDA_ELEMENTWISE_OPS(DECLARE)
CUDA_TENSOR_OPS(DECLARE)
CUDA_PRODUCT_OPS(DECLARE)
CUDA_CONV_POOL_OPS(DECLARE)
CUDA_ROW_OPS(DECLARE)
CUDA_ATTENTION_OPS(DECLARE)
CUDA_IMAGE_OPS(DECLARE)

/* elementwise.c */
const kn_op_def *const kn_cuda_elementwise_ops[] = {CUDA_ELEMENTWISE_OPS(ENTRY) NULL};
/* tensor.c */
const kn_op_def *const kn_cuda_tensor_ops[] = {CUDA_TENSOR_OPS(ENTRY) NULL};
/* matmul.c */
const kn_op_def *const kn_cuda_product_ops[] = {CUDA_PRODUCT_OPS(ENTRY) NULL};
/* conv_pads.c over conv.c, pool.c */
const kn_op_def *const kn_cuda_conv_pool_ops[] = {CUDA_CONV_POOL_OPS(ENTRY) NULL};
/* rows.c */
const kn_op_def *const kn_cuda_row_ops[] = {CUDA_ROW_OPS(ENTRY) NULL};
/* attention.c */
const kn_op_def *const kn_cuda_attention_ops[] = {CUDA_ATTENTION_OPS(ENTRY) NULL};
/* resize.c, pad.c */
const kn_op_def *const kn_cuda_image_ops[] = {CUDA_IMAGE_OPS(ENTRY) NULL};
