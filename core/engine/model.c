#include "core/engine/model.h"

#include <stdlib.h>

#include "core/engine/devices.h"
#include "core/engine/weight_store.h"
#include "core/engine/registry.h"

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

static void free_one(kn_model *m)
{
    if (!m)
        return;
    free(m->node_op);
    free(m->node_opset);
    free(m);
}

static int add_sub(kn_model *root, kn_model *sub)
{
    if (root->n_subs == root->cap_subs) {
        int32_t cap = root->cap_subs ? root->cap_subs * 2 : 8;
        kn_model **grown = realloc(root->subs, sizeof *grown * (size_t)cap);
        if (!grown)
            return KN_ERR_OUT_OF_MEMORY;
        root->subs = grown;
        root->cap_subs = cap;
    }
    root->subs[root->n_subs++] = sub;
    return KN_OK;
}

static int init_graph(kn_model *m, kn_model *root, int allow, kn_err *err);

/* Validates the subgraphs held in node i's attributes. */
static int init_subgraphs(kn_model *m, kn_model *root, int32_t i, int allow, kn_err *err)
{
    const kn_node *node = &m->graph->nodes[i];
    for (int32_t a = 0; a < node->n_attrs; a++) {
        const kn_attr *attr = &node->attrs[a];
        int32_t n = attr->type == KN_ATTR_GRAPH ? 1 : attr->type == KN_ATTR_GRAPHS ? attr->count : 0;
        for (int32_t j = 0; j < n; j++) {
            const kn_graph *g = attr->type == KN_ATTR_GRAPH ? attr->g : attr->graphs[j];
            kn_model *sub = calloc(1, sizeof *sub);
            if (!sub || add_sub(root, sub) != KN_OK) {
                free(sub);
                return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory validating subgraphs");
            }
            sub->ir = root->ir;
            sub->graph = g;
            sub->root = root;
            int rc = init_graph(sub, root, allow, err);
            if (rc != KN_OK) {
                kn_err_prefix(err, "in attribute '%s' of node '%s' (%s)", attr->name, node->name,
                              node->op_type);
                return rc;
            }
            m->n_unsupported += sub->n_unsupported;
        }
    }
    return KN_OK;
}

static int init_graph(kn_model *m, kn_model *root, int allow, kn_err *err)
{
    int32_t n = m->graph->n_nodes;
    m->node_op = calloc(n ? (size_t)n : 1, sizeof *m->node_op);
    m->node_opset = calloc(n ? (size_t)n : 1, sizeof *m->node_opset);
    if (!m->node_op || !m->node_opset)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory creating the model");
    for (int32_t i = 0; i < n; i++) {
        kn_err node_err = {0};
        int rc = check_node(m, i, &node_err);
        if (rc == KN_ERR_UNSUPPORTED && allow) {
            m->n_unsupported++;
        } else if (rc != KN_OK) {
            return kn_fail(err, rc, "%s", node_err.msg);
        }
        rc = init_subgraphs(m, root, i, allow, err);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}

int kn_model_create(kn_model_ir *ir, int allow_unsupported, kn_model **out, kn_err *err)
{
    *out = NULL;
    kn_model *m = calloc(1, sizeof *m);
    if (!m) {
        kn_model_ir_free(ir);
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory creating the model");
    }
    m->ir = ir;
    m->graph = ir->graph;
    m->root = m;
    m->backends = kn_backends_usable(0);
    int rc = init_graph(m, m, allow_unsupported, err);
    if (rc == KN_OK)
        rc = kn_weight_store_create(m, &m->weights, err);
    if (rc == KN_OK)
        rc = kn_model_devices_create(&m->devices, err);
    if (rc != KN_OK) {
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
    kn_weight_store_destroy(m->weights); /* sessions are gone: nobody reads it */
    kn_model_devices_destroy(m->devices); /* after the store: its device copies go first */
    for (int32_t i = 0; i < m->n_subs; i++)
        free_one(m->subs[i]);
    free(m->subs);
    kn_model_ir_free(m->ir);
    free_one(m);
}

const kn_model *kn_model_subgraph(const kn_model *root, const kn_graph *g)
{
    for (int32_t i = 0; i < root->n_subs; i++)
        if (root->subs[i]->graph == g)
            return root->subs[i];
    return NULL;
}
