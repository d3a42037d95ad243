/* Generated from capi/kiln_api.json by bindings/gen/emit_java.py; do not edit.
 * Regenerate: /usr/bin/python3 bindings/gen/generate.py */
#include <stdint.h>
#include <stdlib.h>

#include "kiln_jni_results.h"

/* kiln_session_create: plans memory and prepares kernels for a model; options may be NULL */
JNIEXPORT jlong JNICALL Java_dev_kiln_KilnNative_sessionCreate(JNIEnv *env, jclass cls, jlong j_model, jlong j_options) {
    (void)cls;
    jlong result = 0;
    int32_t status = KILN_OK;
    kiln_session *c_out = NULL;
    status = kiln_session_create((kiln_model *)(intptr_t)j_model, (const kiln_options *)(intptr_t)j_options, &c_out);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jlong)(intptr_t)c_out;
done:
    return result;
}

/* kiln_session_destroy: destroys a session, waiting for a run in flight */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_sessionDestroy(JNIEnv *env, jclass cls, jlong j_session) {
    (void)env;
    (void)cls;
    kiln_session_destroy((kiln_session *)(intptr_t)j_session);
    return;
}

/* kiln_session_set_input: binds input `name` to a tensor buffer (borrowed until the run returns unless KILN_INPUT_COPY) */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_sessionSetInput(JNIEnv *env, jclass cls, jlong j_session, jstring j_name, jint j_dtype, jlongArray j_dims, jobject j_data, jint j_flags) {
    (void)cls;
    int32_t status = KILN_OK;
    kj_utf8 c_name = {0};
    kj_dims_in c_dims = {0};
    void *c_data = NULL;
    size_t c_data_size = 0;
    if (kj_utf8_get(env, j_name, "name", 0, &c_name)) goto done;
    if (kj_dims_in_get(env, j_dims, "dims", &c_dims)) goto done;
    if (kj_direct_buffer(env, j_data, "data", &c_data, &c_data_size)) goto done;
    status = kiln_session_set_input((kiln_session *)(intptr_t)j_session, c_name.chars, (int32_t)j_dtype, c_dims.dims, c_dims.rank, c_data, c_data_size, (int32_t)j_flags);
    if (status != KILN_OK) kj_throw_status(env, status);
done:
    kj_dims_in_release(&c_dims);
    kj_utf8_release(env, &c_name);
    return;
}

/* kiln_session_set_input_at: binds input `index` to a tensor buffer (borrowed until the run returns unless KILN_INPUT_COPY) */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_sessionSetInputAt(JNIEnv *env, jclass cls, jlong j_session, jint j_index, jint j_dtype, jlongArray j_dims, jobject j_data, jint j_flags) {
    (void)cls;
    int32_t status = KILN_OK;
    kj_dims_in c_dims = {0};
    void *c_data = NULL;
    size_t c_data_size = 0;
    if (kj_dims_in_get(env, j_dims, "dims", &c_dims)) goto done;
    if (kj_direct_buffer(env, j_data, "data", &c_data, &c_data_size)) goto done;
    status = kiln_session_set_input_at((kiln_session *)(intptr_t)j_session, (int32_t)j_index, (int32_t)j_dtype, c_dims.dims, c_dims.rank, c_data, c_data_size, (int32_t)j_flags);
    if (status != KILN_OK) kj_throw_status(env, status);
done:
    kj_dims_in_release(&c_dims);
    return;
}

/* kiln_session_run: runs the model on the bound inputs */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_sessionRun(JNIEnv *env, jclass cls, jlong j_session) {
    (void)cls;
    int32_t status = KILN_OK;
    status = kiln_session_run((kiln_session *)(intptr_t)j_session);
    if (status != KILN_OK) kj_throw_status(env, status);
    return;
}

/* kiln_session_cancel: asks the run in flight to stop (thread-safe); it then returns KILN_ERR_CANCELLED */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_sessionCancel(JNIEnv *env, jclass cls, jlong j_session) {
    (void)cls;
    int32_t status = KILN_OK;
    status = kiln_session_cancel((kiln_session *)(intptr_t)j_session);
    if (status != KILN_OK) kj_throw_status(env, status);
    return;
}

/* kiln_session_output_info: element type and shape of output `index` after a successful run */
JNIEXPORT jobject JNICALL Java_dev_kiln_KilnNative_sessionOutputInfo(JNIEnv *env, jclass cls, jlong j_session, jint j_index) {
    (void)cls;
    jobject result = NULL;
    int32_t status = KILN_OK;
    int32_t c_dtype = 0;
    kj_dims_out c_dims;
    kj_dims_out_init(&c_dims);
    int32_t c_rank = 0;
    for (int attempt = 0;; attempt++) {
        status = kiln_session_output_info((const kiln_session *)(intptr_t)j_session, (int32_t)j_index, &c_dtype, c_dims.dims, c_dims.cap, &c_rank);
        if (status != KILN_ERR_BUFFER_TOO_SMALL || attempt > 0) break;
        if (kj_dims_out_grow(env, &c_dims, c_rank)) goto done;
    }
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    jint r_dtype = (jint)c_dtype;
    jlongArray r_dims = kj_dims_out_array(env, &c_dims, c_rank);
    if ((*env)->ExceptionCheck(env)) goto done;
    result = (*env)->NewObject(env, kj_result_class[4], kj_result_init[4], r_dtype, r_dims);
done:
    kj_dims_out_release(&c_dims);
    return result;
}

/* kiln_session_output_copy: copies output `index` into a caller buffer (two-call pattern) */
JNIEXPORT jlong JNICALL Java_dev_kiln_KilnNative_sessionOutputCopy(JNIEnv *env, jclass cls, jlong j_session, jint j_index, jobject j_buf) {
    (void)cls;
    jlong result = 0;
    int32_t status = KILN_OK;
    void *c_buf = NULL;
    size_t c_buf_size = 0;
    size_t c_needed = 0;
    if (kj_direct_buffer(env, j_buf, "buf", &c_buf, &c_buf_size)) goto done;
    status = kiln_session_output_copy((const kiln_session *)(intptr_t)j_session, (int32_t)j_index, c_buf, c_buf_size, &c_needed);
    if (status == KILN_ERR_BUFFER_TOO_SMALL && !c_buf) status = KILN_OK; /* a size query */
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jlong)c_needed;
done:
    return result;
}

/* kiln_session_output_view: points at the library's copy of output `index`, valid until the next run or destroy */
JNIEXPORT jobject JNICALL Java_dev_kiln_KilnNative_sessionOutputView(JNIEnv *env, jclass cls, jlong j_session, jint j_index) {
    (void)cls;
    jobject result = NULL;
    int32_t status = KILN_OK;
    const void *c_data = NULL;
    size_t c_nbytes = 0;
    status = kiln_session_output_view((const kiln_session *)(intptr_t)j_session, (int32_t)j_index, &c_data, &c_nbytes);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = kj_view_buffer(env, c_data, c_nbytes);
done:
    return result;
}

/* kiln_session_plan_bytes: memory plan: arena bytes and the sum of all intermediate tensor sizes */
JNIEXPORT jobject JNICALL Java_dev_kiln_KilnNative_sessionPlanBytes(JNIEnv *env, jclass cls, jlong j_session) {
    (void)cls;
    jobject result = NULL;
    int32_t status = KILN_OK;
    int64_t c_arena_bytes = 0;
    int64_t c_intermediate_bytes = 0;
    status = kiln_session_plan_bytes((const kiln_session *)(intptr_t)j_session, &c_arena_bytes, &c_intermediate_bytes);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    jlong r_arena_bytes = (jlong)c_arena_bytes;
    jlong r_intermediate_bytes = (jlong)c_intermediate_bytes;
    result = (*env)->NewObject(env, kj_result_class[5], kj_result_init[5], r_arena_bytes, r_intermediate_bytes);
done:
    return result;
}

/* kiln_session_cache_info: plan cache: plans kept, plans built so far, bytes of the arena they share */
JNIEXPORT jobject JNICALL Java_dev_kiln_KilnNative_sessionCacheInfo(JNIEnv *env, jclass cls, jlong j_session) {
    (void)cls;
    jobject result = NULL;
    int32_t status = KILN_OK;
    int32_t c_plans_kept = 0;
    int64_t c_plans_built = 0;
    int64_t c_arena_bytes = 0;
    status = kiln_session_cache_info((const kiln_session *)(intptr_t)j_session, &c_plans_kept, &c_plans_built, &c_arena_bytes);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    jint r_plans_kept = (jint)c_plans_kept;
    jlong r_plans_built = (jlong)c_plans_built;
    jlong r_arena_bytes = (jlong)c_arena_bytes;
    result = (*env)->NewObject(env, kj_result_class[6], kj_result_init[6], r_plans_kept, r_plans_built, r_arena_bytes);
done:
    return result;
}

/* kiln_session_release_memory: gives back the kept plans and their arena; the next run plans again */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_sessionReleaseMemory(JNIEnv *env, jclass cls, jlong j_session) {
    (void)cls;
    int32_t status = KILN_OK;
    status = kiln_session_release_memory((kiln_session *)(intptr_t)j_session);
    if (status != KILN_OK) kj_throw_status(env, status);
    return;
}

/* kiln_session_set_input_value: binds input `index` to a copy of a tensor, sequence or optional handle */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_sessionSetInputValue(JNIEnv *env, jclass cls, jlong j_session, jint j_index, jlong j_value) {
    (void)cls;
    int32_t status = KILN_OK;
    status = kiln_session_set_input_value((kiln_session *)(intptr_t)j_session, (int32_t)j_index, (const kiln_tensor *)(intptr_t)j_value);
    if (status != KILN_OK) kj_throw_status(env, status);
    return;
}

/* kiln_session_output_value: new handle holding a copy of output `index` (any kind) */
JNIEXPORT jlong JNICALL Java_dev_kiln_KilnNative_sessionOutputValue(JNIEnv *env, jclass cls, jlong j_session, jint j_index) {
    (void)cls;
    jlong result = 0;
    int32_t status = KILN_OK;
    kiln_tensor *c_out = NULL;
    status = kiln_session_output_value((const kiln_session *)(intptr_t)j_session, (int32_t)j_index, &c_out);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jlong)(intptr_t)c_out;
done:
    return result;
}

/* kiln_session_set_input_device: binds input `name` to memory on the session's device (borrowed until the run returns; no host-to-device copy) */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_sessionSetInputDevice(JNIEnv *env, jclass cls, jlong j_session, jstring j_name, jint j_dtype, jlongArray j_dims, jlong j_device_data, jlong j_nbytes) {
    (void)cls;
    int32_t status = KILN_OK;
    kj_utf8 c_name = {0};
    kj_dims_in c_dims = {0};
    size_t c_nbytes = 0;
    if (kj_utf8_get(env, j_name, "name", 0, &c_name)) goto done;
    if (kj_dims_in_get(env, j_dims, "dims", &c_dims)) goto done;
    if (kj_size_arg(env, j_nbytes, "nbytes", &c_nbytes)) goto done;
    status = kiln_session_set_input_device((kiln_session *)(intptr_t)j_session, c_name.chars, (int32_t)j_dtype, c_dims.dims, c_dims.rank, (const void *)(intptr_t)j_device_data, c_nbytes);
    if (status != KILN_OK) kj_throw_status(env, status);
done:
    kj_dims_in_release(&c_dims);
    kj_utf8_release(env, &c_name);
    return;
}

/* kiln_session_bind_output_device: each later run also writes output `index` into memory on the session's device (NULL unbinds) */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_sessionBindOutputDevice(JNIEnv *env, jclass cls, jlong j_session, jint j_index, jlong j_device_data, jlong j_cap) {
    (void)cls;
    int32_t status = KILN_OK;
    size_t c_cap = 0;
    if (kj_size_arg(env, j_cap, "cap", &c_cap)) goto done;
    status = kiln_session_bind_output_device((kiln_session *)(intptr_t)j_session, (int32_t)j_index, (void *)(intptr_t)j_device_data, c_cap);
    if (status != KILN_OK) kj_throw_status(env, status);
done:
    return;
}

/* kiln_session_device_stream: the session's stream on its device (a cudaStream_t for cuda); runs have waited for it when they return */
JNIEXPORT jlong JNICALL Java_dev_kiln_KilnNative_sessionDeviceStream(JNIEnv *env, jclass cls, jlong j_session) {
    (void)cls;
    jlong result = 0;
    int32_t status = KILN_OK;
    void *c_stream = NULL;
    status = kiln_session_device_stream((const kiln_session *)(intptr_t)j_session, &c_stream);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jlong)(intptr_t)c_stream;
done:
    return result;
}

/* kiln_session_value_count: number of values the last run kept (needs KILN_OPT_KEEP_VALUES = 1) */
JNIEXPORT jint JNICALL Java_dev_kiln_KilnNative_sessionValueCount(JNIEnv *env, jclass cls, jlong j_session) {
    (void)cls;
    jint result = 0;
    int32_t status = KILN_OK;
    int32_t c_count = 0;
    status = kiln_session_value_count((const kiln_session *)(intptr_t)j_session, &c_count);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jint)c_count;
done:
    return result;
}

/* kiln_session_value_name: name of kept value `index`, in the order the run computed them (two-call pattern) */
JNIEXPORT jstring JNICALL Java_dev_kiln_KilnNative_sessionValueName(JNIEnv *env, jclass cls, jlong j_session, jint j_index) {
    (void)cls;
    jstring result = NULL;
    int32_t status = KILN_OK;
    kj_strbuf c_buf;
    kj_strbuf_init(&c_buf);
    int32_t c_needed = 0;
    for (int attempt = 0;; attempt++) {
        status = kiln_session_value_name((const kiln_session *)(intptr_t)j_session, (int32_t)j_index, c_buf.data, c_buf.cap, &c_needed);
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

/* kiln_session_value_info: element type the kept value `name` had in the run, and its shape */
JNIEXPORT jobject JNICALL Java_dev_kiln_KilnNative_sessionValueInfo(JNIEnv *env, jclass cls, jlong j_session, jstring j_name) {
    (void)cls;
    jobject result = NULL;
    int32_t status = KILN_OK;
    kj_utf8 c_name = {0};
    int32_t c_dtype = 0;
    kj_dims_out c_dims;
    kj_dims_out_init(&c_dims);
    int32_t c_rank = 0;
    if (kj_utf8_get(env, j_name, "name", 0, &c_name)) goto done;
    for (int attempt = 0;; attempt++) {
        status = kiln_session_value_info((const kiln_session *)(intptr_t)j_session, c_name.chars, &c_dtype, c_dims.dims, c_dims.cap, &c_rank);
        if (status != KILN_ERR_BUFFER_TOO_SMALL || attempt > 0) break;
        if (kj_dims_out_grow(env, &c_dims, c_rank)) goto done;
    }
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    jint r_dtype = (jint)c_dtype;
    jlongArray r_dims = kj_dims_out_array(env, &c_dims, c_rank);
    if ((*env)->ExceptionCheck(env)) goto done;
    result = (*env)->NewObject(env, kj_result_class[7], kj_result_init[7], r_dtype, r_dims);
done:
    kj_dims_out_release(&c_dims);
    kj_utf8_release(env, &c_name);
    return result;
}

/* kiln_session_value_copy: copies the float32 copy of kept value `name` into a caller buffer (two-call pattern) */
JNIEXPORT jlong JNICALL Java_dev_kiln_KilnNative_sessionValueCopy(JNIEnv *env, jclass cls, jlong j_session, jstring j_name, jobject j_buf) {
    (void)cls;
    jlong result = 0;
    int32_t status = KILN_OK;
    kj_utf8 c_name = {0};
    void *c_buf = NULL;
    size_t c_buf_size = 0;
    size_t c_needed = 0;
    if (kj_utf8_get(env, j_name, "name", 0, &c_name)) goto done;
    if (kj_direct_buffer(env, j_buf, "buf", &c_buf, &c_buf_size)) goto done;
    status = kiln_session_value_copy((const kiln_session *)(intptr_t)j_session, c_name.chars, c_buf, c_buf_size, &c_needed);
    if (status == KILN_ERR_BUFFER_TOO_SMALL && !c_buf) status = KILN_OK; /* a size query */
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jlong)c_needed;
done:
    kj_utf8_release(env, &c_name);
    return result;
}
