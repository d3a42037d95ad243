#include "core/cuda/cuda_libs.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KN_CUDA_DEFAULT_DIR "/usr/local/cuda/lib64"
#define KN_CUDA_MAX_DIRS 16

/* Where a failed search looked, for the error message. */
typedef struct search_note {
    char text[320];
} search_note;

static void describe_search(search_note *note, const char *const *dirs, int use_loader_path)
{
    size_t used = 0;
    note->text[0] = '\0';
    for (int i = 0; dirs && dirs[i]; i++)
        used += (size_t)snprintf(note->text + used,
                                 used < sizeof note->text ? sizeof note->text - used : 0, "%s%s",
                                 used ? ", " : "", dirs[i]);
    if (use_loader_path && used < sizeof note->text)
        snprintf(note->text + used, sizeof note->text - used, "%sthe dynamic loader's path",
                 used ? ", " : "");
    if (!note->text[0])
        snprintf(note->text, sizeof note->text, "nowhere (no folders given)");
}

/* dlopen of `soname` in the first folder that has it, else by the loader's
 * own search; NULL when none has it. */
static void *open_in(const char *soname, const char *const *dirs, int use_loader_path)
{
    char path[1024];
    for (int i = 0; dirs && dirs[i]; i++) {
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dirs[i], soname) >= sizeof path)
            continue;
        void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (lib)
            return lib;
    }
    return use_loader_path ? dlopen(soname, RTLD_NOW | RTLD_LOCAL) : NULL;
}

static int resolve(void *lib, const char *name, void **slot, const char *soname, kn_err *err)
{
    *slot = dlsym(lib, name);
    if (!*slot)
        return kn_fail(err, KN_ERR_UNSUPPORTED, "CUDA: %s has no %s (not a CUDA 12/13 build?)",
                       soname, name);
    return KN_OK;
}

/* Forgets the libraries without unloading them: they stay loaded for the
 * life of the process, as oneDNN does (core/dnnl/dnnl_loader.c). cuBLASLt
 * and cuDNN are C++ libraries; unloading them takes libstdc++ along when
 * nothing else held it, and with it state it allocated (its exception
 * pool), which then reads as a leak; the CUDA runtime registers exit-time
 * handlers of its own. A second open finds them already loaded. */
void kn_cuda_libs_close(kn_cuda_libs *libs)
{
    if (libs)
        memset(libs, 0, sizeof *libs);
}

int kn_cuda_libs_open(kn_cuda_libs *libs, const char *const *dirs, int use_loader_path, kn_err *err)
{
    memset(libs, 0, sizeof *libs);
    search_note where;
    describe_search(&where, dirs, use_loader_path);
    static const int majors[] = {13, 12};
    char soname[64];
    for (size_t m = 0; m < sizeof majors / sizeof majors[0] && !libs->cudart; m++) {
        snprintf(soname, sizeof soname, "libcudart.so.%d", majors[m]);
        libs->cudart = open_in(soname, dirs, use_loader_path);
        libs->cuda_major = majors[m];
    }
    if (!libs->cudart) {
        libs->cuda_major = 0;
        return kn_fail(err, KN_ERR_UNSUPPORTED,
                       "CUDA: the CUDA runtime (libcudart.so.13 or .12) was not found in %s; "
                       "install CUDA 12 or 13 and put its lib folder in KILN_CUDA_PATH",
                       where.text);
    }
    /* the runtime's entry points */
    struct {
        const char *name;
        void **slot;
    } runtime_fns[] = {
        {"cudaRuntimeGetVersion", (void **)&libs->cudaRuntimeGetVersion},
        {"cudaDriverGetVersion", (void **)&libs->cudaDriverGetVersion},
        {"cudaGetDeviceCount", (void **)&libs->cudaGetDeviceCount},
        {"cudaGetErrorString", (void **)&libs->cudaGetErrorString},
    };
    int rc = KN_OK;
    snprintf(soname, sizeof soname, "libcudart.so.%d", libs->cuda_major);
    for (size_t f = 0; f < sizeof runtime_fns / sizeof runtime_fns[0] && rc == KN_OK; f++)
        rc = resolve(libs->cudart, runtime_fns[f].name, runtime_fns[f].slot, soname, err);
    if (rc == KN_OK) {
        /* cuBLASLt of the runtime's major version: the two share one ABI */
        snprintf(soname, sizeof soname, "libcublasLt.so.%d", libs->cuda_major);
        libs->cublaslt = open_in(soname, dirs, use_loader_path);
        rc = libs->cublaslt
                 ? resolve(libs->cublaslt, "cublasLtGetVersion", (void **)&libs->cublasLtGetVersion,
                           soname, err)
                 : kn_fail(err, KN_ERR_UNSUPPORTED,
                           "CUDA: cuBLASLt (%s, to match the CUDA %d runtime found) was not found "
                           "in %s; "
                           "install cuBLAS for CUDA %d and put its lib folder in KILN_CUDA_PATH",
                           soname, libs->cuda_major, where.text, libs->cuda_major);
    }
    if (rc == KN_OK) {
        snprintf(soname, sizeof soname, "libcudnn.so.9");
        libs->cudnn = open_in(soname, dirs, use_loader_path);
        rc = libs->cudnn
                 ? resolve(libs->cudnn, "cudnnGetVersion", (void **)&libs->cudnnGetVersion, soname,
                           err)
                 : kn_fail(err, KN_ERR_UNSUPPORTED,
                           "CUDA: cuDNN 9 (libcudnn.so.9) was not found in %s; install cuDNN 9 for "
                           "CUDA %d and put its lib folder in KILN_CUDA_PATH",
                           where.text, libs->cuda_major);
    }
    if (rc != KN_OK)
        kn_cuda_libs_close(libs);
    return rc;
}

int kn_cuda_libs_open_default(kn_cuda_libs *libs, kn_err *err)
{
    /* $KILN_CUDA_PATH's folders, split in a copy of the variable */
    const char *dirs[KN_CUDA_MAX_DIRS + 1];
    int n = 0;
    char *copy = NULL;
    const char *env = getenv("KILN_CUDA_PATH");
    if (env && *env) {
        copy = strdup(env);
        if (!copy)
            return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "CUDA: out of memory reading KILN_CUDA_PATH");
        char *save = NULL;
        for (char *dir = strtok_r(copy, ":", &save); dir && n < KN_CUDA_MAX_DIRS;
             dir = strtok_r(NULL, ":", &save))
            dirs[n++] = dir;
    }
    dirs[n] = NULL;
    kn_err first = {0};
    int rc = kn_cuda_libs_open(libs, dirs, 1, &first);
    if (rc != KN_OK) {
        /* not on the loader's path either: the toolkit's own folder */
        const char *fallback[] = {KN_CUDA_DEFAULT_DIR, NULL};
        kn_err second = {0};
        if (kn_cuda_libs_open(libs, fallback, 0, &second) == KN_OK)
            rc = KN_OK;
        else
            rc = kn_fail(err, first.code, "%s (and not in " KN_CUDA_DEFAULT_DIR ")", first.msg);
    }
    free(copy);
    return rc;
}

int kn_cuda_device_count(const kn_cuda_libs *libs, int *count, kn_err *err)
{
    *count = 0;
    int status = libs->cudaGetDeviceCount(count);
    if (status == 0 && *count > 0)
        return KN_OK;
    *count = 0;
    if (status == 0 || status == 100) /* cudaErrorNoDevice */
        return kn_fail(err, KN_ERR_UNSUPPORTED, "CUDA: the driver sees no CUDA device");
    /* 35 cudaErrorInsufficientDriver, 34 cudaErrorStubLibrary, ... */
    int runtime = 0;
    libs->cudaRuntimeGetVersion(&runtime);
    const char *why = libs->cudaGetErrorString(status);
    return kn_fail(err, KN_ERR_UNSUPPORTED,
                   "CUDA: no usable NVIDIA driver: cudaGetDeviceCount says \"%s\" (%d); the "
                   "driver's libcuda.so.1 is missing or older than the CUDA %d.%d runtime",
                   why ? why : "?", status, runtime / 1000, runtime % 1000 / 10);
}
