/* See ffi_api.h. */
#include "ffi_api.h"

#include <dlfcn.h>
#include <ffi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_FUNCTIONS ((int)(sizeof kiln_api_functions / sizeof kiln_api_functions[0]))
#define N_CONSTANTS ((int)(sizeof kiln_api_constants / sizeof kiln_api_constants[0]))

typedef struct {
    const kiln_api_function *spec;
    void (*fn)(void);
    ffi_cif cif;
    ffi_type *arg_types[KILN_API_TABLE_MAX_ARGS];
    char tags[KILN_API_TABLE_MAX_ARGS];
    int calls, successes;
} prepared_function;

struct ffi_api {
    void *library;
    prepared_function functions[N_FUNCTIONS];
};

/* The ffi type and value tag of a spec C type; NULL for a type this test
 * does not know (a new kind of argument needs a decision here). */
static ffi_type *ffi_type_of(const char *c_type, char *tag)
{
    size_t len = strlen(c_type);
    if (strcmp(c_type, "void") == 0) {
        *tag = 'v';
        return &ffi_type_void;
    }
    if (strcmp(c_type, "int32_t") == 0) {
        *tag = 'i';
        return &ffi_type_sint32;
    }
    if (strcmp(c_type, "size_t") == 0) {
        *tag = 'z';
        return sizeof(size_t) == 8 ? &ffi_type_uint64 : &ffi_type_uint32;
    }
    if (len > 0 && c_type[len - 1] == '*') {
        *tag = 'p';
        return &ffi_type_pointer;
    }
    return NULL;
}

static int prepare(prepared_function *p, void *library)
{
    const kiln_api_function *f = p->spec;
    char ret_tag = 0;
    ffi_type *ret = ffi_type_of(f->returns, &ret_tag);
    if (!ret) {
        fprintf(stderr, "%s: return type '%s' has no ffi mapping\n", f->name, f->returns);
        return -1;
    }
    for (int i = 0; i < f->n_args; i++) {
        p->arg_types[i] = ffi_type_of(f->args[i].type, &p->tags[i]);
        if (!p->arg_types[i] || p->tags[i] == 'v') {
            fprintf(stderr, "%s: argument %s has type '%s' with no ffi mapping\n", f->name,
                    f->args[i].name, f->args[i].type);
            return -1;
        }
    }
    dlerror();
    void *symbol = dlsym(library, f->name);
    if (!symbol) {
        const char *why = dlerror();
        fprintf(stderr, "dlsym(%s) failed: %s\n", f->name, why ? why : "symbol is NULL");
        return -1;
    }
    /* POSIX guarantees a data pointer from dlsym converts to a function pointer. */
    memcpy(&p->fn, &symbol, sizeof p->fn);
    if (ffi_prep_cif(&p->cif, FFI_DEFAULT_ABI, (unsigned)f->n_args, ret, p->arg_types) != FFI_OK) {
        fprintf(stderr, "%s: ffi_prep_cif failed\n", f->name);
        return -1;
    }
    return 0;
}

ffi_api *ffi_api_open(const char *library_path)
{
    ffi_api *api = calloc(1, sizeof *api);
    if (!api) {
        fprintf(stderr, "out of memory\n");
        return NULL;
    }
    api->library = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
    if (!api->library) {
        fprintf(stderr, "dlopen(%s) failed: %s\n", library_path, dlerror());
        free(api);
        return NULL;
    }
    for (int i = 0; i < N_FUNCTIONS; i++) {
        api->functions[i].spec = &kiln_api_functions[i];
        if (prepare(&api->functions[i], api->library) != 0) {
            ffi_api_close(api);
            return NULL;
        }
    }
    return api;
}

void ffi_api_close(ffi_api *api)
{
    /* The library stays loaded until exit: leak checkers (LeakSanitizer,
     * valgrind) need its code mapped to walk its threads and name its
     * frames, and LeakSanitizer crashes on libraries unloaded before. */
    free(api);
}

static prepared_function *find(ffi_api *api, const char *name)
{
    for (int i = 0; i < N_FUNCTIONS; i++)
        if (strcmp(api->functions[i].spec->name, name) == 0)
            return &api->functions[i];
    return NULL;
}

int ffi_api_call(ffi_api *api, const char *name, const ffi_value *values, int n, int32_t *ret,
                 const char **str)
{
    prepared_function *p = find(api, name);
    if (!p) {
        fprintf(stderr, "call to %s: not in the spec\n", name);
        return -1;
    }
    if (n != p->spec->n_args) {
        fprintf(stderr, "call to %s: %d values given, the spec lists %d arguments\n", name, n,
                p->spec->n_args);
        return -1;
    }
    void *avalues[KILN_API_TABLE_MAX_ARGS];
    for (int i = 0; i < n; i++) {
        if (values[i].tag != p->tags[i]) {
            fprintf(stderr, "call to %s: argument %s is '%s' in the spec, the call passes a "
                    "'%c' value\n", name, p->spec->args[i].name, p->spec->args[i].type,
                    values[i].tag);
            return -1;
        }
        /* ffi_call reads each value through a non-const pointer but never writes it. */
        avalues[i] = (void *)&values[i].v;
    }
    union {
        ffi_arg integer;
        void *pointer;
    } result;
    memset(&result, 0, sizeof result);
    ffi_call(&p->cif, p->fn, &result, n ? avalues : NULL);
    p->calls++;
    if (strcmp(p->spec->returns, "int32_t") == 0) {
        int32_t value = (int32_t)result.integer;
        if (strcmp(p->spec->result, "status") == 0 && value == 0)
            p->successes++;
        if (ret)
            *ret = value;
    } else if (strcmp(p->spec->returns, "void") != 0) {
        if (str)
            *str = result.pointer;
    }
    return 0;
}

int ffi_api_count(const ffi_api *api)
{
    (void)api;
    return N_FUNCTIONS;
}

const kiln_api_function *ffi_api_function(const ffi_api *api, int index)
{
    return api->functions[index].spec;
}

int ffi_api_calls(const ffi_api *api, int index) { return api->functions[index].calls; }

int ffi_api_successes(const ffi_api *api, int index) { return api->functions[index].successes; }

int32_t ffi_api_constant(const char *name)
{
    for (int i = 0; i < N_CONSTANTS; i++)
        if (strcmp(kiln_api_constants[i].name, name) == 0)
            return (int32_t)kiln_api_constants[i].value;
    fprintf(stderr, "constant %s is not in the spec\n", name);
    exit(1);
}
