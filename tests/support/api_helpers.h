/* Small conveniences over the public API for tests. */
#ifndef KILN_API_HELPERS_H
#define KILN_API_HELPERS_H

#include <criterion/criterion.h>

#include "kiln.h"
#include "test_support.h"

/* Asserts a call returned KILN_OK, printing the library's message if not. */
#define KT_OK(call)                                                                     \
    do {                                                                                \
        int32_t kt_rc_ = (call);                                                        \
        char kt_msg_[512];                                                              \
        kiln_last_error(kt_msg_, sizeof kt_msg_);                                       \
        cr_assert_eq(kt_rc_, KILN_OK, "%s -> %d (%s)", #call, (int)kt_rc_, kt_msg_);   \
    } while (0)

/* Asserts a call failed with `code` and left a non-empty message. */
#define KT_FAILS(call, code)                                                            \
    do {                                                                                \
        int32_t kt_rc_ = (call);                                                        \
        char kt_msg_[512];                                                              \
        kiln_last_error(kt_msg_, sizeof kt_msg_);                                       \
        cr_assert_eq(kt_rc_, (code), "%s -> %d (%s), expected %d", #call, (int)kt_rc_,  \
                     kt_msg_, (int)(code));                                             \
        cr_assert_gt(strlen(kt_msg_), 0, "%s left no message", #call);                 \
    } while (0)

static inline kiln_runtime *kt_runtime(int32_t threads)
{
    kiln_options *o = NULL;
    kiln_runtime *rt = NULL;
    KT_OK(kiln_options_create(&o));
    KT_OK(kiln_options_set_int(o, KILN_OPT_THREADS, threads));
    KT_OK(kiln_runtime_create(o, &rt));
    kiln_options_destroy(o);
    return rt;
}

static inline kiln_model *kt_model(kiln_runtime *rt, const char *relative)
{
    kiln_model *m = NULL;
    KT_OK(kiln_model_load_file(rt, kt_src_path(relative), NULL, &m));
    return m;
}

#endif
