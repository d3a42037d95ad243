/* Per type class (F float, S signed, U unsigned, H float16, B bfloat16):
 * the key type values are compared in, how to load one, and whether it is
 * NaN. Shared by the ranking kernels (ArgMax/ArgMin, TopK). */
#ifndef KN_COMPARE_KEYS_H
#define KN_COMPARE_KEYS_H

#include "core/ir/tensor.h"

#define KEY_F(T) T
#define KEY_S(T) T
#define KEY_U(T) T
#define KEY_H(T) float
#define KEY_B(T) float
#define LOAD_F(v) (v)
#define LOAD_S(v) (v)
#define LOAD_U(v) (v)
#define LOAD_H(v) kn_f16_to_f32(v)
#define LOAD_B(v) kn_bf16_to_f32(v)
#define ISNAN_F(v) ((v) != (v))
#define ISNAN_S(v) 0
#define ISNAN_U(v) 0
#define ISNAN_H ISNAN_F
#define ISNAN_B ISNAN_F

#endif
