/* Loads a shared library with every symbol bound now (RTLD_NOW) and looks
 * up the names given on stdin, one a line: a check of a library built for
 * another machine that its loader can run, here the aarch64 libkiln_jni.so
 * under qemu-aarch64 where no arm64 JVM can start (scripts/test_aarch64.sh).
 *   dlopen_check LIBRARY < NAMES */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s LIBRARY < NAMES\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    char name[512];
    int found = 0, missing = 0;
    while (fgets(name, sizeof name, stdin)) {
        name[strcspn(name, "\r\n")] = 0;
        if (!name[0])
            continue;
        if (dlsym(lib, name))
            found++;
        else {
            fprintf(stderr, "missing: %s\n", name);
            missing++;
        }
    }
    printf("%s: loaded, %d of %d symbols found\n", argv[1], found, found + missing);
    return missing || !found ? 1 : 0;
}
