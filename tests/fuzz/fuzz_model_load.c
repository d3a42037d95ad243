/* Fuzz target (a): bytes -> kiln_model_load_memory; for loads that succeed,
 * every introspection call and a session (which plans the declared shapes). */
#include <stdint.h>
#include <stdio.h>

#include "fuzz_check.h"
#include "kiln.h"

static kiln_runtime *runtime;
static kiln_options *load_options, *session_options;

static void setup(void)
{
    if (runtime)
        return;
    /* Limits keep legitimate-but-huge models from being reported as
     * out-of-memory by libFuzzer: the library must honour them. */
    if (kiln_runtime_create(NULL, &runtime) != KILN_OK || kiln_options_create(&load_options) ||
        kiln_options_set_int(load_options, KILN_OPT_MAX_MODEL_MB, 64) ||
        kiln_options_create(&session_options) ||
        kiln_options_set_int(session_options, KILN_OPT_MAX_ARENA_MB, 64))
        abort();
}

static void introspect(const kiln_model *m)
{
    int32_t n = 0, needed = 0, v = 0, rank = 0;
    char buf[64], dom[64];
    int64_t dims[8];
    FZ_CHECK(kiln_model_input_count(m, &n) == KILN_OK && n >= 0, "input count");
    for (int32_t i = 0; i < n; i++) {
        int32_t rc = kiln_model_input_name(m, i, buf, sizeof buf, &needed);
        FZ_CHECK(rc == KILN_OK || (rc == KILN_ERR_BUFFER_TOO_SMALL && needed > 64), "input name");
        kiln_model_input_dtype(m, i, &v);
        rc = kiln_model_input_shape(m, i, dims, 8, &rank);
        FZ_CHECK(rc == KILN_OK || (rc == KILN_ERR_BUFFER_TOO_SMALL && rank > 8), "input shape");
    }
    FZ_CHECK(kiln_model_output_count(m, &n) == KILN_OK && n >= 0, "output count");
    for (int32_t i = 0; i < n; i++) {
        kiln_model_output_name(m, i, buf, sizeof buf, &needed);
        kiln_model_output_dtype(m, i, &v);
        kiln_model_output_shape(m, i, dims, 8, &rank);
    }
    FZ_CHECK(kiln_model_opset_count(m, &n) == KILN_OK, "opset count");
    for (int32_t i = 0; i < n; i++)
        kiln_model_opset(m, i, dom, sizeof dom, &needed, &v);
    FZ_CHECK(kiln_model_node_count(m, &n) == KILN_OK, "node count");
    for (int32_t i = 0; i < n; i++) {
        kiln_model_node_op(m, i, buf, sizeof buf, dom, sizeof dom, &needed);
        kiln_model_node_name(m, i, buf, sizeof buf, &needed);
        FZ_CHECK(kiln_model_node_supported(m, i, &v) == KILN_OK, "node supported");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    kiln_model *m = (kiln_model *)&m; /* must be reset to NULL on failure */
    int32_t rc = kiln_model_load_memory(runtime, data, size, load_options, &m);
    if (rc != KILN_OK) {
        fz_check_error(rc, "kiln_model_load_memory");
        FZ_CHECK(m == NULL, "a failed load left a handle");
        return 0;
    }
    introspect(m);
    kiln_session *s = (kiln_session *)&s;
    rc = kiln_session_create(m, session_options, &s);
    if (rc != KILN_OK) {
        fz_check_error(rc, "kiln_session_create");
        FZ_CHECK(s == NULL, "a failed session create left a handle");
    }
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    return 0;
}
