/* Generated from capi/kiln_api.json by bindings/gen/emit_java.py; do not edit.
 * Regenerate: /usr/bin/python3 bindings/gen/generate.py */
#include <stdint.h>
#include <stdlib.h>

#include "kiln_jni_results.h"

/* kiln_session_profile_count: number of executed steps in the plan (needs KILN_OPT_PROFILE = 1) */
JNIEXPORT jint JNICALL Java_dev_kiln_KilnNative_sessionProfileCount(JNIEnv *env, jclass cls, jlong j_session) {
    (void)cls;
    jint result = 0;
    int32_t status = KILN_OK;
    int32_t c_count = 0;
    status = kiln_session_profile_count((const kiln_session *)(intptr_t)j_session, &c_count);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jint)c_count;
done:
    return result;
}

/* kiln_session_profile_name: node name of profiled step `index` (two-call pattern) */
JNIEXPORT jstring JNICALL Java_dev_kiln_KilnNative_sessionProfileName(JNIEnv *env, jclass cls, jlong j_session, jint j_index) {
    (void)cls;
    jstring result = NULL;
    int32_t status = KILN_OK;
    kj_strbuf c_buf;
    kj_strbuf_init(&c_buf);
    int32_t c_needed = 0;
    for (int attempt = 0;; attempt++) {
        status = kiln_session_profile_name((const kiln_session *)(intptr_t)j_session, (int32_t)j_index, c_buf.data, c_buf.cap, &c_needed);
        if (status != KILN_ERR_BUFFER_TOO_SMALL || attempt > 0) break;
        if (kj_strbuf_grow(env, &c_buf, c_needed)) goto done;
    }
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = kj_strbuf_string(env, &c_buf);
done:
    kj_strbuf_release(&c_buf);
    return result;
}

/* kiln_session_profile_op: op type of profiled step `index` (two-call pattern) */
JNIEXPORT jstring JNICALL Java_dev_kiln_KilnNative_sessionProfileOp(JNIEnv *env, jclass cls, jlong j_session, jint j_index) {
    (void)cls;
    jstring result = NULL;
    int32_t status = KILN_OK;
    kj_strbuf c_buf;
    kj_strbuf_init(&c_buf);
    int32_t c_needed = 0;
    for (int attempt = 0;; attempt++) {
        status = kiln_session_profile_op((const kiln_session *)(intptr_t)j_session, (int32_t)j_index, c_buf.data, c_buf.cap, &c_needed);
        if (status != KILN_ERR_BUFFER_TOO_SMALL || attempt > 0) break;
        if (kj_strbuf_grow(env, &c_buf, c_needed)) goto done;
    }
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = kj_strbuf_string(env, &c_buf);
done:
    kj_strbuf_release(&c_buf);
    return result;
}

/* kiln_session_profile_kernel: kernel ("cpu", "dnnl", ...) of profiled step `index` (two-call pattern) */
JNIEXPORT jstring JNICALL Java_dev_kiln_KilnNative_sessionProfileKernel(JNIEnv *env, jclass cls, jlong j_session, jint j_index) {
    (void)cls;
    jstring result = NULL;
    int32_t status = KILN_OK;
    kj_strbuf c_buf;
    kj_strbuf_init(&c_buf);
    int32_t c_needed = 0;
    for (int attempt = 0;; attempt++) {
        status = kiln_session_profile_kernel((const kiln_session *)(intptr_t)j_session, (int32_t)j_index, c_buf.data, c_buf.cap, &c_needed);
        if (status != KILN_ERR_BUFFER_TOO_SMALL || attempt > 0) break;
        if (kj_strbuf_grow(env, &c_buf, c_needed)) goto done;
    }
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = kj_strbuf_string(env, &c_buf);
done:
    kj_strbuf_release(&c_buf);
    return result;
}

/* kiln_session_profile_time: total nanoseconds spent in step `index` and the number of runs counted */
JNIEXPORT jobject JNICALL Java_dev_kiln_KilnNative_sessionProfileTime(JNIEnv *env, jclass cls, jlong j_session, jint j_index) {
    (void)cls;
    jobject result = NULL;
    int32_t status = KILN_OK;
    int64_t c_total_ns = 0;
    int64_t c_runs = 0;
    status = kiln_session_profile_time((const kiln_session *)(intptr_t)j_session, (int32_t)j_index, &c_total_ns, &c_runs);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    jlong r_total_ns = (jlong)c_total_ns;
    jlong r_runs = (jlong)c_runs;
    result = (*env)->NewObject(env, kj_result_class[8], kj_result_init[8], r_total_ns, r_runs);
done:
    return result;
}

/* kiln_session_profile_reset: zeroes the profile times and run counts */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_sessionProfileReset(JNIEnv *env, jclass cls, jlong j_session) {
    (void)cls;
    int32_t status = KILN_OK;
    status = kiln_session_profile_reset((kiln_session *)(intptr_t)j_session);
    if (status != KILN_OK) kj_throw_status(env, status);
    return;
}
