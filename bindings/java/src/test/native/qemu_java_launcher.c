/* Host-side launcher of an arm64 JVM under qemu-aarch64, for
 * scripts/test_aarch64.sh --java: the x86-64 kernel cannot exec an arm64
 * java (no binfmt_misc), so the tests' JVM and the child JVMs LoadTest
 * starts (-Dkiln.test.java) run through this program.
 *
 * It is linked statically so that the host loader ignores LD_PRELOAD: for
 * the child JVM of LoadTest's ABI check, LD_PRELOAD names an arm64 library
 * meant for the guest, which a dynamic host program (a shell script, qemu
 * itself) would try to preload and warn about on stderr. It is handed to
 * the guest instead (qemu's -E) and removed from qemu's own environment.
 *
 * Built with -DSYSROOT="..." (the unpacked arm64 packages, qemu's -L) and
 * -DJAVA="..." (the arm64 java inside it). Every JVM it starts gets
 * -Djdk.lang.Process.launchMechanism=FORK (the default posix_spawn goes
 * through jspawnhelper, another arm64 program the host cannot exec) and
 * -Dkiln.test.java=<this launcher>. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SYSROOT
#error "build with -DSYSROOT=\"/path/to/arm64/root\""
#endif
#ifndef JAVA
#error "build with -DJAVA=\"/path/to/arm64/bin/java\""
#endif

int main(int argc, char **argv) {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        perror("qemu_java_launcher: /proc/self/exe");
        return 127;
    }
    self[n] = '\0';

    static char preload_arg[8192];
    const char *preload = getenv("LD_PRELOAD");
    int has_preload = preload && *preload;
    if (has_preload) {
        int len = snprintf(preload_arg, sizeof preload_arg, "LD_PRELOAD=%s", preload);
        if (len < 0 || (size_t)len >= sizeof preload_arg) {
            fprintf(stderr, "qemu_java_launcher: LD_PRELOAD too long\n");
            return 127;
        }
        unsetenv("LD_PRELOAD");
    }
    static char java_arg[4200];
    snprintf(java_arg, sizeof java_arg, "-Dkiln.test.java=%s", self);

    char **args = calloc((size_t)argc + 10, sizeof *args);
    if (!args) {
        return 127;
    }
    int k = 0;
    args[k++] = "qemu-aarch64";
    args[k++] = "-L";
    args[k++] = SYSROOT;
    if (has_preload) {
        args[k++] = "-E";
        args[k++] = preload_arg;
    }
    args[k++] = JAVA;
    args[k++] = "-Djdk.lang.Process.launchMechanism=FORK";
    args[k++] = java_arg;
    for (int i = 1; i < argc; i++) {
        args[k++] = argv[i];
    }
    args[k] = NULL;
    execvp(args[0], args);
    perror("qemu_java_launcher: qemu-aarch64");
    return 127;
}
