#include "tests/cuda/model_coverage.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_helpers.h"
#include "tests/cuda/cuda_cases.h"

static void append(char *list, size_t cap, const char *item)
{
    size_t used = strlen(list);
    if (used + strlen(item) + 3 < cap)
        snprintf(list + used, cap - used, "%s%s", used ? ", " : "", item);
}

/* Whether the profile line `name` ("copy device→host (N bytes) 'v'")
 * copies one of the model's outputs. */
static int copies_an_output(const kiln_model *m, const char *name)
{
    int32_t n = 0;
    KT_OK(kiln_model_output_count(m, &n));
    for (int32_t i = 0; i < n; i++) {
        char out[256], quoted[260];
        KT_OK(kiln_model_output_name(m, i, out, sizeof out, NULL));
        snprintf(quoted, sizeof quoted, "'%s'", out);
        size_t ln = strlen(name), lq = strlen(quoted);
        if (ln >= lq && strcmp(name + ln - lq, quoted) == 0)
            return 1;
    }
    return 0;
}

/* Zeros for every input at its declared shape, open dims as 1. */
static void bind_zeros(const kiln_model *m, kiln_session *s)
{
    int32_t n = 0;
    KT_OK(kiln_model_input_count(m, &n));
    for (int32_t i = 0; i < n; i++) {
        int32_t dtype = 0, rank = 0;
        int64_t dims[8];
        KT_OK(kiln_model_input_dtype(m, i, &dtype));
        KT_OK(kiln_model_input_shape(m, i, dims, 8, &rank));
        size_t count = 1;
        for (int32_t d = 0; d < rank; d++)
            count *= (size_t)(dims[d] = dims[d] > 0 ? dims[d] : 1);
        size_t bytes = count * 8; /* room for any numeric dtype */
        void *zeros = calloc(1, bytes);
        cr_assert_eq(dtype, KILN_DTYPE_FLOAT, "input %d: only float inputs are made up here", i);
        KT_OK(
            kiln_session_set_input_at(s, i, dtype, dims, rank, zeros, count * 4, KILN_INPUT_COPY));
        free(zeros);
    }
    KT_OK(kiln_session_run(s));
}

/* Binds input 0 from a TensorProto file (zeros when there is none) and
 * runs once: a model whose shapes are not all declared plans at its first
 * run. */
static void run_once(const kiln_model *m, kiln_session *s, const char *input_pb)
{
    size_t size = 0;
    void *bytes = input_pb ? kt_read_file(input_pb, &size) : NULL;
    if (!bytes) {
        bind_zeros(m, s);
        return;
    }
    kiln_tensor *t = NULL;
    KT_OK(kiln_tensor_decode(bytes, size, &t));
    free(bytes);
    int32_t dtype = 0, rank = 0;
    int64_t dims[8];
    const void *data = NULL;
    size_t nbytes = 0;
    KT_OK(kiln_tensor_info(t, &dtype, dims, 8, &rank));
    KT_OK(kiln_tensor_data(t, &data, &nbytes));
    KT_OK(kiln_session_set_input_at(s, 0, dtype, dims, rank, data, nbytes, 0));
    KT_OK(kiln_session_run(s));
    kiln_tensor_destroy(t);
}

int cuda_model_coverage(const char *path, const char *input_pb, model_coverage *out)
{
    memset(out, 0, sizeof *out);
    if (access(path, R_OK) != 0)
        return -1;
    kiln_runtime *rt = kt_runtime(1);
    kiln_options *o = NULL;
    kiln_model *m = NULL;
    kiln_session *s = NULL;
    KT_OK(kiln_options_create(&o));
    KT_OK(kiln_options_set_string(o, KILN_SOPT_DEVICE, "cuda"));
    KT_OK(kiln_options_set_int(o, KILN_OPT_PROFILE, 1));
    KT_OK(kiln_model_load_file(rt, path, o, &m));
    KT_OK(kiln_session_create(m, o, &s));
    int32_t n = 0;
    if (kiln_session_profile_count(s, &n) != KILN_OK) {
        run_once(m, s, input_pb);
        KT_OK(kiln_session_profile_count(s, &n));
    }
    for (int32_t i = 0; i < n; i++) {
        char kernel[64], op[64], name[256], item[400];
        KT_OK(kiln_session_profile_kernel(s, i, kernel, sizeof kernel, NULL));
        KT_OK(kiln_session_profile_op(s, i, op, sizeof op, NULL));
        KT_OK(kiln_session_profile_name(s, i, name, sizeof name, NULL));
        if (strcmp(op, "Sync") == 0)
            continue;
        if (strcmp(op, "Copy") == 0) {
            if (strstr(name, "device→host") && !copies_an_output(m, name)) {
                out->bounces++;
                append(out->bounced, sizeof out->bounced, name);
            }
            continue;
        }
        out->steps++;
        if (strcmp(kernel, "cuda") == 0) {
            out->device_steps++;
            continue;
        }
        out->host_steps++;
        snprintf(item, sizeof item, "%s (%s on %s)", name, op, kernel);
        append(out->host_ops, sizeof out->host_ops, item);
    }
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_options_destroy(o);
    kiln_runtime_destroy(rt);
    return 0;
}

/* Binds every input: input 0 from input_pb when there is one, float inputs
 * to seeded values at their declared shape (open dims 1) otherwise. */
static void bind_inputs(const kiln_model *m, kiln_session *s, const char *input_pb)
{
    size_t size = 0;
    void *bytes = input_pb ? kt_read_file(input_pb, &size) : NULL;
    int32_t n = 0;
    KT_OK(kiln_model_input_count(m, &n));
    for (int32_t i = 0; i < n; i++) {
        if (i == 0 && bytes) {
            kiln_tensor *t = NULL;
            KT_OK(kiln_tensor_decode(bytes, size, &t));
            int32_t dtype = 0, rank = 0;
            int64_t dims[8];
            const void *data = NULL;
            size_t nbytes = 0;
            KT_OK(kiln_tensor_info(t, &dtype, dims, 8, &rank));
            KT_OK(kiln_tensor_data(t, &data, &nbytes));
            KT_OK(
                kiln_session_set_input_at(s, 0, dtype, dims, rank, data, nbytes, KILN_INPUT_COPY));
            kiln_tensor_destroy(t);
            continue;
        }
        int32_t dtype = 0, rank = 0;
        int64_t dims[8];
        KT_OK(kiln_model_input_dtype(m, i, &dtype));
        KT_OK(kiln_model_input_shape(m, i, dims, 8, &rank));
        cr_assert_eq(dtype, KILN_DTYPE_FLOAT, "input %d: only float inputs are made up here", i);
        size_t count = 1;
        for (int32_t d = 0; d < rank; d++)
            count *= (size_t)(dims[d] = dims[d] > 0 ? dims[d] : 1);
        float *x = malloc(count * sizeof *x + 4);
        fill(x, count, 1000 + (unsigned)i);
        KT_OK(kiln_session_set_input_at(s, i, dtype, dims, rank, x, count * sizeof *x,
                                        KILN_INPUT_COPY));
        free(x);
    }
    free(bytes);
}

/* Output k of a run on device (NULL: the CPU), malloc'd; *n elements. */
static float *run_on(kiln_runtime *rt, const char *path, const char *device, const char *input_pb,
                     int32_t k, int64_t *n)
{
    kiln_options *o = NULL;
    kiln_model *m = NULL;
    kiln_session *s = NULL;
    KT_OK(kiln_options_create(&o));
    if (device)
        KT_OK(kiln_options_set_string(o, KILN_SOPT_DEVICE, device));
    KT_OK(kiln_model_load_file(rt, path, o, &m));
    KT_OK(kiln_session_create(m, o, &s));
    bind_inputs(m, s, input_pb);
    KT_OK(kiln_session_run(s));
    size_t need = 0;
    kiln_session_output_copy(s, k, NULL, 0, &need);
    float *y = malloc(need + 4);
    KT_OK(kiln_session_output_copy(s, k, y, need, NULL));
    *n = (int64_t)(need / sizeof(float));
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_options_destroy(o);
    return y;
}

double cuda_model_difference(const char *path, const char *input_pb)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = NULL;
    KT_OK(kiln_model_load_file(rt, path, NULL, &m));
    int32_t outputs = 0;
    KT_OK(kiln_model_output_count(m, &outputs));
    double worst = 0;
    for (int32_t k = 0; k < outputs; k++) {
        int32_t dtype = 0;
        KT_OK(kiln_model_output_dtype(m, k, &dtype));
        if (dtype != KILN_DTYPE_FLOAT)
            continue;
        int64_t n_dev = 0, n_cpu = 0;
        float *dev = run_on(rt, path, "cuda", input_pb, k, &n_dev);
        float *cpu = run_on(rt, path, NULL, input_pb, k, &n_cpu);
        cr_assert_eq(n_dev, n_cpu, "output %d: %lld elements on the device, %lld on the CPU", k,
                     (long long)n_dev, (long long)n_cpu);
        double scale = 1, diff = 0;
        for (int64_t i = 0; i < n_cpu; i++)
            scale = fmax(scale, fabs((double)cpu[i]));
        for (int64_t i = 0; i < n_cpu; i++)
            diff = fmax(diff, fabs((double)dev[i] - (double)cpu[i]));
        if (isnan(diff) || diff != diff)
            diff = INFINITY;
        for (int64_t i = 0; i < n_cpu; i++)
            if (isnan(dev[i]) != isnan(cpu[i]))
                diff = INFINITY;
        worst = fmax(worst, diff / scale);
        free(dev);
        free(cpu);
    }
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
    return worst;
}

typedef struct case_inputs {
    int32_t n;
    kiln_tensor *t[16];
} case_inputs;

static void free_case_inputs(case_inputs *in)
{
    for (int32_t i = 0; i < in->n; i++)
        kiln_tensor_destroy(in->t[i]);
    in->n = 0;
}

/* Runs a session on device (NULL: the CPU) over the inputs; KILN_OK or the
 * failing call's status with its message in why. */
static int32_t run_case_on(kiln_model *m, const char *device, const case_inputs *in,
                           kiln_session **out, char *why, size_t why_cap)
{
    kiln_options *o = NULL;
    int32_t rc = kiln_options_create(&o);
    if (rc == KILN_OK && device)
        rc = kiln_options_set_string(o, KILN_SOPT_DEVICE, device);
    if (rc == KILN_OK)
        rc = kiln_options_set_int(o, KILN_OPT_PROFILE, 1);
    if (rc == KILN_OK)
        rc = kiln_session_create(m, o, out);
    kiln_options_destroy(o);
    for (int32_t i = 0; rc == KILN_OK && i < in->n; i++) {
        int32_t dtype = 0, rank = 0;
        int64_t dims[16];
        const void *data = NULL;
        size_t nbytes = 0;
        kiln_tensor_info(in->t[i], &dtype, dims, 16, &rank);
        kiln_tensor_data(in->t[i], &data, &nbytes);
        rc = kiln_session_set_input_at(*out, i, dtype, dims, rank, data, nbytes, KILN_INPUT_COPY);
    }
    if (rc == KILN_OK)
        rc = kiln_session_run(*out);
    if (rc != KILN_OK)
        kiln_last_error(why, why_cap);
    return rc;
}

/* The difference of output k between two sessions, as documented above. */
static double output_difference(const kiln_session *dev, const kiln_session *cpu, int32_t k)
{
    int32_t dtype = 0, rank = 0;
    int64_t dims[16];
    if (kiln_session_output_info(cpu, k, &dtype, dims, 16, &rank) != KILN_OK ||
        dtype == KILN_DTYPE_STRING)
        return 0;
    size_t nd = 0, nc = 0;
    kiln_session_output_copy(dev, k, NULL, 0, &nd);
    kiln_session_output_copy(cpu, k, NULL, 0, &nc);
    if (nd != nc)
        return INFINITY;
    unsigned char *a = malloc(nd + 8), *b = malloc(nc + 8);
    double diff = 0;
    if (kiln_session_output_copy(dev, k, a, nd, NULL) != KILN_OK ||
        kiln_session_output_copy(cpu, k, b, nc, NULL) != KILN_OK) {
        diff = INFINITY;
    } else if (dtype == KILN_DTYPE_FLOAT) {
        const float *x = (const float *)a, *y = (const float *)b;
        size_t n = nc / sizeof(float);
        double scale = 1;
        for (size_t i = 0; i < n; i++)
            scale = isfinite(y[i]) ? fmax(scale, fabs((double)y[i])) : scale;
        for (size_t i = 0; i < n; i++) {
            if (isnan(x[i]) != isnan(y[i]) || (isinf(y[i]) && x[i] != y[i]))
                diff = INFINITY;
            else if (isfinite(y[i]))
                diff = fmax(diff, fabs((double)x[i] - (double)y[i]) / scale);
        }
    } else {
        diff = memcmp(a, b, nc) == 0 ? 0 : INFINITY;
    }
    free(a);
    free(b);
    return diff;
}

int cuda_case_difference(const char *dir, double *diff, int *device_steps, char *why,
                         size_t why_cap)
{
    char path[1200];
    *diff = 0;
    *device_steps = 0;
    why[0] = '\0';
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = NULL;
    case_inputs in = {0};
    int ran = 0;
    if (kiln_model_load_file(rt, path, NULL, &m) != KILN_OK)
        goto done;
    KT_OK(kiln_model_input_count(m, &in.n));
    if (in.n > 16)
        goto done;
    for (int32_t i = 0; i < in.n; i++) {
        int32_t kind = -1, dtype = 0;
        size_t size = 0;
        snprintf(path, sizeof path, "%s/test_data_set_0/input_%d.pb", dir, (int)i);
        void *bytes = kt_read_file(path, &size);
        kiln_model_input_kind(m, i, &kind);
        int32_t rc = bytes && kind == KILN_KIND_TENSOR ? kiln_tensor_decode(bytes, size, &in.t[i])
                                                       : KILN_ERR_UNSUPPORTED;
        free(bytes);
        int64_t dims[16];
        int32_t rank = 0;
        if (rc == KILN_OK)
            rc = kiln_tensor_info(in.t[i], &dtype, dims, 16, &rank);
        if (rc != KILN_OK || dtype == KILN_DTYPE_STRING) {
            if (rc == KILN_OK)
                kiln_tensor_destroy(in.t[i]);
            in.n = i;
            goto done;
        }
    }
    kiln_session *cpu = NULL, *dev = NULL;
    char cpu_why[512];
    if (run_case_on(m, NULL, &in, &cpu, cpu_why, sizeof cpu_why) != KILN_OK) {
        kiln_session_destroy(cpu);
        goto done;
    }
    ran = 1;
    if (run_case_on(m, "cuda", &in, &dev, why, why_cap) != KILN_OK) {
        *diff = INFINITY;
    } else {
        int32_t outputs = 0, steps = 0;
        KT_OK(kiln_model_output_count(m, &outputs));
        for (int32_t k = 0; k < outputs; k++) {
            int32_t kind = -1;
            kiln_model_output_kind(m, k, &kind);
            if (kind == KILN_KIND_TENSOR)
                *diff = fmax(*diff, output_difference(dev, cpu, k));
        }
        if (kiln_session_profile_count(dev, &steps) == KILN_OK)
            for (int32_t i = 0; i < steps; i++) {
                char kernel[64], op[64];
                KT_OK(kiln_session_profile_kernel(dev, i, kernel, sizeof kernel, NULL));
                KT_OK(kiln_session_profile_op(dev, i, op, sizeof op, NULL));
                *device_steps += strcmp(kernel, "cuda") == 0 && strcmp(op, "Copy") != 0 &&
                                 strcmp(op, "Sync") != 0;
            }
    }
    kiln_session_destroy(dev);
    kiln_session_destroy(cpu);
done:
    free_case_inputs(&in);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
    return ran;
}
