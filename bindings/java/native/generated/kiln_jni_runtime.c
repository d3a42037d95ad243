/* Generated from capi/kiln_api.json by bindings/gen/emit_java.py; do not edit.
 * Regenerate: /usr/bin/python3 bindings/gen/generate.py */
#include <stdint.h>
#include <stdlib.h>

#include "kiln_jni_results.h"

/* kiln_runtime_create: creates a runtime (thread pool); options may be NULL */
JNIEXPORT jlong JNICALL Java_dev_kiln_KilnNative_runtimeCreate(JNIEnv *env, jclass cls, jlong j_options) {
    (void)cls;
    jlong result = 0;
    int32_t status = KILN_OK;
    kiln_runtime *c_out = NULL;
    status = kiln_runtime_create((const kiln_options *)(intptr_t)j_options, &c_out);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jlong)(intptr_t)c_out;
done:
    return result;
}

/* kiln_runtime_destroy: destroys a runtime after all its models and sessions */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_runtimeDestroy(JNIEnv *env, jclass cls, jlong j_runtime) {
    (void)env;
    (void)cls;
    kiln_runtime_destroy((kiln_runtime *)(intptr_t)j_runtime);
    return;
}
