/* Fuzz target (b): bytes -> load -> session -> bind a small tensor of the
 * declared dtype to every input (dynamic dims 1 or 2, at most 1 MiB in all)
 * -> run twice -> read every output. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive.h"
#include "fuzz_check.h"
#include "kiln.h"

static kiln_runtime *runtime;
static kiln_options *load_options, *session_options;

static void setup(void)
{
    if (runtime)
        return;
    if (kiln_runtime_create(NULL, &runtime) != KILN_OK || kiln_options_create(&load_options) ||
        kiln_options_set_int(load_options, KILN_OPT_MAX_MODEL_MB, 64) ||
        kiln_options_create(&session_options) ||
        kiln_options_set_int(session_options, KILN_OPT_MAX_ARENA_MB, 64))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    kiln_model *m = NULL;
    int32_t rc = kiln_model_load_memory(runtime, data, size, load_options, &m);
    if (rc != KILN_OK) {
        fz_check_error(rc, "kiln_model_load_memory");
        return 0;
    }
    /* The dynamic dims depend on the input, so both sizes get explored. */
    int32_t seed = (int32_t)((size * 2654435761u) ^ (size ? data[size / 2] : 0)) & 0x7fffffff;
    kd_config cfg = {.max_input_bytes = 1 << 20, .dyn_seed = seed, .runs = 2,
                     .session_options = session_options};
    kd_result r;
    int stage = kd_drive(m, &cfg, &r);
    if (stage != KD_DONE && stage != KD_SKIPPED) {
        FZ_CHECK(r.code > KILN_OK && r.code <= KILN_ERR_LIMIT, "%s: unknown status %d",
                 kd_stage_names[stage], (int)r.code);
        FZ_CHECK(strcmp(r.msg, "(no message)") != 0, "%s failed (%d) without a message",
                 kd_stage_names[stage], (int)r.code);
        /* KILN_ERR_INTERNAL is a clean error, but means the library missed
         * a check on the model; KILN_FUZZ_STRICT=1 makes it a finding. */
        static int strict = -1;
        if (strict < 0)
            strict = getenv("KILN_FUZZ_STRICT") && getenv("KILN_FUZZ_STRICT")[0] == '1';
        FZ_CHECK(!strict || r.code != KILN_ERR_INTERNAL, "%s: internal error: %s",
                 kd_stage_names[stage], r.msg);
    }
    kiln_model_destroy(m);
    return 0;
}
