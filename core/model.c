#include "model.h"

#include <stdlib.h>

static const char *domain_label(const char *domain)
{
    return domain && domain[0] ? domain : "ai.onnx";
}

static int check_node(kn_model *m, int32_t i, kn_err *err)
{
    const kn_node *node = &m->graph->nodes[i];
    int64_t opset = kn_model_opset_for(m->ir, node->domain);
    m->node_opset[i] = opset;
    if (opset < 0)
        return kn_fail(err, KN_ERR_INVALID_MODEL,
                       "node '%s' (%s) uses domain '%s', which the model does not import",
                       node->name, node->op_type, domain_label(node->domain));
    m->node_op[i] = kn_registry_find_op(node->domain, node->op_type, opset);
    if (m->node_op[i])
        return KN_OK;
    if (kn_registry_knows_op(node->domain, node->op_type))
        return kn_fail(err, KN_ERR_UNSUPPORTED,
                       "op %s (domain '%s') is not supported at opset %lld, used by node '%s'",
                       node->op_type, domain_label(node->domain), (long long)opset, node->name);
    return kn_fail(err, KN_ERR_UNSUPPORTED,
                   "unsupported op %s (domain '%s', opset %lld) at node '%s'", node->op_type,
                   domain_label(node->domain), (long long)opset, node->name);
}

int kn_model_create(kn_model_ir *ir, int allow_unsupported, kn_model **out, kn_err *err)
{
    *out = NULL;
    kn_model *m = calloc(1, sizeof *m);
    int32_t n = ir->graph->n_nodes;
    if (m) {
        m->node_op = calloc(n ? (size_t)n : 1, sizeof *m->node_op);
        m->node_opset = calloc(n ? (size_t)n : 1, sizeof *m->node_opset);
    }
    if (!m || !m->node_op || !m->node_opset) {
        if (m) {
            free(m->node_op);
            free(m->node_opset);
            free(m);
        }
        kn_model_ir_free(ir);
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory creating the model");
    }
    m->ir = ir;
    m->graph = ir->graph;
    for (int32_t i = 0; i < n; i++) {
        kn_err node_err = {0};
        int rc = check_node(m, i, &node_err);
        if (rc == KN_OK)
            continue;
        if (rc == KN_ERR_UNSUPPORTED && allow_unsupported) {
            m->n_unsupported++;
            continue;
        }
        kn_fail(err, rc, "%s", node_err.msg);
        kn_model_destroy(m);
        return rc;
    }
    *out = m;
    return KN_OK;
}

void kn_model_destroy(kn_model *m)
{
    if (!m)
        return;
    kn_model_ir_free(m->ir);
    free(m->node_op);
    free(m->node_opset);
    free(m);
}
