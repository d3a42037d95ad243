/* Drives a loaded model through the whole public API with small inputs:
 * create a session, bind a small tensor of the declared dtype to every
 * input (dynamic dims 1 or 2, total size capped), run, read every output.
 * Shared by the libFuzzer targets, their replay driver and the hostile
 * corpus runner. Header-only (static functions): each program includes it
 * once. Uses only capi/kiln.h. */
#ifndef KILN_TESTS_DRIVE_H
#define KILN_TESTS_DRIVE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kiln.h"

/* Where a drive stopped. */
enum {
    KD_DONE = 0,      /* ran and read every output */
    KD_LOAD,          /* the load failed (with `code`) */
    KD_SESSION,       /* session creation failed */
    KD_BIND,          /* binding an input failed */
    KD_RUN,           /* a run failed */
    KD_OUTPUT,        /* reading an output failed */
    KD_SKIPPED,       /* inputs too big to bind under the cap: not run */
};

static const char *const kd_stage_names[] = {"done", "load", "session", "bind",
                                             "run", "output", "skipped"};

typedef struct kd_result {
    int stage;          /* KD_* */
    int32_t code;       /* KILN_* of the failing call, KILN_OK when done */
    char msg[512];      /* kiln_last_error() of the failing call */
    uint64_t checksum;  /* over the outputs read, to keep the reads live */
} kd_result;

typedef struct kd_config {
    int64_t max_input_bytes; /* all inputs together; above it: KD_SKIPPED */
    int32_t dyn_seed;        /* bit i (mod 31) picks 1 or 2 for dynamic dim i */
    int32_t runs;            /* runs per bind (>= 1); a second run reuses the plan */
    const kiln_options *session_options;
} kd_config;

static int kd_fail(kd_result *r, int stage, int32_t code)
{
    r->stage = stage;
    r->code = code;
    kiln_last_error(r->msg, (int32_t)sizeof r->msg);
    if (!r->msg[0]) /* an error without a message is itself a finding */
        strcpy(r->msg, "(no message)");
    return stage;
}

static size_t kd_dtype_size(int32_t dtype)
{
    switch (dtype) {
    case KILN_DTYPE_UINT8: case KILN_DTYPE_INT8: case KILN_DTYPE_BOOL: return 1;
    case KILN_DTYPE_UINT16: case KILN_DTYPE_INT16: case KILN_DTYPE_FLOAT16:
    case KILN_DTYPE_BFLOAT16: return 2;
    case KILN_DTYPE_FLOAT: case KILN_DTYPE_INT32: case KILN_DTYPE_UINT32: return 4;
    case KILN_DTYPE_INT64: case KILN_DTYPE_DOUBLE: case KILN_DTYPE_UINT64: return 8;
    default: return 0;
    }
}

/* Small, varied values: 0, 1, 2 for integers (valid as indices and shapes of
 * size-1/2 dims more often than not), -0.5..0.5 for floats. */
static void kd_fill(void *buf, int32_t dtype, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        int v = (int)(i % 3);
        float f = (float)v * 0.5f - 0.5f;
        switch (dtype) {
        case KILN_DTYPE_FLOAT: ((float *)buf)[i] = f; break;
        case KILN_DTYPE_DOUBLE: ((double *)buf)[i] = f; break;
        case KILN_DTYPE_FLOAT16: ((uint16_t *)buf)[i] = v == 0 ? 0xb800 : v == 1 ? 0 : 0x3800; break;
        case KILN_DTYPE_BFLOAT16: ((uint16_t *)buf)[i] = v == 0 ? 0xbf00 : v == 1 ? 0 : 0x3f00; break;
        case KILN_DTYPE_BOOL: ((uint8_t *)buf)[i] = (uint8_t)(i & 1); break;
        case KILN_DTYPE_UINT8: case KILN_DTYPE_INT8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
        case KILN_DTYPE_UINT16: case KILN_DTYPE_INT16: ((uint16_t *)buf)[i] = (uint16_t)v; break;
        case KILN_DTYPE_INT32: case KILN_DTYPE_UINT32: ((int32_t *)buf)[i] = v; break;
        case KILN_DTYPE_INT64: case KILN_DTYPE_UINT64: ((int64_t *)buf)[i] = v; break;
        default: break;
        }
    }
}

/* Touches an output: every byte up to 16 MiB, else its two ends. */
static uint64_t kd_touch(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ull;
    int whole = n <= ((size_t)16 << 20);
    size_t head = whole ? n : 4096, tail = whole ? n : n - 4096;
    for (size_t i = 0; i < head; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    for (size_t i = tail; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static int kd_read_outputs(kiln_session *s, int32_t n_out, kd_result *r)
{
    for (int32_t i = 0; i < n_out; i++) {
        int32_t dtype = 0, rank = 0;
        int64_t dims[16];
        int32_t rc = kiln_session_output_info(s, i, &dtype, dims, 16, &rank);
        if (rc != KILN_OK && rc != KILN_ERR_BUFFER_TOO_SMALL)
            return kd_fail(r, KD_OUTPUT, rc);
        const void *view = NULL;
        size_t nbytes = 0;
        rc = kiln_session_output_view(s, i, &view, &nbytes);
        if (rc != KILN_OK)
            return kd_fail(r, KD_OUTPUT, rc);
        if (nbytes && !view) {
            r->stage = KD_OUTPUT;
            r->code = KILN_ERR_INTERNAL;
            strcpy(r->msg, "output view is NULL with a non-zero size");
            return KD_OUTPUT;
        }
        if (nbytes)
            r->checksum ^= kd_touch(view, nbytes);
        /* The copy path too, for small outputs. */
        size_t needed = 0;
        if (nbytes <= 4096) {
            unsigned char small[4096];
            rc = kiln_session_output_copy(s, i, small, sizeof small, &needed);
            if (rc != KILN_OK || needed != nbytes)
                return kd_fail(r, KD_OUTPUT, rc ? rc : KILN_ERR_INTERNAL);
        }
    }
    return KD_DONE;
}

/* Runs model m as described above; fills r and returns r->stage. */
static int kd_drive(kiln_model *m, const kd_config *cfg, kd_result *r)
{
    memset(r, 0, sizeof *r);
    kiln_session *s = NULL;
    int32_t rc = kiln_session_create(m, cfg->session_options, &s);
    if (rc != KILN_OK)
        return kd_fail(r, KD_SESSION, rc);
    int32_t n_in = 0, n_out = 0;
    kiln_model_input_count(m, &n_in);
    kiln_model_output_count(m, &n_out);
    void **bufs = calloc(n_in > 0 ? (size_t)n_in : 1, sizeof *bufs);
    int stage = KD_DONE;
    int64_t total = 0;
    int dyn = 0;
    for (int32_t i = 0; bufs && i < n_in && stage == KD_DONE; i++) {
        int32_t dtype = 0, rank = 0;
        int64_t dims[16];
        kiln_model_input_dtype(m, i, &dtype);
        if (dtype == 0)
            dtype = KILN_DTYPE_FLOAT; /* left open by the model */
        rc = kiln_model_input_shape(m, i, dims, 16, &rank);
        if (rc == KILN_ERR_BUFFER_TOO_SMALL) {
            stage = kd_fail(r, KD_BIND, rc);
            break;
        }
        if (rank < 0) { /* unknown rank: a vector */
            rank = 1;
            dims[0] = -1;
        }
        int64_t numel = 1;
        for (int32_t d = 0; d < rank; d++) {
            if (dims[d] < 0)
                dims[d] = 1 + ((cfg->dyn_seed >> (dyn++ % 31)) & 1);
            if (dims[d] != 0 && numel > cfg->max_input_bytes / dims[d])
                numel = cfg->max_input_bytes + 1; /* too big; avoids overflow */
            else
                numel *= dims[d];
        }
        size_t es = kd_dtype_size(dtype);
        int64_t bytes = es && numel <= cfg->max_input_bytes ? numel * (int64_t)es : -1;
        if (es && (bytes < 0 || total + bytes > cfg->max_input_bytes)) {
            r->stage = stage = KD_SKIPPED;
            break;
        }
        total += bytes > 0 ? bytes : 0;
        bufs[i] = malloc(bytes > 0 ? (size_t)bytes : 1);
        if (!bufs[i]) {
            r->stage = stage = KD_SKIPPED;
            break;
        }
        if (es)
            kd_fill(bufs[i], dtype, numel);
        /* Unknown element types (strings) are bound anyway: the library
         * must refuse them with a clean error. */
        rc = kiln_session_set_input_at(s, i, dtype, dims, rank, bufs[i],
                                       bytes > 0 ? (size_t)bytes : 0, i & 1 ? KILN_INPUT_COPY : 0);
        if (rc != KILN_OK)
            stage = kd_fail(r, KD_BIND, rc);
    }
    for (int32_t k = 0; stage == KD_DONE && k < (cfg->runs > 0 ? cfg->runs : 1); k++) {
        rc = kiln_session_run(s);
        if (rc != KILN_OK)
            stage = kd_fail(r, KD_RUN, rc);
        else
            stage = kd_read_outputs(s, n_out, r);
    }
    kiln_session_destroy(s);
    for (int32_t i = 0; bufs && i < n_in; i++)
        free(bufs[i]);
    free(bufs);
    return stage;
}

#endif
