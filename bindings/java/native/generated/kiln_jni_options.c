/* Generated from capi/kiln_api.json by bindings/gen/emit_java.py; do not edit.
 * Regenerate: /usr/bin/python3 bindings/gen/generate.py */
#include <stdint.h>
#include <stdlib.h>

#include "kiln_jni_results.h"

/* kiln_options_create: creates an empty options bag */
JNIEXPORT jlong JNICALL Java_dev_kiln_KilnNative_optionsCreate(JNIEnv *env, jclass cls) {
    (void)cls;
    jlong result = 0;
    int32_t status = KILN_OK;
    kiln_options *c_out = NULL;
    status = kiln_options_create(&c_out);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jlong)(intptr_t)c_out;
done:
    return result;
}

/* kiln_options_destroy: destroys an options bag (NULL is fine) */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_optionsDestroy(JNIEnv *env, jclass cls, jlong j_options) {
    (void)env;
    (void)cls;
    kiln_options_destroy((kiln_options *)(intptr_t)j_options);
    return;
}

/* kiln_options_set_int: sets integer option `key` (KILN_OPT_*) */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_optionsSetInt(JNIEnv *env, jclass cls, jlong j_options, jint j_key, jint j_value) {
    (void)cls;
    int32_t status = KILN_OK;
    status = kiln_options_set_int((kiln_options *)(intptr_t)j_options, (int32_t)j_key, (int32_t)j_value);
    if (status != KILN_OK) kj_throw_status(env, status);
    return;
}

/* kiln_options_set_string: sets string option `key` (KILN_SOPT_*); value is copied, NULL clears it */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_optionsSetString(JNIEnv *env, jclass cls, jlong j_options, jint j_key, jstring j_value) {
    (void)cls;
    int32_t status = KILN_OK;
    kj_utf8 c_value = {0};
    if (kj_utf8_get(env, j_value, "value", 1, &c_value)) goto done;
    status = kiln_options_set_string((kiln_options *)(intptr_t)j_options, (int32_t)j_key, c_value.chars);
    if (status != KILN_OK) kj_throw_status(env, status);
done:
    kj_utf8_release(env, &c_value);
    return;
}
