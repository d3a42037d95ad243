/* `kiln check` with the "testdev" TEST DOUBLE of a device backend plugged
 * in (tests/support/host_test_device.h: host memory at another address,
 * work queued until a sync), so `--device testdev` exercises the device
 * path of the conformance runner (partitioning, copies, syncs, the count
 * of cases that fell back to the CPU) on a machine without a GPU. The
 * double serves Relu, Add, MatMul and Gemm on float32 and declines
 * everything else: its counts say nothing about a real device's kernels. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "core/engine/registry.h"
#include "host_test_device.h"

int main(int argc, char **argv)
{
    static const kn_backend *const with_testdev[] = {&kt_host_test_device, &kn_backend_cpu, NULL};
    kn_backends_override_for_testing(with_testdev);
    printf("kiln check with device 'testdev', a TEST DOUBLE (host memory; serves Relu, Add, "
           "MatMul, Gemm)\n");
    fflush(stdout);
    /* "check" may come first, as for the CLI: then run_conformance.sh can
     * take this program in place of kiln */
    if (argc > 1 && strcmp(argv[1], "check") == 0)
        return cmd_check(argc - 1, argv + 1);
    return cmd_check(argc, argv);
}
