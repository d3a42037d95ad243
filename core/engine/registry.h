/* The backend registry: the list of backends (core/backends.c) and the
 * lookups the engine makes over it. A model's usable backends are a bit
 * mask over this list, indexed by position (kn_model.backends). */
#ifndef KN_REGISTRY_H
#define KN_REGISTRY_H

#include <stdint.h>

#include "core/kernel/backend.h"
#include "core/kernel/op.h"

enum { KN_MAX_BACKENDS = 16 };

/* The backends in the order the planner offers them a node, NULL-ended. */
const kn_backend *const *kn_backends(void);
int32_t kn_backend_count(void);
/* Position of the backend called name, or -1. */
int32_t kn_backend_index(const char *name);
/* Bit mask of the backends that can run here (their probe says so) and
 * that the caller has not switched off (off_mask, same indexing). Opt-in
 * backends (KN_BACKEND_OPT_IN) are left out unprobed: a session asks for
 * one by name (core/engine/devices.h). */
uint32_t kn_backends_usable(uint32_t off_mask);

/* Replaces the list (NULL: back to core/backends.c). For tests that plug in
 * a backend of their own: not thread-safe, and never called by the library
 * itself. The list must stay valid while any model loaded under it lives. */
void kn_backends_override_for_testing(const kn_backend *const *list);

/* Any backend's entry for (domain, op_type) at this opset, ignoring dtype;
 * NULL if none. */
const kn_op_def *kn_registry_find_op(const char *domain, const char *op_type, int64_t opset);
/* True if any opset of (domain, op_type) is known (to word errors well). */
int kn_registry_knows_op(const char *domain, const char *op_type);
/* Iteration over every backend's kernels, for docs and `kiln info`: NULL
 * past the end; *backend (may be NULL) gets the kernel's backend. */
const kn_op_def *kn_registry_at(int32_t index, const kn_backend **backend);
/* The backend whose tables list def, or NULL. */
const kn_backend *kn_backend_of(const kn_op_def *def);

#endif
