/* A single-process stand-in for the part of Criterion's API the suites use,
 * for test programs that run under user-mode emulation (qemu-aarch64):
 * Criterion runs each test in a child it starts by executing
 * /proc/self/exe, an aarch64 file the x86-64 kernel cannot run without a
 * binfmt_misc entry, so under qemu the runner waits forever. Here every
 * test runs in the one process, in file order; a failed assertion ends
 * its test through longjmp. No crash isolation and no timeouts: a crash
 * ends the program, which ctest reports as a failure all the same.
 * Used by tests/CMakeLists.txt when KILN_CRITERION_LITE is on (the
 * default in a cross build with an emulator). */
#ifndef KILN_CRITERION_LITE_H
#define KILN_CRITERION_LITE_H

#include <stddef.h>
#include <string.h>

struct kt_lite_opts {
    void (*init)(void);
    void (*fini)(void);
    double timeout;
    int disabled;
    int unset_; /* what the macros name first, so an empty option list compiles */
};

void kt_lite_register(const char *suite, const char *name, void (*fn)(void),
                      struct kt_lite_opts opts);
void kt_lite_suite(const char *suite, struct kt_lite_opts opts);
/* No format attribute on these: an assertion without a message passes
 * an empty format, which -Wformat-zero-length would refuse. */
_Noreturn void kt_lite_fail(const char *file, int line, const char *what, const char *fmt, ...);
void kt_lite_expect_failed(const char *file, int line, const char *what, const char *fmt, ...);
_Noreturn void kt_lite_skip(const char *fmt, ...);
void kt_lite_log(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define KT_LITE_CAT_(a, b) a##b
#define KT_LITE_CAT(a, b) KT_LITE_CAT_(a, b)

#define Test(suite, name, ...)                                                                     \
    static void kt_test_##suite##_##name(void);                                                    \
    __attribute__((constructor)) static void kt_reg_##suite##_##name(void)                         \
    {                                                                                              \
        kt_lite_register(#suite, #name, kt_test_##suite##_##name,                                  \
                         (struct kt_lite_opts){.unset_ = 0, __VA_ARGS__});                        \
    }                                                                                              \
    static void kt_test_##suite##_##name(void)

#define TestSuite(suite, ...)                                                                      \
    __attribute__((constructor)) static void kt_suite_##suite(void)                                \
    {                                                                                              \
        kt_lite_suite(#suite, (struct kt_lite_opts){.unset_ = 0, __VA_ARGS__});                   \
    }                                                                                              \
    typedef int kt_suite_unused_##suite

/* The message arguments are optional: "" pastes onto a format string or
 * stands alone. */
#define cr_assert(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond))                                                                               \
            kt_lite_fail(__FILE__, __LINE__, #cond, "" __VA_ARGS__);                               \
    } while (0)
#define cr_expect(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond))                                                                               \
            kt_lite_expect_failed(__FILE__, __LINE__, #cond, "" __VA_ARGS__);                      \
    } while (0)
#define cr_assert_fail(...) kt_lite_fail(__FILE__, __LINE__, "cr_assert_fail", "" __VA_ARGS__)
#define cr_skip_test(...) kt_lite_skip("" __VA_ARGS__)

#define cr_assert_eq(a, b, ...) cr_assert((a) == (b), __VA_ARGS__)
#define cr_assert_neq(a, b, ...) cr_assert((a) != (b), __VA_ARGS__)
#define cr_assert_lt(a, b, ...) cr_assert((a) < (b), __VA_ARGS__)
#define cr_assert_leq(a, b, ...) cr_assert((a) <= (b), __VA_ARGS__)
#define cr_assert_gt(a, b, ...) cr_assert((a) > (b), __VA_ARGS__)
#define cr_assert_geq(a, b, ...) cr_assert((a) >= (b), __VA_ARGS__)
#define cr_assert_null(p, ...) cr_assert((p) == NULL, __VA_ARGS__)
#define cr_assert_not_null(p, ...) cr_assert((p) != NULL, __VA_ARGS__)
#define cr_assert_str_eq(a, b, ...) cr_assert(strcmp((a), (b)) == 0, __VA_ARGS__)
#define cr_assert_str_neq(a, b, ...) cr_assert(strcmp((a), (b)) != 0, __VA_ARGS__)
/* Criterion's meaning: |a - b| <= eps */
#define cr_assert_float_eq(a, b, eps, ...)                                                         \
    cr_assert((a) - (b) <= (eps) && (b) - (a) <= (eps), __VA_ARGS__)
#define cr_expect_eq(a, b, ...) cr_expect((a) == (b), __VA_ARGS__)
#define cr_expect_geq(a, b, ...) cr_expect((a) >= (b), __VA_ARGS__)
#define cr_expect_lt(a, b, ...) cr_expect((a) < (b), __VA_ARGS__)
#define cr_log_info(...) kt_lite_log("info", __VA_ARGS__)
#define cr_log_warn(...) kt_lite_log("warn", __VA_ARGS__)

#endif
