/* abi_ffi_test LIBKILN_SO SOURCE_DIR
 *
 * Calls every function of Kiln's public API through libffi, the way a
 * binding without a C compiler (Python ctypes, Java's Panama, Node's ffi)
 * would, with each call's ffi types taken from the API spec: first with
 * NULL and bad arguments (each must answer the documented status, never
 * crash), then a real run of the digits model. Finally checks that every
 * function was called and every status-returning one succeeded at least
 * once, so a function added to the spec without a test here fails.
 * Exit status 0 when everything matched. */
#include <stdlib.h>
#include <string.h>

#include "abi_check.h"

int abi_failures;

static const char *status_name(int32_t status)
{
    for (size_t i = 0; i < sizeof kiln_api_constants / sizeof kiln_api_constants[0]; i++)
        if (strcmp(kiln_api_constants[i].group, "status") == 0 &&
            kiln_api_constants[i].value == status)
            return kiln_api_constants[i].name;
    return "(not a status)";
}

int32_t abi_status(ffi_api *api, const char *name, const ffi_value *values, int n)
{
    int32_t status = ABI_CALL_FAILED;
    if (ffi_api_call(api, name, values, n, &status, NULL) != 0) {
        abi_failures++;
        return ABI_CALL_FAILED;
    }
    return status;
}

int abi_expect(ffi_api *api, int line, const char *expected, const char *name,
               const ffi_value *values, int n)
{
    int32_t want = ffi_api_constant(expected);
    int32_t got = abi_status(api, name, values, n);
    if (got == want)
        return 1;
    if (got != ABI_CALL_FAILED) {
        char msg[512] = "";
        ffi_value args[2] = {PTR(msg), I32(sizeof msg)};
        ffi_api_call(api, "kiln_last_error", args, 2, NULL, NULL);
        abi_failures++;
        fprintf(stderr, "line %d: FAILED: %s returned %s, expected %s (message: %s)\n", line,
                name, status_name(got), expected, msg);
    }
    return 0;
}

/* Functions that succeed only on a session with a device (KILN_SOPT_DEVICE):
 * libkiln.so alone has no device here, so this run checks their refusals;
 * tests/test_device_io.c runs them to success on the engine's test double. */
static int needs_a_device(const char *name)
{
    static const char *const names[] = {"kiln_session_set_input_device",
                                        "kiln_session_bind_output_device",
                                        "kiln_session_device_stream"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

static void check_coverage(const ffi_api *api)
{
    int calls = 0;
    for (int i = 0; i < ffi_api_count(api); i++) {
        const kiln_api_function *f = ffi_api_function(api, i);
        calls += ffi_api_calls(api, i);
        CHECK(ffi_api_calls(api, i) > 0, "%s was never called", f->name);
        CHECK(strcmp(f->result, "status") != 0 || ffi_api_successes(api, i) > 0 ||
                  needs_a_device(f->name),
              "%s never returned KILN_OK", f->name);
    }
    printf("abi_ffi: %d functions, %d calls through libffi\n", ffi_api_count(api), calls);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s LIBKILN_SO SOURCE_DIR\n", argv[0]);
        return 2;
    }
    ffi_api *api = ffi_api_open(argv[1]);
    if (!api)
        return 1;
    abi_check_null_arguments(api);
    abi_run_sequence(api, argv[2]);
    check_coverage(api);
    ffi_api_close(api);
    if (abi_failures)
        fprintf(stderr, "abi_ffi: %d failures\n", abi_failures);
    else
        printf("abi_ffi: all checks passed\n");
    return abi_failures ? 1 : 0;
}
