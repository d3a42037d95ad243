/* The backend registry over the static list in core/backends.c. */
#include "core/engine/registry.h"

#include <stddef.h>
#include <string.h>

extern const kn_backend *const kn_builtin_backends[]; /* core/backends.c */

static const kn_backend *const *override;

const kn_backend *const *kn_backends(void) { return override ? override : kn_builtin_backends; }

void kn_backends_override_for_testing(const kn_backend *const *list) { override = list; }

int32_t kn_backend_count(void)
{
    int32_t n = 0;
    for (const kn_backend *const *b = kn_backends(); *b && n < KN_MAX_BACKENDS; b++)
        n++;
    return n;
}

int32_t kn_backend_index(const char *name)
{
    const kn_backend *const *list = kn_backends();
    for (int32_t i = 0; i < kn_backend_count(); i++)
        if (strcmp(list[i]->name, name) == 0)
            return i;
    return -1;
}

uint32_t kn_backends_usable(uint32_t off_mask)
{
    const kn_backend *const *list = kn_backends();
    uint32_t mask = 0;
    /* An opt-in backend (a GPU stack) is never probed here: only a session
     * that names it as its device loads it (core/engine/devices.c). */
    for (int32_t i = 0; i < kn_backend_count(); i++)
        if (!(off_mask & (1u << i)) && !(list[i]->flags & KN_BACKEND_OPT_IN) &&
            (!list[i]->available || list[i]->available()))
            mask |= 1u << i;
    return mask;
}

const kn_op_def *kn_registry_at(int32_t index, const kn_backend **backend)
{
    const kn_backend *const *list = kn_backends();
    for (int32_t i = 0; i < kn_backend_count(); i++)
        for (const kn_op_def *const *const *t = list[i]->kernel_tables; t && *t; t++)
            for (const kn_op_def *const *p = *t; *p; p++)
                if (index-- == 0) {
                    if (backend)
                        *backend = list[i];
                    return *p;
                }
    return NULL;
}

const kn_backend *kn_backend_of(const kn_op_def *def)
{
    const kn_backend *b;
    const kn_op_def *d;
    for (int32_t i = 0; (d = kn_registry_at(i, &b)) != NULL; i++)
        if (d == def)
            return b;
    return NULL;
}

const kn_op_def *kn_registry_find_op(const char *domain, const char *op_type, int64_t opset)
{
    const kn_backend *const *list = kn_backends();
    for (int32_t i = 0; i < kn_backend_count(); i++) {
        const kn_op_def *d = kn_backend_kernel_any(list[i], domain, op_type, opset);
        if (d)
            return d;
    }
    return NULL;
}

int kn_registry_knows_op(const char *domain, const char *op_type)
{
    const kn_op_def *d;
    for (int32_t i = 0; (d = kn_registry_at(i, NULL)) != NULL; i++)
        if (strcmp(d->op_type, op_type) == 0 && kn_same_domain(d->domain, domain))
            return 1;
    return 0;
}
