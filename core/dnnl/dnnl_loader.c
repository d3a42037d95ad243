#define KN_DNNL_LOADER_IMPL
#include "core/dnnl/dnnl_loader.h"

#include "core/base/thread_pool.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#define KN_STR2(x) #x
#define KN_STR(x) KN_STR2(x)
/* the SONAME of the oneDNN Kiln was built against */
#define KN_DNNL_SONAME "libdnnl.so." KN_STR(DNNL_VERSION_MAJOR)

kn_dnnl_functions kn_dnnl_fn;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;

/* libgomp's default spins ~300000 times (milliseconds) before a waiting
 * thread sleeps; 2000 spins (microseconds) still bridge the gap between
 * two oneDNN calls of one run, so the team does not fall asleep mid-run,
 * but stop burning a core soon after. Measured here, 2 threads:
 * squeezenet 3.98 ms (default 3.77, passive 5.37) on an idle machine;
 * mobilenet_v2 25 ms (default 250, passive 20) on a loaded one. */
#define KN_GOMP_SPINCOUNT "2000"

/* Sets that spin count for the duration of the dlopen that starts
 * libgomp; returns whether the environment was changed. */
static int ask_short_spin(void)
{
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT"))
        return 0; /* the user's choice */
    void *running = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (running) {
        dlclose(running); /* already started: its policy is set */
        return 0;
    }
    return setenv("GOMP_SPINCOUNT", KN_GOMP_SPINCOUNT, 0) == 0;
}

/* oneDNN keeps every primitive it built in a process-wide cache of 1024 by
 * default, whether or not anything still uses it. Kiln's plans hold the
 * primitives they run, so the cache only saves a JIT build when a shape
 * comes back after its plan was dropped, or a second session builds the
 * same one. With a new input shape every run it is pure growth: a BERT
 * encoder's RSS went 149 -> 316 MiB over 1000 runs of random sequence
 * lengths, flat at 37 MiB on Kiln's own kernels. 128 entries keep the
 * reuse for a few models' worth of nodes and bound the rest, unless the
 * user set oneDNN's own variable. */
#define KN_DNNL_PRIMITIVE_CACHE 128

static void bound_primitive_cache(void *lib)
{
    if (getenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY") || getenv("DNNL_PRIMITIVE_CACHE_CAPACITY"))
        return;
    dnnl_status_t (*set_capacity)(int) = NULL;
    *(void **)&set_capacity = dlsym(lib, "dnnl_set_primitive_cache_capacity");
    if (set_capacity)
        set_capacity(KN_DNNL_PRIMITIVE_CACHE);
}

static void load(void)
{
    int changed = ask_short_spin();
    void *lib = dlopen(KN_DNNL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (changed)
        unsetenv("GOMP_SPINCOUNT");
    if (!lib)
        return;
    int ok = 1;
#define KN_DNNL_RESOLVE(name)                                                                      \
    ok = ok && (*(void **)&kn_dnnl_fn.name = dlsym(lib, #name)) != NULL;
    KN_DNNL_FUNCTIONS(KN_DNNL_RESOLVE)
#undef KN_DNNL_RESOLVE
    ok = ok && (*(void **)&kn_dnnl_fn.omp_set_num_threads = dlsym(lib, "omp_set_num_threads"));
    loaded = ok;
    bound_primitive_cache(lib);
    /* Kiln's own loops join oneDNN's OpenMP threads (core/base/thread_pool.h) */
    kn_team_runner team = NULL;
    *(void **)&team = dlsym(lib, "GOMP_parallel");
    if (ok && team)
        kn_threadpool_use_team(team);
    /* the library stays loaded for the life of the process: primitives
     * and their JIT code may be referenced until exit */
}

int kn_dnnl_load(void)
{
    pthread_once(&load_once, load);
    return loaded;
}
