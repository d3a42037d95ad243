/* What every fuzz target checks besides "no crash": a failed call returns a
 * known status code, leaves a message and no handle. A violation aborts, so
 * libFuzzer records the input as a crash. */
#ifndef KILN_TESTS_FUZZ_CHECK_H
#define KILN_TESTS_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "kiln.h"

#define FZ_CHECK(cond, ...)                                                   \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "fuzz check failed at %s:%d: %s: ", __FILE__,     \
                    __LINE__, #cond);                                         \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
            abort();                                                          \
        }                                                                     \
    } while (0)

/* A failing call's status and message. */
static inline void fz_check_error(int32_t rc, const char *what)
{
    char msg[512];
    int32_t len = kiln_last_error(msg, (int32_t)sizeof msg);
    FZ_CHECK(rc > KILN_OK && rc <= KILN_ERR_LIMIT, "%s returned unknown status %d", what, (int)rc);
    FZ_CHECK(len > 0 && msg[0], "%s failed with status %d but left no message", what, (int)rc);
}

#endif
