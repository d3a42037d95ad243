/* The runner behind criterion/criterion.h's stand-in (see there why):
 * runs the registered tests in one process, in the order the constructors
 * registered them, and prints Criterion's closing line. Understands
 * --filter SUITE/NAME (a glob) and ignores the other Criterion options
 * (--jobs N, --verbose). */
#include <fnmatch.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "criterion/criterion.h"

#define KT_MAX_TESTS 1024
#define KT_MAX_SUITES 128

static struct kt_test {
    const char *suite, *name;
    void (*fn)(void);
    struct kt_lite_opts opts;
} tests[KT_MAX_TESTS];
static int n_tests;

static struct kt_suite {
    const char *name;
    struct kt_lite_opts opts;
} suites[KT_MAX_SUITES];
static int n_suites;

static jmp_buf test_exit;
static int expect_failed;

void kt_lite_register(const char *suite, const char *name, void (*fn)(void),
                      struct kt_lite_opts opts)
{
    if (n_tests == KT_MAX_TESTS) {
        fprintf(stderr, "criterion_lite: more than %d tests\n", KT_MAX_TESTS);
        exit(2);
    }
    tests[n_tests++] = (struct kt_test){suite, name, fn, opts};
}

void kt_lite_suite(const char *suite, struct kt_lite_opts opts)
{
    if (n_suites == KT_MAX_SUITES) {
        fprintf(stderr, "criterion_lite: more than %d suites\n", KT_MAX_SUITES);
        exit(2);
    }
    suites[n_suites++] = (struct kt_suite){suite, opts};
}

static void report(const char *kind, const char *file, int line, const char *what,
                   const char *fmt, va_list ap)
{
    fprintf(stderr, "[----] %s:%d: %s: ", file, line, kind);
    if (fmt[0])
        vfprintf(stderr, fmt, ap);
    else
        fprintf(stderr, "%s", what);
    fputc('\n', stderr);
}

void kt_lite_fail(const char *file, int line, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report("Assertion Failed", file, line, what, fmt, ap);
    va_end(ap);
    longjmp(test_exit, 1);
}

void kt_lite_expect_failed(const char *file, int line, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report("Expectation Failed", file, line, what, fmt, ap);
    va_end(ap);
    expect_failed = 1;
}

void kt_lite_skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[SKIP] ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    longjmp(test_exit, 2);
}

void kt_lite_log(const char *level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[%s] ", level);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static const struct kt_lite_opts *suite_opts(const char *suite)
{
    for (int i = 0; i < n_suites; i++)
        if (strcmp(suites[i].name, suite) == 0)
            return &suites[i].opts;
    return NULL;
}

/* 0 passed, 1 failed, 2 skipped. What setjmp's caller needs after the
 * jump lives in statics, not in locals longjmp may have clobbered. */
static void (*cur_init)(void), (*cur_fini)(void);

static int run_test(const struct kt_test *k)
{
    const struct kt_lite_opts *s = suite_opts(k->suite);
    cur_init = k->opts.init ? k->opts.init : s ? s->init : NULL;
    cur_fini = k->opts.fini ? k->opts.fini : s ? s->fini : NULL;
    expect_failed = 0;
    int how = setjmp(test_exit);
    if (how == 0) {
        if (cur_init)
            cur_init();
        k->fn();
    }
    if (cur_fini)
        cur_fini();
    return how == 0 && expect_failed ? 1 : how;
}

int main(int argc, char **argv)
{
    const char *filter = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc)
            filter = argv[++i];
        else if (strncmp(argv[i], "--filter=", 9) == 0)
            filter = argv[i] + 9;
        else if (strcmp(argv[i], "--list") == 0) {
            for (int t = 0; t < n_tests; t++)
                printf("%s/%s\n", tests[t].suite, tests[t].name);
            return 0;
        }
    }
    int passed = 0, failed = 0, skipped = 0;
    for (int t = 0; t < n_tests; t++) {
        const struct kt_test *k = &tests[t];
        char full[512];
        snprintf(full, sizeof full, "%s/%s", k->suite, k->name);
        if (k->opts.disabled || (filter && fnmatch(filter, full, 0) != 0))
            continue;
        fprintf(stderr, "[RUN ] %s\n", full);
        int how = run_test(k);
        if (how == 2)
            skipped++;
        else if (how == 1) {
            failed++;
            fprintf(stderr, "[FAIL] %s\n", full);
        } else {
            passed++;
            fprintf(stderr, "[PASS] %s\n", full);
        }
    }
    fprintf(stderr, "[====] Synthesis: Tested: %d | Passing: %d | Failing: %d | Crashing: 0 "
                    "| Skipped: %d\n", passed + failed, passed, failed, skipped);
    return failed ? 1 : 0;
}
