/* Preloaded by LoadTest into a child JVM: its kiln_abi_version() takes the
 * place of libkiln's, so the binding sees a library of another ABI and must
 * refuse it with a clear error. */
#include <stdint.h>

__attribute__((visibility("default"))) int32_t kiln_abi_version(void);

int32_t kiln_abi_version(void) {
    return 999;
}
