#include "core/engine/load.h"

#include <stdio.h>

#include "core/base/bump_alloc.h"
#include "core/engine/registry.h"
#include "core/onnx/onnx.h"
#include "core/opt/optimize.h"

/* Whether bytes that are not a ModelProto are a TensorProto (an input or
 * output .pb file of an ONNX test case, the usual thing passed by mistake). */
static int is_tensor_file(const void *data, size_t size)
{
    kn_bump *bump = kn_bump_create();
    if (!bump)
        return 0;
    kn_tensor t;
    kn_err ignored = {0, {0}};
    int yes = kn_onnx_read_tensor(bump, data, size, &t, NULL, &ignored) == KN_OK &&
              t.dtype != KN_UNDEFINED;
    kn_bump_destroy(bump);
    return yes;
}

/* The reader's wire-level message gets a plain lead-in that names the file
 * (or the bytes), so the user first reads what is wrong in their terms. */
static int explain_bad_model(const void *data, size_t size, const char *source, kn_err *err)
{
    char name[300];
    if (source)
        snprintf(name, sizeof name, "'%s' is", source);
    else
        snprintf(name, sizeof name, "the model bytes are");
    if (size == 0) {
        err->code = KN_OK; /* replace the reader's "no graph" */
        return kn_fail(err, KN_ERR_INVALID_MODEL, "%s empty, not an ONNX model", name);
    }
    if (is_tensor_file(data, size)) {
        err->code = KN_OK;
        return kn_fail(err, KN_ERR_INVALID_MODEL, "%s an ONNX tensor%s, not a model", name,
                       source ? " file" : "");
    }
    kn_err_prefix(err, "%s not a valid ONNX model", name);
    return KN_ERR_INVALID_MODEL;
}

int kn_model_load(const void *data, size_t size, const char *base_dir, int mapped,
                  const kn_load_options *o, kn_model **out, kn_err *err)
{
    *out = NULL;
    kn_model_ir *ir = NULL;
    int rc = mapped ? kn_onnx_read_mapped_model(data, size, base_dir, o->max_bytes, &ir, err)
                    : kn_onnx_read_model(data, size, base_dir, o->max_bytes, &ir, err);
    if (rc == KN_ERR_INVALID_MODEL)
        return explain_bad_model(data, size, o->source, err);
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
