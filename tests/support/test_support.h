/* Helpers shared by the Criterion suites. */
#ifndef KILN_TEST_SUPPORT_H
#define KILN_TEST_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

/* Reads a whole file into a malloc'd buffer (NULL if it cannot be read). */
void *kt_read_file(const char *path, size_t *size);
/* Path of a file under the source tree, in a static buffer. */
const char *kt_src_path(const char *relative);
/* 1 if the directory exists. */
int kt_dir_exists(const char *path);

/* Uniform floats in [-1, 1) from a linear congruential generator whose
 * state the caller keeps (one per suite: a fixed seed gives the same data
 * every run). kt_rand_floats mallocs n of them (at least one element). */
float kt_urand(uint32_t *state);
float *kt_rand_floats(uint32_t *state, int64_t n);

/* Threads for a test's own pool: `want`, capped by KILN_TEST_POOL_THREADS
 * when set (for example 1, to run a suite without threads under an
 * emulator or a tool that handles them badly). */
int32_t kt_pool_threads(int32_t want);

#endif
