/* Generated from capi/kiln_api.json by bindings/gen/emit_java.py; do not edit.
 * Regenerate: /usr/bin/python3 bindings/gen/generate.py */
#include <stdint.h>
#include <stdlib.h>

#include "kiln_jni_results.h"

/* kiln_model_load_file: loads an ONNX model file; options may be NULL */
JNIEXPORT jlong JNICALL Java_dev_kiln_KilnNative_modelLoadFile(JNIEnv *env, jclass cls, jlong j_runtime, jstring j_path, jlong j_options) {
    (void)cls;
    jlong result = 0;
    int32_t status = KILN_OK;
    kj_utf8 c_path = {0};
    kiln_model *c_out = NULL;
    if (kj_utf8_get(env, j_path, "path", 0, &c_path)) goto done;
    status = kiln_model_load_file((kiln_runtime *)(intptr_t)j_runtime, c_path.chars, (const kiln_options *)(intptr_t)j_options, &c_out);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jlong)(intptr_t)c_out;
done:
    kj_utf8_release(env, &c_path);
    return result;
}

/* kiln_model_load_memory: loads an ONNX model from bytes (not used after the call); options may be NULL */
JNIEXPORT jlong JNICALL Java_dev_kiln_KilnNative_modelLoadMemory(JNIEnv *env, jclass cls, jlong j_runtime, jobject j_data, jlong j_options) {
    (void)cls;
    jlong result = 0;
    int32_t status = KILN_OK;
    void *c_data = NULL;
    size_t c_data_size = 0;
    kiln_model *c_out = NULL;
    if (kj_direct_buffer(env, j_data, "data", &c_data, &c_data_size)) goto done;
    status = kiln_model_load_memory((kiln_runtime *)(intptr_t)j_runtime, c_data, c_data_size, (const kiln_options *)(intptr_t)j_options, &c_out);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jlong)(intptr_t)c_out;
done:
    return result;
}

/* kiln_model_destroy: destroys a model after all its sessions */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_modelDestroy(JNIEnv *env, jclass cls, jlong j_model) {
    (void)env;
    (void)cls;
    kiln_model_destroy((kiln_model *)(intptr_t)j_model);
    return;
}

/* kiln_model_input_count: number of model inputs */
JNIEXPORT jint JNICALL Java_dev_kiln_KilnNative_modelInputCount(JNIEnv *env, jclass cls, jlong j_model) {
    (void)cls;
    jint result = 0;
    int32_t status = KILN_OK;
    int32_t c_count = 0;
    status = kiln_model_input_count((const kiln_model *)(intptr_t)j_model, &c_count);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jint)c_count;
done:
    return result;
}

/* kiln_model_output_count: number of model outputs */
JNIEXPORT jint JNICALL Java_dev_kiln_KilnNative_modelOutputCount(JNIEnv *env, jclass cls, jlong j_model) {
    (void)cls;
    jint result = 0;
    int32_t status = KILN_OK;
    int32_t c_count = 0;
    status = kiln_model_output_count((const kiln_model *)(intptr_t)j_model, &c_count);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jint)c_count;
done:
    return result;
}

/* kiln_model_input_name: name of input `index` (two-call pattern) */
JNIEXPORT jstring JNICALL Java_dev_kiln_KilnNative_modelInputName(JNIEnv *env, jclass cls, jlong j_model, jint j_index) {
    (void)cls;
    jstring result = NULL;
    int32_t status = KILN_OK;
    kj_strbuf c_buf;
    kj_strbuf_init(&c_buf);
    int32_t c_needed = 0;
    for (int attempt = 0;; attempt++) {
        status = kiln_model_input_name((const kiln_model *)(intptr_t)j_model, (int32_t)j_index, c_buf.data, c_buf.cap, &c_needed);
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

/* kiln_model_output_name: name of output `index` (two-call pattern) */
JNIEXPORT jstring JNICALL Java_dev_kiln_KilnNative_modelOutputName(JNIEnv *env, jclass cls, jlong j_model, jint j_index) {
    (void)cls;
    jstring result = NULL;
    int32_t status = KILN_OK;
    kj_strbuf c_buf;
    kj_strbuf_init(&c_buf);
    int32_t c_needed = 0;
    for (int attempt = 0;; attempt++) {
        status = kiln_model_output_name((const kiln_model *)(intptr_t)j_model, (int32_t)j_index, c_buf.data, c_buf.cap, &c_needed);
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

/* kiln_model_input_dtype: declared element type of input `index` (KILN_DTYPE_*, 0 if open) */
JNIEXPORT jint JNICALL Java_dev_kiln_KilnNative_modelInputDtype(JNIEnv *env, jclass cls, jlong j_model, jint j_index) {
    (void)cls;
    jint result = 0;
    int32_t status = KILN_OK;
    int32_t c_dtype = 0;
    status = kiln_model_input_dtype((const kiln_model *)(intptr_t)j_model, (int32_t)j_index, &c_dtype);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jint)c_dtype;
done:
    return result;
}

/* kiln_model_output_dtype: declared element type of output `index` (KILN_DTYPE_*, 0 if open) */
JNIEXPORT jint JNICALL Java_dev_kiln_KilnNative_modelOutputDtype(JNIEnv *env, jclass cls, jlong j_model, jint j_index) {
    (void)cls;
    jint result = 0;
    int32_t status = KILN_OK;
    int32_t c_dtype = 0;
    status = kiln_model_output_dtype((const kiln_model *)(intptr_t)j_model, (int32_t)j_index, &c_dtype);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jint)c_dtype;
done:
    return result;
}

/* kiln_model_input_shape: declared shape of input `index` (rank -1 if unknown, dim -1 if dynamic) */
JNIEXPORT jlongArray JNICALL Java_dev_kiln_KilnNative_modelInputShape(JNIEnv *env, jclass cls, jlong j_model, jint j_index) {
    (void)cls;
    jlongArray result = NULL;
    int32_t status = KILN_OK;
    kj_dims_out c_dims;
    kj_dims_out_init(&c_dims);
    int32_t c_rank = 0;
    for (int attempt = 0;; attempt++) {
        status = kiln_model_input_shape((const kiln_model *)(intptr_t)j_model, (int32_t)j_index, c_dims.dims, c_dims.cap, &c_rank);
        if (status != KILN_ERR_BUFFER_TOO_SMALL || attempt > 0) break;
        if (kj_dims_out_grow(env, &c_dims, c_rank)) goto done;
    }
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = kj_dims_out_array(env, &c_dims, c_rank);
done:
    kj_dims_out_release(&c_dims);
    return result;
}

/* kiln_model_output_shape: declared shape of output `index` (rank -1 if unknown, dim -1 if dynamic) */
JNIEXPORT jlongArray JNICALL Java_dev_kiln_KilnNative_modelOutputShape(JNIEnv *env, jclass cls, jlong j_model, jint j_index) {
    (void)cls;
    jlongArray result = NULL;
    int32_t status = KILN_OK;
    kj_dims_out c_dims;
    kj_dims_out_init(&c_dims);
    int32_t c_rank = 0;
    for (int attempt = 0;; attempt++) {
        status = kiln_model_output_shape((const kiln_model *)(intptr_t)j_model, (int32_t)j_index, c_dims.dims, c_dims.cap, &c_rank);
        if (status != KILN_ERR_BUFFER_TOO_SMALL || attempt > 0) break;
        if (kj_dims_out_grow(env, &c_dims, c_rank)) goto done;
    }
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = kj_dims_out_array(env, &c_dims, c_rank);
done:
    kj_dims_out_release(&c_dims);
    return result;
}

/* kiln_model_input_index: index of the input named `name` (NOT_FOUND if none) */
JNIEXPORT jint JNICALL Java_dev_kiln_KilnNative_modelInputIndex(JNIEnv *env, jclass cls, jlong j_model, jstring j_name) {
    (void)cls;
    jint result = 0;
    int32_t status = KILN_OK;
    kj_utf8 c_name = {0};
    int32_t c_index = 0;
    if (kj_utf8_get(env, j_name, "name", 0, &c_name)) goto done;
    status = kiln_model_input_index((const kiln_model *)(intptr_t)j_model, c_name.chars, &c_index);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jint)c_index;
done:
    kj_utf8_release(env, &c_name);
    return result;
}

/* kiln_model_output_index: index of the output named `name` (NOT_FOUND if none) */
JNIEXPORT jint JNICALL Java_dev_kiln_KilnNative_modelOutputIndex(JNIEnv *env, jclass cls, jlong j_model, jstring j_name) {
    (void)cls;
    jint result = 0;
    int32_t status = KILN_OK;
    kj_utf8 c_name = {0};
    int32_t c_index = 0;
    if (kj_utf8_get(env, j_name, "name", 0, &c_name)) goto done;
    status = kiln_model_output_index((const kiln_model *)(intptr_t)j_model, c_name.chars, &c_index);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jint)c_index;
done:
    kj_utf8_release(env, &c_name);
    return result;
}

/* kiln_model_opset_count: number of opset imports */
JNIEXPORT jint JNICALL Java_dev_kiln_KilnNative_modelOpsetCount(JNIEnv *env, jclass cls, jlong j_model) {
    (void)cls;
    jint result = 0;
    int32_t status = KILN_OK;
    int32_t c_count = 0;
    status = kiln_model_opset_count((const kiln_model *)(intptr_t)j_model, &c_count);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jint)c_count;
done:
    return result;
}

/* kiln_model_opset: domain ("" = ai.onnx; two-call pattern) and version of opset import `index` */
JNIEXPORT jobject JNICALL Java_dev_kiln_KilnNative_modelOpset(JNIEnv *env, jclass cls, jlong j_model, jint j_index) {
    (void)cls;
    jobject result = NULL;
    int32_t status = KILN_OK;
    kj_strbuf c_domain;
    kj_strbuf_init(&c_domain);
    int32_t c_needed = 0;
    int32_t c_version = 0;
    for (int attempt = 0;; attempt++) {
        status = kiln_model_opset((const kiln_model *)(intptr_t)j_model, (int32_t)j_index, c_domain.data, c_domain.cap, &c_needed, &c_version);
        if (status != KILN_ERR_BUFFER_TOO_SMALL || attempt > 0) break;
        if (kj_strbuf_grow(env, &c_domain, c_needed)) goto done;
    }
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    jstring r_domain = kj_strbuf_string(env, &c_domain);
    if ((*env)->ExceptionCheck(env)) goto done;
    jint r_version = (jint)c_version;
    result = (*env)->NewObject(env, kj_result_class[0], kj_result_init[0], r_domain, r_version);
done:
    kj_strbuf_release(&c_domain);
    return result;
}

/* kiln_model_node_count: number of nodes in the main graph */
JNIEXPORT jint JNICALL Java_dev_kiln_KilnNative_modelNodeCount(JNIEnv *env, jclass cls, jlong j_model) {
    (void)cls;
    jint result = 0;
    int32_t status = KILN_OK;
    int32_t c_count = 0;
    status = kiln_model_node_count((const kiln_model *)(intptr_t)j_model, &c_count);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jint)c_count;
done:
    return result;
}

/* kiln_model_node_op: op type and domain of node `index`; *needed is the larger of the two sizes */
JNIEXPORT jobject JNICALL Java_dev_kiln_KilnNative_modelNodeOp(JNIEnv *env, jclass cls, jlong j_model, jint j_index) {
    (void)cls;
    jobject result = NULL;
    int32_t status = KILN_OK;
    kj_strbuf c_op_type;
    kj_strbuf_init(&c_op_type);
    kj_strbuf c_domain;
    kj_strbuf_init(&c_domain);
    int32_t c_needed = 0;
    for (int attempt = 0;; attempt++) {
        status = kiln_model_node_op((const kiln_model *)(intptr_t)j_model, (int32_t)j_index, c_op_type.data, c_op_type.cap, c_domain.data, c_domain.cap, &c_needed);
        if (status != KILN_ERR_BUFFER_TOO_SMALL || attempt > 0) break;
        if (kj_strbuf_grow(env, &c_op_type, c_needed) || kj_strbuf_grow(env, &c_domain, c_needed)) goto done;
    }
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    jstring r_op_type = kj_strbuf_string(env, &c_op_type);
    if ((*env)->ExceptionCheck(env)) goto done;
    jstring r_domain = kj_strbuf_string(env, &c_domain);
    if ((*env)->ExceptionCheck(env)) goto done;
    result = (*env)->NewObject(env, kj_result_class[1], kj_result_init[1], r_op_type, r_domain);
done:
    kj_strbuf_release(&c_domain);
    kj_strbuf_release(&c_op_type);
    return result;
}

/* kiln_model_node_name: name of node `index` (two-call pattern) */
JNIEXPORT jstring JNICALL Java_dev_kiln_KilnNative_modelNodeName(JNIEnv *env, jclass cls, jlong j_model, jint j_index) {
    (void)cls;
    jstring result = NULL;
    int32_t status = KILN_OK;
    kj_strbuf c_buf;
    kj_strbuf_init(&c_buf);
    int32_t c_needed = 0;
    for (int attempt = 0;; attempt++) {
        status = kiln_model_node_name((const kiln_model *)(intptr_t)j_model, (int32_t)j_index, c_buf.data, c_buf.cap, &c_needed);
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

/* kiln_model_node_supported: 1 if a kernel exists for node `index`, else 0 */
JNIEXPORT jboolean JNICALL Java_dev_kiln_KilnNative_modelNodeSupported(JNIEnv *env, jclass cls, jlong j_model, jint j_index) {
    (void)cls;
    jboolean result = 0;
    int32_t status = KILN_OK;
    int32_t c_supported = 0;
    status = kiln_model_node_supported((const kiln_model *)(intptr_t)j_model, (int32_t)j_index, &c_supported);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jboolean)(c_supported ? JNI_TRUE : JNI_FALSE);
done:
    return result;
}

/* kiln_model_input_kind: kind of input `index` (KILN_KIND_*) */
JNIEXPORT jint JNICALL Java_dev_kiln_KilnNative_modelInputKind(JNIEnv *env, jclass cls, jlong j_model, jint j_index) {
    (void)cls;
    jint result = 0;
    int32_t status = KILN_OK;
    int32_t c_kind = 0;
    status = kiln_model_input_kind((const kiln_model *)(intptr_t)j_model, (int32_t)j_index, &c_kind);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jint)c_kind;
done:
    return result;
}

/* kiln_model_output_kind: kind of output `index` (KILN_KIND_*) */
JNIEXPORT jint JNICALL Java_dev_kiln_KilnNative_modelOutputKind(JNIEnv *env, jclass cls, jlong j_model, jint j_index) {
    (void)cls;
    jint result = 0;
    int32_t status = KILN_OK;
    int32_t c_kind = 0;
    status = kiln_model_output_kind((const kiln_model *)(intptr_t)j_model, (int32_t)j_index, &c_kind);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jint)c_kind;
done:
    return result;
}

/* kiln_model_memory_info: weight bytes, bytes of prepared weights all sessions share, raw weight bytes given back */
JNIEXPORT jobject JNICALL Java_dev_kiln_KilnNative_modelMemoryInfo(JNIEnv *env, jclass cls, jlong j_model) {
    (void)cls;
    jobject result = NULL;
    int32_t status = KILN_OK;
    int64_t c_weight_bytes = 0;
    int64_t c_shared_prepared_bytes = 0;
    int64_t c_given_back_bytes = 0;
    status = kiln_model_memory_info((const kiln_model *)(intptr_t)j_model, &c_weight_bytes, &c_shared_prepared_bytes, &c_given_back_bytes);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    jlong r_weight_bytes = (jlong)c_weight_bytes;
    jlong r_shared_prepared_bytes = (jlong)c_shared_prepared_bytes;
    jlong r_given_back_bytes = (jlong)c_given_back_bytes;
    result = (*env)->NewObject(env, kj_result_class[2], kj_result_init[2], r_weight_bytes, r_shared_prepared_bytes, r_given_back_bytes);
done:
    return result;
}

/* kiln_model_node_io_count: how many inputs and outputs node `index` has */
JNIEXPORT jobject JNICALL Java_dev_kiln_KilnNative_modelNodeIoCount(JNIEnv *env, jclass cls, jlong j_model, jint j_index) {
    (void)cls;
    jobject result = NULL;
    int32_t status = KILN_OK;
    int32_t c_input_count = 0;
    int32_t c_output_count = 0;
    status = kiln_model_node_io_count((const kiln_model *)(intptr_t)j_model, (int32_t)j_index, &c_input_count, &c_output_count);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    jint r_input_count = (jint)c_input_count;
    jint r_output_count = (jint)c_output_count;
    result = (*env)->NewObject(env, kj_result_class[3], kj_result_init[3], r_input_count, r_output_count);
done:
    return result;
}

/* kiln_model_node_input: name of the value input `slot` of node `index` reads ("" if omitted; two-call pattern) */
JNIEXPORT jstring JNICALL Java_dev_kiln_KilnNative_modelNodeInput(JNIEnv *env, jclass cls, jlong j_model, jint j_index, jint j_slot) {
    (void)cls;
    jstring result = NULL;
    int32_t status = KILN_OK;
    kj_strbuf c_buf;
    kj_strbuf_init(&c_buf);
    int32_t c_needed = 0;
    for (int attempt = 0;; attempt++) {
        status = kiln_model_node_input((const kiln_model *)(intptr_t)j_model, (int32_t)j_index, (int32_t)j_slot, c_buf.data, c_buf.cap, &c_needed);
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

/* kiln_model_node_output: name of the value output `slot` of node `index` writes ("" if omitted; two-call pattern) */
JNIEXPORT jstring JNICALL Java_dev_kiln_KilnNative_modelNodeOutput(JNIEnv *env, jclass cls, jlong j_model, jint j_index, jint j_slot) {
    (void)cls;
    jstring result = NULL;
    int32_t status = KILN_OK;
    kj_strbuf c_buf;
    kj_strbuf_init(&c_buf);
    int32_t c_needed = 0;
    for (int attempt = 0;; attempt++) {
        status = kiln_model_node_output((const kiln_model *)(intptr_t)j_model, (int32_t)j_index, (int32_t)j_slot, c_buf.data, c_buf.cap, &c_needed);
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
