/* The text family of CPU kernels: strings: StringNormalizer, RegexFullMatch,
 * TfIdfVectorizer and friends. One row per kn_op_def, grouped by the file that
 * defines it; several rows for one op where opset ranges or dtypes differ.
 * core/cpu/backend_cpu.c lists this table. */
#include <stddef.h>

#include "core/kernel/op.h"

extern const kn_op_def kn_op_TfIdfVectorizer;
extern const kn_op_def kn_op_StringNormalizer, kn_op_StringConcat, kn_op_StringSplit;

const kn_op_def *const kn_cpu_text_ops[] = {
    /* tfidf.c */
    &kn_op_TfIdfVectorizer,
    /* string_ops.c */
    &kn_op_StringNormalizer, &kn_op_StringConcat, &kn_op_StringSplit,
    NULL,
};
