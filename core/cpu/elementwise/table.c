/* The elementwise family of CPU kernels: unary and binary math, comparisons,
 * logic, Where, Cast and bit reinterpretation. One row per kn_op_def, grouped
 * by the file that defines it; several rows for one op where opset ranges or
 * dtypes differ. core/cpu/backend_cpu.c lists this table. */
#include <stddef.h>

#include "core/kernel/op.h"

extern const kn_op_def kn_op_Relu, kn_op_Relu_14, kn_op_LeakyRelu, kn_op_Clip, kn_op_Clip_11,
    kn_op_Clip_12, kn_op_Sigmoid, kn_op_HardSigmoid, kn_op_HardSwish, kn_op_Tanh, kn_op_Elu,
    kn_op_Selu, kn_op_Celu, kn_op_ThresholdedRelu, kn_op_Softplus, kn_op_Softsign, kn_op_Mish,
    kn_op_Gelu, kn_op_Shrink, kn_op_Exp, kn_op_Log, kn_op_Sqrt, kn_op_Neg, kn_op_Abs,
    kn_op_Reciprocal, kn_op_Floor, kn_op_Ceil, kn_op_Round, kn_op_Erf, kn_op_Sign, kn_op_Sin,
    kn_op_Cos, kn_op_Tan, kn_op_Asin, kn_op_Acos, kn_op_Atan, kn_op_Sinh, kn_op_Cosh, kn_op_Asinh,
    kn_op_Acosh, kn_op_Atanh, kn_op_IsNaN, kn_op_IsInf, kn_op_Not;
extern const kn_op_def kn_op_Add, kn_op_Sub, kn_op_Mul, kn_op_Div, kn_op_Pow, kn_op_Pow_12,
    kn_op_Mod, kn_op_PRelu, kn_op_PRelu_9, kn_op_BitShift, kn_op_Equal, kn_op_Less, kn_op_Greater,
    kn_op_LessOrEqual, kn_op_GreaterOrEqual, kn_op_And, kn_op_Or, kn_op_Xor, kn_op_Sum, kn_op_Max,
    kn_op_Min, kn_op_Mean;
extern const kn_op_def kn_op_Where;
extern const kn_op_def kn_op_Cast, kn_op_CastLike;
extern const kn_op_def kn_op_BitwiseAnd, kn_op_BitwiseOr, kn_op_BitwiseXor, kn_op_BitwiseNot;
extern const kn_op_def kn_op_BitCast;
extern const kn_op_def kn_op_Swish;

const kn_op_def *const kn_cpu_elementwise_ops[] = {
    /* unary.c */
    &kn_op_Relu, &kn_op_Relu_14, &kn_op_LeakyRelu, &kn_op_Clip, &kn_op_Clip_11, &kn_op_Clip_12,
    &kn_op_Sigmoid, &kn_op_HardSigmoid, &kn_op_HardSwish, &kn_op_Tanh, &kn_op_Elu, &kn_op_Selu,
    &kn_op_Celu, &kn_op_ThresholdedRelu, &kn_op_Softplus, &kn_op_Softsign, &kn_op_Mish,
    &kn_op_Gelu, &kn_op_Shrink, &kn_op_Exp, &kn_op_Log, &kn_op_Sqrt, &kn_op_Neg, &kn_op_Abs,
    &kn_op_Reciprocal, &kn_op_Floor, &kn_op_Ceil, &kn_op_Round, &kn_op_Erf, &kn_op_Sign,
    &kn_op_Sin, &kn_op_Cos, &kn_op_Tan, &kn_op_Asin, &kn_op_Acos, &kn_op_Atan, &kn_op_Sinh,
    &kn_op_Cosh, &kn_op_Asinh, &kn_op_Acosh, &kn_op_Atanh, &kn_op_IsNaN, &kn_op_IsInf,
    &kn_op_Not,
    /* binary.c */
    &kn_op_Add, &kn_op_Sub, &kn_op_Mul, &kn_op_Div, &kn_op_Pow, &kn_op_Pow_12, &kn_op_Mod,
    &kn_op_PRelu, &kn_op_PRelu_9, &kn_op_BitShift, &kn_op_Equal, &kn_op_Less, &kn_op_Greater,
    &kn_op_LessOrEqual, &kn_op_GreaterOrEqual, &kn_op_And, &kn_op_Or, &kn_op_Xor, &kn_op_Sum,
    &kn_op_Max, &kn_op_Min, &kn_op_Mean,
    /* where.c */
    &kn_op_Where,
    /* cast.c */
    &kn_op_Cast, &kn_op_CastLike,
    /* misc_bitwise.c */
    &kn_op_BitwiseAnd, &kn_op_BitwiseOr, &kn_op_BitwiseXor, &kn_op_BitwiseNot,
    /* bitcast.c */
    &kn_op_BitCast,
    /* swish.c */
    &kn_op_Swish,
    NULL,
};
