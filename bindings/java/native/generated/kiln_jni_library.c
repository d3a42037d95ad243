/* Generated from capi/kiln_api.json by bindings/gen/emit_java.py; do not edit.
 * Regenerate: /usr/bin/python3 bindings/gen/generate.py */
#include <stdint.h>
#include <stdlib.h>

#include "kiln_jni_results.h"

/* kiln_abi_version: KILN_ABI_VERSION of the built library */
JNIEXPORT jint JNICALL Java_dev_kiln_KilnNative_abiVersion(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    jint result = 0;
    result = (jint)kiln_abi_version();
    return result;
}

/* kiln_version: release version string, e.g. "0.1.0" (static; do not free) */
JNIEXPORT jstring JNICALL Java_dev_kiln_KilnNative_version(JNIEnv *env, jclass cls) {
    (void)cls;
    jstring result = NULL;
    result = kj_static_string(env, kiln_version());
    return result;
}

/* kiln_last_error: copies the calling thread's last error message; returns its full length without the NUL */
JNIEXPORT jstring JNICALL Java_dev_kiln_KilnNative_lastError(JNIEnv *env, jclass cls) {
    (void)cls;
    jstring result = NULL;
    kj_strbuf c_buf;
    kj_strbuf_init(&c_buf);
    int32_t length = kiln_last_error(c_buf.data, c_buf.cap);
    if (length >= c_buf.cap) {
        if (kj_strbuf_grow(env, &c_buf, length + 1)) goto done;
        kiln_last_error(c_buf.data, c_buf.cap);
    }
    result = kj_strbuf_string(env, &c_buf);
done:
    kj_strbuf_release(&c_buf);
    return result;
}

/* kiln_status_name: short English name of a status code (static string) */
JNIEXPORT jstring JNICALL Java_dev_kiln_KilnNative_statusName(JNIEnv *env, jclass cls, jint j_status) {
    (void)cls;
    jstring result = NULL;
    result = kj_static_string(env, kiln_status_name((int32_t)j_status));
    return result;
}
