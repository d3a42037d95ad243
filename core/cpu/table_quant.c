/* CPU kernels: quantized ops and value-dependent or random ops
 * (QuantizeLinear, QLinearConv, NonZero, Unique, ...). One row per
 * kn_op_def; several rows for one op where opset ranges differ. */
#include <stddef.h>

#include "core/op.h"

#define QUANT_OPS(X)                                                          \
    /* integer_ops.c */                                                       \
    X(MatMulInteger) X(ConvInteger)                                           \
    /* quantize.c */                                                          \
    X(QuantizeLinear) X(QuantizeLinear_13) X(QuantizeLinear_19)               \
    X(QuantizeLinear_21) X(DequantizeLinear) X(DequantizeLinear_13)           \
    X(DequantizeLinear_19) X(DequantizeLinear_21) X(DynamicQuantizeLinear)    \
    /* qlinear.c */                                                           \
    X(QLinearMatMul) X(QLinearMatMul_21) X(QLinearConv)                       \
    /* nonzero.c, unique.c, compress.c */                                     \
    X(NonZero) X(Unique) X(Compress)                                          \
    /* random.c */                                                            \
    X(RandomUniform) X(RandomNormal) X(RandomUniformLike) X(RandomNormalLike) \
    X(Bernoulli) X(Multinomial)                                               \
    /* training.c (domain ai.onnx.preview.training) */                        \
    X(Adagrad) X(Adam) X(Momentum)                                            \
    /* tfidf.c */                                                             \
    X(TfIdfVectorizer)                                                        \
    /* misc_bitwise.c */                                                      \
    X(BitwiseAnd) X(BitwiseOr) X(BitwiseXor) X(BitwiseNot)                   \
    /* misc_transformer.c */                                                  \
    X(RotaryEmbedding) X(SwiGLU)                                              \
    /* misc_ml.c (domain ai.onnx.ml) */                                       \
    X(Binarizer) X(ArrayFeatureExtractor) X(TreeEnsemble)                     \
    /* misc_image_decoder.c */                                                \
    X(ImageDecoder)

#define DECLARE(name) extern const kn_op_def kn_op_##name;
#define ENTRY(name) &kn_op_##name,

QUANT_OPS(DECLARE)

const kn_op_def *const kn_cpu_quant_ops[] = {
    QUANT_OPS(ENTRY)
    NULL,
};
