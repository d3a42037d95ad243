/* Calls Kiln's public functions through libffi, with each call's ffi types
 * built from the API spec table (kiln_api_table.h, generated from
 * capi/kiln_api.json) rather than from the prototypes in kiln.h. A call site
 * tags every value with the C type it means (I32/SZ/PTR); a tag that
 * disagrees with the spec's type, or a wrong argument count, is reported
 * as a test failure naming the function, so the test also checks that the
 * spec describes what the real calls need. */
#ifndef KILN_FFI_API_H
#define KILN_FFI_API_H

#include <stddef.h>
#include <stdint.h>

#include "kiln_api_table.h"

typedef struct {
    char tag; /* 'i' int32_t, 'z' size_t, 'p' any pointer */
    union {
        int32_t i32;
        size_t size;
        void *ptr;
    } v;
} ffi_value;

#define I32(x) ((ffi_value){.tag = 'i', .v.i32 = (int32_t)(x)})
#define SZ(x) ((ffi_value){.tag = 'z', .v.size = (size_t)(x)})
#define PTR(x) ((ffi_value){.tag = 'p', .v.ptr = (void *)(x)})

typedef struct ffi_api ffi_api;

/* dlopen()s library_path and resolves and prepares every function of the
 * table. Returns NULL after printing why. */
ffi_api *ffi_api_open(const char *library_path);
void ffi_api_close(ffi_api *api);

/* Calls function `name` with n values. The return value is stored in *ret
 * (int32_t for int32_t returns, const char * in *str for pointer returns;
 * either may be NULL). Returns 0, or -1 after printing why the call could
 * not be made (unknown name, count or type mismatch). */
int ffi_api_call(ffi_api *api, const char *name, const ffi_value *values, int n, int32_t *ret,
                 const char **str);

/* Spec entries, and how often each function was called / returned KILN_OK. */
int ffi_api_count(const ffi_api *api);
const kiln_api_function *ffi_api_function(const ffi_api *api, int index);
int ffi_api_calls(const ffi_api *api, int index);
int ffi_api_successes(const ffi_api *api, int index);

/* Value of constant `name` from the spec; aborts the test run (exit 1) if
 * the spec lacks it, since every later check would be meaningless. */
int32_t ffi_api_constant(const char *name);

#endif
