#include "core/cuda/cuda_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

/* One entry point: where its pointer goes and which library has it. */
typedef struct api_symbol {
    const char *name;
    size_t offset; /* of the pointer in kn_cuda_api */
    int library;   /* 0 runtime, 1 cuBLASLt, 2 cuDNN */
} api_symbol;

#define RUNTIME_ROW(ret, name, params) {#name, offsetof(kn_cuda_api, name), 0},
#define CUBLASLT_ROW(ret, name, params) {#name, offsetof(kn_cuda_api, name), 1},
#define CUDNN_ROW(ret, name, params) {#name, offsetof(kn_cuda_api, name), 2},
static const api_symbol api_symbols[] = {KN_CUDA_RUNTIME_FNS(RUNTIME_ROW)
                                             KN_CUBLASLT_FNS(CUBLASLT_ROW) KN_CUDNN_FNS(CUDNN_ROW)};
#undef RUNTIME_ROW
#undef CUBLASLT_ROW
#undef CUDNN_ROW

static kn_cuda_api the_api;
static kn_err the_error;
static int the_status = KN_ERR_UNSUPPORTED;
static pthread_once_t the_once = PTHREAD_ONCE_INIT;

static void open_api(void)
{
    kn_err err = {0};
    if (kn_cuda_libs_open_default(&the_api.libs, &err) != KN_OK) {
        the_error = err;
        return;
    }
    static const char *const library_names[] = {"the CUDA runtime", "cuBLASLt", "cuDNN"};
    void *handles[] = {the_api.libs.cudart, the_api.libs.cublaslt, the_api.libs.cudnn};
    for (size_t i = 0; i < sizeof api_symbols / sizeof api_symbols[0]; i++) {
        void *fn = dlsym(handles[api_symbols[i].library], api_symbols[i].name);
        if (!fn) {
            kn_fail(&the_error, KN_ERR_UNSUPPORTED,
                    "CUDA: %s has no %s (older than CUDA 12 / cuDNN 9?)",
                    library_names[api_symbols[i].library], api_symbols[i].name);
            return;
        }
        /* POSIX guarantees a data pointer from dlsym converts to a function
         * pointer; the slot is a function pointer of the declared type */
        memcpy((char *)&the_api + api_symbols[i].offset, &fn, sizeof fn);
    }
    the_status = KN_OK;
}

const kn_cuda_api *kn_cuda_api_get(kn_err *err)
{
    pthread_once(&the_once, open_api);
    if (the_status == KN_OK)
        return &the_api;
    if (err)
        kn_fail(err, the_error.code ? the_error.code : KN_ERR_UNSUPPORTED, "%s", the_error.msg);
    return NULL;
}
