/* The optimizer's passes. Each takes a pass context (rewrite.h) over the
 * top-level graph, edits it, and returns KN_OK or an error code (set on
 * o->err). A pass that finds nothing to do changes nothing. */
#ifndef KN_OPT_PASSES_H
#define KN_OPT_PASSES_H

#include "core/opt/rewrite.h"

typedef int (*kn_opt_pass_fn)(kn_opt *o);

/* Level 1 */
int kn_pass_qdq_conv(kn_opt *o);      /* DequantizeLinear -> Conv -> QuantizeLinear -> QLinearConv */
int kn_pass_qdq_add(kn_opt *o);       /* DequantizeLinear x2 -> Add -> QuantizeLinear -> kiln.QAdd */
int kn_pass_qdq_mul(
    kn_opt *o); /* DequantizeLinear -> Mul by a float -> QuantizeLinear -> kiln.QMulFloat */
int kn_pass_qconv_add(kn_opt *o); /* QLinearConv -> kiln.QAdd -> kiln.QFusedConv with a residual */
int kn_pass_qdq_passthrough(kn_opt *o); /* DQ -> MaxPool/Concat/Reshape... -> Q (same params): on 8-bit values */
int kn_pass_qdq_matmul(kn_opt *o);    /* DequantizeLinear -> MatMul (int8 weights) -> MatMulIntegerToFloat */
/* MatMulInteger -> Cast -> Mul by both scales (dynamic quantization) -> MatMulIntegerToFloat */
int kn_pass_dynamic_matmul(kn_opt *o);
int kn_pass_const_fold(kn_opt *o);     /* nodes whose inputs are all initializers */
int kn_pass_identity(kn_opt *o);       /* Identity, inference-mode Dropout */
int kn_pass_pad_fold(kn_opt *o);       /* zero Pad + AveragePool/Conv -> their own pads */
int kn_pass_conv_bn(kn_opt *o);        /* BatchNormalization folded into Conv's W and B */
int kn_pass_dead_nodes(kn_opt *o);     /* nodes nothing reads */
/* Level 2 */
int kn_pass_gelu(kn_opt *o);           /* erf formula -> kiln.Gelu */
/* MatMulIntegerToFloat -> bias Add -> activation -> QuantizeLinear -> kiln.QFusedMatMul */
int kn_pass_qmatmul_epilogue(kn_opt *o);
int kn_pass_layernorm(kn_opt *o);      /* mean/variance formula -> LayerNormalization */
int kn_pass_attention(kn_opt *o);      /* softmax(Q K' * s + mask) V -> kiln.Attention */
/* sibling products of one input -> one product + Split; contributed by
 * backends whose products gain from the width (the oneDNN backend does) */
int kn_pass_horizontal(kn_opt *o);
int kn_pass_fuse_matmul(kn_opt *o);    /* MatMul + bias + activation -> kiln.FusedMatMul */
int kn_pass_fuse_gemm(kn_opt *o);      /* Gemm + activation -> kiln.FusedGemm */
int kn_pass_fuse_conv(kn_opt *o);      /* Conv + residual + activation -> kiln.FusedConv */
int kn_pass_silu(kn_opt *o);           /* x * Sigmoid(x) -> kiln.Silu */
int kn_pass_elementwise_chain(kn_opt *o); /* elementwise op chains -> kiln.ElementwiseChain */

#endif
