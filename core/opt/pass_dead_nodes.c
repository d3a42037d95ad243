/* Dead-node elimination: a node none of whose outputs is read (by a live
 * node, a subgraph or as a graph output) is removed; walking backwards
 * removes whole dead chains in one pass. */
#include "core/opt/passes.h"

int kn_pass_dead_nodes(kn_opt *o)
{
    for (int32_t id = kn_opt_node_count(o) - 1; id >= 0; id--) {
        if (!kn_opt_live(o, id))
            continue;
        const kn_node *n = kn_opt_node(o, id);
        int used = 0;
        for (int32_t j = 0; j < n->n_outputs && !used; j++) {
            int32_t v = n->outputs[j];
            used = v >= 0 && (kn_opt_is_observed(o, v) || kn_opt_use_count(o, v) > 0);
        }
        if (!used)
            kn_opt_remove(o, id);
    }
    return KN_OK;
}
