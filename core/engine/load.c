#include "core/engine/load.h"

#include "core/engine/registry.h"
#include "core/onnx/onnx.h"
#include "core/opt/optimize.h"

int kn_model_load(const void *data, size_t size, const char *base_dir, int mapped,
                  const kn_load_options *o, kn_model **out, kn_err *err)
{
    *out = NULL;
    kn_model_ir *ir = NULL;
    int rc = mapped ? kn_onnx_read_mapped_model(data, size, base_dir, o->max_bytes, &ir, err)
                    : kn_onnx_read_model(data, size, base_dir, o->max_bytes, &ir, err);
    if (rc != KN_OK)
        return rc;
    /* Which backends may serve the model is settled before optimizing, so
     * the graph gets their passes and the kernels chosen are those of the
     * rewritten graph. */
    uint32_t usable = kn_backends_usable(o->backends_off);
    const kn_backend *usable_list[KN_MAX_BACKENDS + 1];
    int32_t n = 0;
    for (int32_t b = 0; b < kn_backend_count(); b++)
        if (usable & (1u << b))
            usable_list[n++] = kn_backends()[b];
    usable_list[n] = NULL;
    rc = kn_optimize(ir, o->optimize, usable_list, err);
    if (rc != KN_OK) {
        kn_model_ir_free(ir);
        return rc;
    }
    kn_model *model = NULL;
    rc = kn_model_create(ir, o->allow_unsupported, &model, err);
    if (rc != KN_OK)
        return rc;
    model->backends = usable;
    *out = model;
    return KN_OK;
}
