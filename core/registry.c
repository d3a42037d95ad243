/* Kernel registry: plain, NULL-terminated tables of kn_op_def pointers, one
 * per op family and backend. Nothing registers itself at start-up, so static
 * linking cannot drop a kernel. */
#include <string.h>

#include "op.h"

extern const kn_op_def *const kn_cpu_nn_ops[];
extern const kn_op_def *const kn_cpu_tensor_ops[];
extern const kn_op_def *const kn_cpu_reduce_ops[];
extern const kn_op_def *const kn_cpu_image_ops[];
extern const kn_op_def *const kn_cpu_rnn_ops[];
extern const kn_op_def *const kn_cpu_quant_ops[];
extern const kn_op_def *const kn_cpu_control_ops[];
extern const kn_op_def *const kn_cpu_sequence_ops[];
extern const kn_op_def *const kn_cpu_attention_ops[];
extern const kn_op_def *const kn_cpu_string_ops[];
extern const kn_op_def *const kn_cpu_fused_ops[]; /* core/cpu/table_fused.c: kiln domain */
#ifdef KILN_WITH_DNNL
extern const kn_op_def *const kn_dnnl_ops[]; /* core/dnnl/dnnl_table.c */
#endif

static const kn_op_def *const *const op_tables[] = {
    kn_cpu_nn_ops, kn_cpu_tensor_ops, kn_cpu_reduce_ops,
    kn_cpu_image_ops, kn_cpu_rnn_ops, kn_cpu_quant_ops, kn_cpu_control_ops,
    kn_cpu_sequence_ops, kn_cpu_attention_ops, kn_cpu_string_ops,
    kn_cpu_fused_ops,
#ifdef KILN_WITH_DNNL
    kn_dnnl_ops,
#endif
};

static int same_domain(const char *a, const char *b)
{
    int a_default = !a || !a[0] || strcmp(a, "ai.onnx") == 0;
    int b_default = !b || !b[0] || strcmp(b, "ai.onnx") == 0;
    if (a_default || b_default)
        return a_default && b_default;
    return strcmp(a, b) == 0;
}

const kn_op_def *kn_registry_at(int32_t index)
{
    for (size_t t = 0; t < sizeof op_tables / sizeof op_tables[0]; t++) {
        for (const kn_op_def *const *p = op_tables[t]; *p; p++)
            if (index-- == 0)
                return *p;
    }
    return NULL;
}

static const kn_op_def *find(const char *domain, const char *op_type, int64_t opset, int32_t dtype,
                             int32_t backend, int match_dtype)
{
    const kn_op_def *d;
    for (int32_t i = 0; (d = kn_registry_at(i)) != NULL; i++) {
        if (strcmp(d->op_type, op_type) != 0 || !same_domain(d->domain, domain))
            continue;
        if (opset < d->since_version || opset > d->until_version)
            continue;
        if (match_dtype && (d->backend != backend ||
                            (d->dtypes && (dtype < 0 || dtype >= 32 || !(d->dtypes & KN_BIT(dtype))))))
            continue;
        return d;
    }
    return NULL;
}

const char *kn_backend_name(int32_t backend)
{
    switch (backend) {
    case KN_BACKEND_CPU: return "cpu";
    case KN_BACKEND_DNNL: return "dnnl";
    default: return "unknown";
    }
}

const kn_op_def *kn_registry_find_op(const char *domain, const char *op_type, int64_t opset)
{
    return find(domain, op_type, opset, 0, 0, 0);
}

const kn_op_def *kn_registry_find(const char *domain, const char *op_type, int64_t opset,
                                  int32_t dtype, int32_t backend)
{
    return find(domain, op_type, opset, dtype, backend, 1);
}

int kn_registry_knows_op(const char *domain, const char *op_type)
{
    const kn_op_def *d;
    for (int32_t i = 0; (d = kn_registry_at(i)) != NULL; i++)
        if (strcmp(d->op_type, op_type) == 0 && same_domain(d->domain, domain))
            return 1;
    return 0;
}
