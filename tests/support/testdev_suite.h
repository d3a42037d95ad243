/* The fixture every suite on the "testdev" TEST DOUBLE shares: before each
 * test the double starts from zero and is the only device backend the
 * engine sees (ahead of the CPU); after it, everything the engine made on
 * the device (allocations, streams, graphs, opened devices) has been given
 * back, so a leak in any device path fails the test that caused it. */
#ifndef KT_TESTDEV_SUITE_H
#define KT_TESTDEV_SUITE_H

#include <criterion/criterion.h>

#include "core/engine/registry.h"
#include "host_test_device.h"

static const kn_backend *const kt_backends_with_testdev[] = {&kt_host_test_device, &kn_backend_cpu,
                                                             NULL};

static inline void kt_testdev_suite_setup(void)
{
    kt_testdev_reset();
    kn_backends_override_for_testing(kt_backends_with_testdev);
}

static inline void kt_testdev_suite_teardown(void)
{
    kn_backends_override_for_testing(NULL);
    kt_testdev_counts c = kt_testdev_counts_now();
    cr_expect_eq(c.live_allocs, 0, "%lld device allocations left", (long long)c.live_allocs);
    cr_expect_eq(c.streams_live, 0, "%lld streams left", (long long)c.streams_live);
    cr_expect_eq(c.graphs_live, 0, "%lld graphs left", (long long)c.graphs_live);
    cr_expect_eq(c.opens, c.closes, "%lld devices opened, %lld closed", (long long)c.opens,
                 (long long)c.closes);
}

#endif
