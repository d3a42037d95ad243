#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

void *kt_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return NULL;
    }
    long n = ftell(f);
    rewind(f);
    void *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf)
        *size = (size_t)(n > 0 ? n : 0);
    return buf;
}

const char *kt_src_path(const char *relative)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", KILN_SOURCE_DIR, relative);
    return buf;
}

int kt_dir_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

float kt_urand(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (float)((double)(*state >> 8) / (double)(1u << 23) - 1.0);
}

float *kt_rand_floats(uint32_t *state, int64_t n)
{
    float *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
    for (int64_t i = 0; p && i < n; i++)
        p[i] = kt_urand(state);
    return p;
}

int32_t kt_pool_threads(int32_t want)
{
    const char *cap = getenv("KILN_TEST_POOL_THREADS");
    int32_t n = cap ? (int32_t)atoi(cap) : 0;
    return n >= 1 && n < want ? n : want;
}
