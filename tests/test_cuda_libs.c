/* The CUDA backend's library loader (core/cuda/cuda_libs.c) on a machine
 * without a GPU: a missing library gives an error that names it and every
 * place searched; where a CUDA toolkit is installed (/usr/local/cuda, as on
 * the machines the project builds on), its runtime, cuBLASLt and cuDNN 9
 * load by soname from that folder and report their versions, and without
 * an NVIDIA driver the device probe says that the driver is what is
 * missing. Nothing here runs on a GPU. */
#define _GNU_SOURCE /* dladdr: which file a symbol came from */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cuda/cuda_libs.h"

#define TOOLKIT_LIBS "/usr/local/cuda/lib64"

/* The CUDA major of the toolkit's runtime in TOOLKIT_LIBS, or 0. */
static int toolkit_runtime_major(void)
{
    if (access(TOOLKIT_LIBS "/libcudart.so.13", R_OK) == 0)
        return 13;
    return access(TOOLKIT_LIBS "/libcudart.so.12", R_OK) == 0 ? 12 : 0;
}

/* 1 when TOOLKIT_LIBS has all three libraries the loader opens. */
static int toolkit_present(void)
{
    char path[128];
    int major = toolkit_runtime_major();
    snprintf(path, sizeof path, TOOLKIT_LIBS "/libcublasLt.so.%d", major);
    return major && access(path, R_OK) == 0 && access(TOOLKIT_LIBS "/libcudnn.so.9", R_OK) == 0;
}

Test(cuda_libs, a_missing_runtime_names_the_library_and_the_folders_searched)
{
    char empty[] = "/tmp/kiln-cuda-empty-XXXXXX";
    cr_assert_not_null(mkdtemp(empty));
    const char *dirs[] = {empty, "/nonexistent/cuda/lib", NULL};
    kn_cuda_libs libs;
    kn_err err = {0};
    int rc = kn_cuda_libs_open(&libs, dirs, 0, &err);
    rmdir(empty);
    cr_assert_eq(rc, KN_ERR_UNSUPPORTED, "rc %d: %s", rc, err.msg);
    cr_assert_not_null(strstr(err.msg, "libcudart.so.13"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, empty), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "/nonexistent/cuda/lib"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "KILN_CUDA_PATH"), "%s", err.msg);
    cr_assert_null(libs.cudart, "no handle is left in libs after a failure");
}

Test(cuda_libs, a_runtime_without_its_cublaslt_names_cublaslt)
{
    if (!toolkit_runtime_major())
        cr_skip_test("no CUDA runtime in " TOOLKIT_LIBS " to take the runtime from");
    /* a folder with the runtime only (a link to the toolkit's) */
    char dir[] = "/tmp/kiln-cuda-rt-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char link_path[256], target[256];
    int major = toolkit_runtime_major();
    snprintf(target, sizeof target, TOOLKIT_LIBS "/libcudart.so.%d", major);
    snprintf(link_path, sizeof link_path, "%s/libcudart.so.%d", dir, major);
    cr_assert_eq(symlink(target, link_path), 0);
    const char *dirs[] = {dir, NULL};
    kn_cuda_libs libs;
    kn_err err = {0};
    int rc = kn_cuda_libs_open(&libs, dirs, 0, &err);
    unlink(link_path);
    rmdir(dir);
    cr_assert_eq(rc, KN_ERR_UNSUPPORTED, "rc %d: %s", rc, err.msg);
    char want[64];
    snprintf(want, sizeof want, "libcublasLt.so.%d", major);
    cr_assert_not_null(strstr(err.msg, want), "%s", err.msg);
    cr_assert_null(libs.cudart, "no handle is left in libs after the failure");
}

Test(cuda_libs, the_toolkit_libraries_load_by_soname_and_report_their_versions)
{
    if (!toolkit_present())
        cr_skip_test("no CUDA toolkit in " TOOLKIT_LIBS
                     " (runtime and cuBLASLt 12 or 13, cuDNN 9)");
    const char *dirs[] = {TOOLKIT_LIBS, NULL};
    kn_cuda_libs libs;
    kn_err err = {0};
    int rc = kn_cuda_libs_open(&libs, dirs, 0, &err);
    cr_assert_eq(rc, KN_OK, "%s", err.msg);
    int runtime = 0;
    cr_assert_eq(libs.cudaRuntimeGetVersion(&runtime), 0);
    cr_assert_geq(runtime, 12000, "runtime version %d", runtime);
    cr_assert_eq(runtime / 1000, libs.cuda_major, "runtime %d from libcudart.so.%d", runtime,
                 libs.cuda_major);
    cr_assert_geq(libs.cublasLtGetVersion(), 120000u, "cuBLASLt %zu", libs.cublasLtGetVersion());
    cr_assert_geq(libs.cudnnGetVersion(), 90000u, "cuDNN %zu", libs.cudnnGetVersion());
    cr_assert_lt(libs.cudnnGetVersion(), 100000u, "cuDNN %zu", libs.cudnnGetVersion());

    /* the device probe: with a driver it counts, without one it names it */
    int count = -1;
    kn_err dev_err = {0};
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!driver)
        driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    int probe = kn_cuda_device_count(&libs, &count, &dev_err);
    if (driver) {
        cr_log_info("a driver is installed: %d device(s), %s", count, dev_err.msg);
        /* a driver without a device, or older than the runtime: an error
         * of the loader's own wording, never a silent zero */
        cr_assert(probe == KN_OK ? count > 0 : strncmp(dev_err.msg, "CUDA: ", 6) == 0, "%s",
                  dev_err.msg);
        dlclose(driver);
    } else {
        cr_assert_eq(probe, KN_ERR_UNSUPPORTED);
        cr_assert_eq(count, 0);
        cr_assert_not_null(strstr(dev_err.msg, "libcuda.so.1"), "%s", dev_err.msg);
        cr_assert_not_null(strstr(dev_err.msg, "driver"), "%s", dev_err.msg);
    }
    kn_cuda_libs_close(&libs);
    cr_assert_null(libs.cudnn);
}

Test(cuda_libs, kiln_cuda_path_is_searched_first)
{
    if (!toolkit_present())
        cr_skip_test("no CUDA toolkit in " TOOLKIT_LIBS
                     " (runtime, cuBLASLt, cuDNN 9) to point KILN_CUDA_PATH at");
    char soname[64];
    snprintf(soname, sizeof soname, "libcudart.so.%d", toolkit_runtime_major());
    void *loaded_before = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
    int already_loaded = loaded_before != NULL;
    if (loaded_before)
        dlclose(loaded_before);
    char *saved = getenv("KILN_CUDA_PATH") ? strdup(getenv("KILN_CUDA_PATH")) : NULL;
    cr_assert_eq(setenv("KILN_CUDA_PATH", "/nonexistent/a:" TOOLKIT_LIBS, 1), 0);
    kn_cuda_libs libs;
    kn_err err = {0};
    int rc = kn_cuda_libs_open_default(&libs, &err);
    if (saved) {
        setenv("KILN_CUDA_PATH", saved, 1);
        free(saved);
    } else {
        unsetenv("KILN_CUDA_PATH");
    }
    cr_assert_eq(rc, KN_OK, "%s", err.msg);
    /* the runtime came from the variable's folder, not the loader's cache
     * (which names the real folder, /usr/local/cuda-13.0/lib here); only
     * when this process had not loaded the runtime before (Criterion runs
     * each test in a process of its own, criterion_lite all in one, and the
     * libraries stay loaded once opened) */
    if (!already_loaded) {
        Dl_info info;
        cr_assert(dladdr((void *)libs.cudaGetDeviceCount, &info) != 0);
        cr_assert_eq(strncmp(info.dli_fname, TOOLKIT_LIBS "/", strlen(TOOLKIT_LIBS "/")), 0,
                     "loaded from %s", info.dli_fname);
    } else {
        cr_log_info("the runtime was loaded earlier in this process: where it came from is "
                    "not this test's doing");
    }
    kn_cuda_libs_close(&libs);
}
