/* The CUDA backend's kernels, one row per kn_op_def, grouped by the family
 * file that defines them. Each kernel's prepare() declines what it does
 * not serve (another dtype, an attribute cuDNN lacks, no device), and the
 * node then runs on the next backend, with the engine copying its inputs
 * and outputs across. */
#include <stddef.h>

#include "core/kernel/op.h"

#define CUDA_ELEMENTWISE_OPS(X)                                                                    \
    X(Relu) X(LeakyRelu) X(Sigmoid) X(HardSigmoid) X(HardSwish) X(Tanh) X(Gelu) X(Exp) X(Log)     \
    X(Sqrt) X(Neg) X(Abs) X(Reciprocal) X(Erf) X(Floor) X(Ceil) X(Softplus) X(Elu) X(Sin) X(Cos)  \
    X(Clip) X(Add) X(Sub) X(Mul) X(Div) X(Pow) X(Max) X(Min) X(PRelu) X(kiln_Gelu) X(kiln_Silu)

#define DECLARE(name) extern const kn_op_def kn_cuda_##name;
#define ENTRY(name) &kn_cuda_##name,

CUDA_ELEMENTWISE_OPS(DECLARE)

/* elementwise.c */
const kn_op_def *const kn_cuda_elementwise_ops[] = {CUDA_ELEMENTWISE_OPS(ENTRY) NULL};
