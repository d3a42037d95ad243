/* CPU kernels for elementwise math and tensor manipulation. One row per
 * kn_op_def; several rows for one op where opset ranges differ in
 * semantics or types. */
#include <stddef.h>

#include "core/op.h"

#define TENSOR_OPS(X)                                                         \
    /* unary.c */                                                             \
    X(Relu) X(Relu_14) X(LeakyRelu) X(Clip) X(Clip_11) X(Clip_12)             \
    X(Sigmoid) X(HardSigmoid) X(HardSwish) X(Tanh) X(Elu) X(Selu) X(Celu)     \
    X(ThresholdedRelu) X(Softplus) X(Softsign) X(Mish) X(Gelu) X(Shrink)      \
    X(Exp) X(Log) X(Sqrt) X(Neg) X(Abs) X(Reciprocal) X(Floor) X(Ceil)        \
    X(Round) X(Erf) X(Sign) X(Sin) X(Cos) X(Tan) X(Asin) X(Acos) X(Atan)      \
    X(Sinh) X(Cosh) X(Asinh) X(Acosh) X(Atanh) X(IsNaN) X(IsInf) X(Not)      \
    /* binary.c */                                                            \
    X(Add) X(Sub) X(Mul) X(Div) X(Pow) X(Pow_12) X(Mod) X(PRelu) X(PRelu_9)   \
    X(BitShift) X(Equal) X(Less) X(Greater) X(LessOrEqual)                    \
    X(GreaterOrEqual) X(And) X(Or) X(Xor) X(Sum) X(Max) X(Min) X(Mean)        \
    /* where.c */                                                             \
    X(Where)                                                                  \
    /* shape_ops.c */                                                         \
    X(Reshape) X(Flatten) X(Squeeze) X(Unsqueeze) X(Identity) X(Dropout)      \
    X(Shape) X(Size)                                                          \
    /* transpose.c, concat.c, gather.c, slice.c, expand.c, depth_space.c,     \
       trilu.c */                                                             \
    X(Transpose) X(Concat) X(Split) X(Gather) X(GatherElements) X(GatherND)   \
    X(Slice) X(Expand) X(Tile) X(DepthToSpace) X(SpaceToDepth) X(Trilu)       \
    /* scatter.c */                                                           \
    X(ScatterElements) X(Scatter) X(ScatterND)                                \
    /* constant.c, cast.c, range.c, onehot.c, cumsum.c */                     \
    X(Constant) X(ConstantOfShape) X(EyeLike) X(Cast) X(CastLike) X(Range)    \
    X(OneHot) X(CumSum)

#define DECLARE(name) extern const kn_op_def kn_op_##name;
#define ENTRY(name) &kn_op_##name,

TENSOR_OPS(DECLARE)

const kn_op_def *const kn_cpu_tensor_ops[] = {
    TENSOR_OPS(ENTRY)
    NULL,
};
