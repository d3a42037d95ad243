/* Generated from capi/kiln_api.json by bindings/gen/emit_java.py; do not edit.
 * Regenerate: /usr/bin/python3 bindings/gen/generate.py */
#include <stdint.h>
#include <stdlib.h>

#include "kiln_jni_results.h"

/* kiln_calibrator_create: loads a model file for calibration (no graph optimization) */
JNIEXPORT jlong JNICALL Java_dev_kiln_KilnNative_calibratorCreate(JNIEnv *env, jclass cls, jlong j_runtime, jstring j_path, jlong j_options) {
    (void)cls;
    jlong result = 0;
    int32_t status = KILN_OK;
    kj_utf8 c_path = {0};
    kiln_calibrator *c_out = NULL;
    if (kj_utf8_get(env, j_path, "path", 0, &c_path)) goto done;
    status = kiln_calibrator_create((kiln_runtime *)(intptr_t)j_runtime, c_path.chars, (const kiln_options *)(intptr_t)j_options, &c_out);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jlong)(intptr_t)c_out;
done:
    kj_utf8_release(env, &c_path);
    return result;
}

/* kiln_calibrator_create_memory: the same from the model's bytes */
JNIEXPORT jlong JNICALL Java_dev_kiln_KilnNative_calibratorCreateMemory(JNIEnv *env, jclass cls, jlong j_runtime, jobject j_data, jlong j_options) {
    (void)cls;
    jlong result = 0;
    int32_t status = KILN_OK;
    void *c_data = NULL;
    size_t c_data_size = 0;
    kiln_calibrator *c_out = NULL;
    if (kj_direct_buffer(env, j_data, "data", &c_data, &c_data_size)) goto done;
    status = kiln_calibrator_create_memory((kiln_runtime *)(intptr_t)j_runtime, c_data, c_data_size, (const kiln_options *)(intptr_t)j_options, &c_out);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jlong)(intptr_t)c_out;
done:
    return result;
}

/* kiln_calibrator_destroy: frees the calibrator (NULL-safe) */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_calibratorDestroy(JNIEnv *env, jclass cls, jlong j_calibrator) {
    (void)env;
    (void)cls;
    kiln_calibrator_destroy((kiln_calibrator *)(intptr_t)j_calibrator);
    return;
}

/* kiln_calibrator_configure: changes method, symmetry, percentile and float-kept nodes for the next write */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_calibratorConfigure(JNIEnv *env, jclass cls, jlong j_calibrator, jlong j_options) {
    (void)cls;
    int32_t status = KILN_OK;
    status = kiln_calibrator_configure((kiln_calibrator *)(intptr_t)j_calibrator, (const kiln_options *)(intptr_t)j_options);
    if (status != KILN_OK) kj_throw_status(env, status);
    return;
}

/* kiln_calibrator_set_input: sets input `name` of the next batch (copied) */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_calibratorSetInput(JNIEnv *env, jclass cls, jlong j_calibrator, jstring j_name, jint j_dtype, jlongArray j_dims, jobject j_data) {
    (void)cls;
    int32_t status = KILN_OK;
    kj_utf8 c_name = {0};
    kj_dims_in c_dims = {0};
    void *c_data = NULL;
    size_t c_data_size = 0;
    if (kj_utf8_get(env, j_name, "name", 0, &c_name)) goto done;
    if (kj_dims_in_get(env, j_dims, "dims", &c_dims)) goto done;
    if (kj_direct_buffer(env, j_data, "data", &c_data, &c_data_size)) goto done;
    status = kiln_calibrator_set_input((kiln_calibrator *)(intptr_t)j_calibrator, c_name.chars, (int32_t)j_dtype, c_dims.dims, c_dims.rank, c_data, c_data_size);
    if (status != KILN_OK) kj_throw_status(env, status);
done:
    kj_dims_in_release(&c_dims);
    kj_utf8_release(env, &c_name);
    return;
}

/* kiln_calibrator_add_batch: runs the batch and adds every float tensor to its histogram */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_calibratorAddBatch(JNIEnv *env, jclass cls, jlong j_calibrator) {
    (void)cls;
    int32_t status = KILN_OK;
    status = kiln_calibrator_add_batch((kiln_calibrator *)(intptr_t)j_calibrator);
    if (status != KILN_OK) kj_throw_status(env, status);
    return;
}

/* kiln_calibrator_batch_count: batches added so far */
JNIEXPORT jint JNICALL Java_dev_kiln_KilnNative_calibratorBatchCount(JNIEnv *env, jclass cls, jlong j_calibrator) {
    (void)cls;
    jint result = 0;
    int32_t status = KILN_OK;
    int32_t c_count = 0;
    status = kiln_calibrator_batch_count((const kiln_calibrator *)(intptr_t)j_calibrator, &c_count);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jint)c_count;
done:
    return result;
}

/* kiln_calibrator_write_file: writes the QDQ model to a file */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_calibratorWriteFile(JNIEnv *env, jclass cls, jlong j_calibrator, jstring j_path) {
    (void)cls;
    int32_t status = KILN_OK;
    kj_utf8 c_path = {0};
    if (kj_utf8_get(env, j_path, "path", 0, &c_path)) goto done;
    status = kiln_calibrator_write_file((kiln_calibrator *)(intptr_t)j_calibrator, c_path.chars);
    if (status != KILN_OK) kj_throw_status(env, status);
done:
    kj_utf8_release(env, &c_path);
    return;
}

/* kiln_calibrator_write_memory: the QDQ model's bytes (two-call pattern) */
JNIEXPORT jlong JNICALL Java_dev_kiln_KilnNative_calibratorWriteMemory(JNIEnv *env, jclass cls, jlong j_calibrator, jobject j_buf) {
    (void)cls;
    jlong result = 0;
    int32_t status = KILN_OK;
    void *c_buf = NULL;
    size_t c_buf_size = 0;
    size_t c_needed = 0;
    if (kj_direct_buffer(env, j_buf, "buf", &c_buf, &c_buf_size)) goto done;
    status = kiln_calibrator_write_memory((kiln_calibrator *)(intptr_t)j_calibrator, c_buf, c_buf_size, &c_needed);
    if (status == KILN_ERR_BUFFER_TOO_SMALL && !c_buf) status = KILN_OK; /* a size query */
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jlong)c_needed;
done:
    return result;
}

/* kiln_calibrator_report_count: lines in the last write's report */
JNIEXPORT jint JNICALL Java_dev_kiln_KilnNative_calibratorReportCount(JNIEnv *env, jclass cls, jlong j_calibrator) {
    (void)cls;
    jint result = 0;
    int32_t status = KILN_OK;
    int32_t c_count = 0;
    status = kiln_calibrator_report_count((const kiln_calibrator *)(intptr_t)j_calibrator, &c_count);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jint)c_count;
done:
    return result;
}

/* kiln_calibrator_report_name: tensor name of report line `index` (two-call pattern) */
JNIEXPORT jstring JNICALL Java_dev_kiln_KilnNative_calibratorReportName(JNIEnv *env, jclass cls, jlong j_calibrator, jint j_index) {
    (void)cls;
    jstring result = NULL;
    int32_t status = KILN_OK;
    kj_strbuf c_buf;
    kj_strbuf_init(&c_buf);
    int32_t c_needed = 0;
    for (int attempt = 0;; attempt++) {
        status = kiln_calibrator_report_name((const kiln_calibrator *)(intptr_t)j_calibrator, (int32_t)j_index, c_buf.data, c_buf.cap, &c_needed);
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

/* kiln_calibrator_report_stats: kind, zero point, NaN/Inf count and min, max, threshold, scale, SQNR dB of report line `index` */
JNIEXPORT jobject JNICALL Java_dev_kiln_KilnNative_calibratorReportStats(JNIEnv *env, jclass cls, jlong j_calibrator, jint j_index, jfloatArray j_stats) {
    (void)cls;
    jobject result = NULL;
    int32_t status = KILN_OK;
    int32_t c_kind = 0;
    int32_t c_zero_point = 0;
    int64_t c_nonfinite = 0;
    kj_array c_stats = {0};
    if (kj_float_array_get(env, j_stats, "stats", 0, &c_stats)) goto done;
    status = kiln_calibrator_report_stats((const kiln_calibrator *)(intptr_t)j_calibrator, (int32_t)j_index, &c_kind, &c_zero_point, &c_nonfinite, (float *)c_stats.elements, (size_t)c_stats.length * sizeof(float));
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    jint r_kind = (jint)c_kind;
    jint r_zero_point = (jint)c_zero_point;
    jlong r_nonfinite = (jlong)c_nonfinite;
    result = (*env)->NewObject(env, kj_result_class[11], kj_result_init[11], r_kind, r_zero_point, r_nonfinite);
done:
    kj_array_release(env, &c_stats, status == KILN_OK);
    return result;
}
