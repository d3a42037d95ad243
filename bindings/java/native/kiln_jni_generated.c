/* Generated from capi/kiln_api.json by bindings/gen/emit_java.py; do not edit.
 * Regenerate: /usr/bin/python3 bindings/gen/generate.py */
#include <stdint.h>
#include <stdlib.h>

#include "jni_support.h"

/* Classes of the functions that return several values. */
#define KJ_RESULT_CLASSES 12
static jclass kj_result_class[KJ_RESULT_CLASSES];
static jmethodID kj_result_init[KJ_RESULT_CLASSES];
static const char *const kj_result_names[][2] = {
    {"dev/kiln/KilnNative$ModelOpset", "(Ljava/lang/String;I)V"},
    {"dev/kiln/KilnNative$ModelNodeOp", "(Ljava/lang/String;Ljava/lang/String;)V"},
    {"dev/kiln/KilnNative$ModelMemoryInfo", "(JJJ)V"},
    {"dev/kiln/KilnNative$ModelNodeIoCount", "(II)V"},
    {"dev/kiln/KilnNative$SessionOutputInfo", "(I[J)V"},
    {"dev/kiln/KilnNative$SessionPlanBytes", "(JJ)V"},
    {"dev/kiln/KilnNative$SessionCacheInfo", "(IJJ)V"},
    {"dev/kiln/KilnNative$SessionValueInfo", "(I[J)V"},
    {"dev/kiln/KilnNative$SessionProfileTime", "(JJ)V"},
    {"dev/kiln/KilnNative$ImageDecode", "(JII)V"},
    {"dev/kiln/KilnNative$TensorInfo", "(I[J)V"},
    {"dev/kiln/KilnNative$CalibratorReportStats", "(IIJ)V"},
};

int kj_generated_init(JNIEnv *env) {
    for (int i = 0; i < 12; i++) {
        jclass local = (*env)->FindClass(env, kj_result_names[i][0]);
        if (!local) return -1;
        kj_result_class[i] = (jclass)(*env)->NewGlobalRef(env, local);
        (*env)->DeleteLocalRef(env, local);
        if (!kj_result_class[i]) return -1;
        kj_result_init[i] = (*env)->GetMethodID(env, kj_result_class[i], "<init>",
                                                kj_result_names[i][1]);
        if (!kj_result_init[i]) return -1;
    }
    return 0;
}

void kj_generated_unload(JNIEnv *env) {
    for (int i = 0; i < KJ_RESULT_CLASSES; i++)
        if (kj_result_class[i]) (*env)->DeleteGlobalRef(env, kj_result_class[i]);
}

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

/* kiln_image_to_tensor: 8-bit pixels to a normalized float NCHW tensor [1, out_channels, out_height, out_width] */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_imageToTensor(JNIEnv *env, jclass cls, jbyteArray j_pixels, jint j_width, jint j_height, jint j_stride, jint j_channels, jint j_out_width, jint j_out_height, jint j_out_channels, jfloatArray j_mean, jfloatArray j_std, jint j_flags, jfloatArray j_out) {
    (void)cls;
    int32_t status = KILN_OK;
    kj_array c_pixels = {0};
    kj_array c_mean = {0};
    kj_array c_std = {0};
    kj_array c_out = {0};
    if (kj_byte_array_get(env, j_pixels, "pixels", &c_pixels)) goto done;
    if ((int64_t)j_width > 0 && (int64_t)j_height > 0 && (int64_t)j_stride > 0 && (int64_t)j_channels > 0 &&
        (int64_t)c_pixels.length < ((int64_t)j_height - 1) * (int64_t)j_stride + (int64_t)j_width * (int64_t)j_channels) {
        kj_throw_illegal_argument(env, "pixels", "shorter than (height - 1) * stride + width * channels bytes");
        goto done;
    }
    if (kj_float_array_get(env, j_mean, "mean", 1, &c_mean)) goto done;
    if (c_mean.elements && j_out_channels > 0 && c_mean.length < j_out_channels) {
        kj_throw_illegal_argument(env, "mean", "needs out_channels elements");
        goto done;
    }
    if (kj_float_array_get(env, j_std, "std", 1, &c_std)) goto done;
    if (c_std.elements && j_out_channels > 0 && c_std.length < j_out_channels) {
        kj_throw_illegal_argument(env, "std", "needs out_channels elements");
        goto done;
    }
    if (kj_float_array_get(env, j_out, "out", 0, &c_out)) goto done;
    status = kiln_image_to_tensor((const uint8_t *)c_pixels.elements, (int32_t)j_width, (int32_t)j_height, (int32_t)j_stride, (int32_t)j_channels, (int32_t)j_out_width, (int32_t)j_out_height, (int32_t)j_out_channels, (const float *)c_mean.elements, (const float *)c_std.elements, (int32_t)j_flags, (float *)c_out.elements, (size_t)c_out.length * sizeof(float));
    if (status != KILN_OK) kj_throw_status(env, status);
done:
    kj_array_release(env, &c_out, status == KILN_OK);
    kj_array_release(env, &c_std, 0);
    kj_array_release(env, &c_mean, 0);
    kj_array_release(env, &c_pixels, 0);
    return;
}

/* kiln_image_decode: decodes a BMP, PNM, TIFF, PNG, JPEG, WebP or JPEG 2000 image to 8-bit HWC pixels (channels 3 = RGB, 1 = luma); pixels NULL and cap 0 only sets width, height and needed */
JNIEXPORT jobject JNICALL Java_dev_kiln_KilnNative_imageDecode(JNIEnv *env, jclass cls, jobject j_data, jint j_channels, jobject j_pixels) {
    (void)cls;
    jobject result = NULL;
    int32_t status = KILN_OK;
    void *c_data = NULL;
    size_t c_data_size = 0;
    void *c_pixels = NULL;
    size_t c_pixels_size = 0;
    size_t c_needed = 0;
    int32_t c_width = 0;
    int32_t c_height = 0;
    if (kj_direct_buffer(env, j_data, "data", &c_data, &c_data_size)) goto done;
    if (kj_direct_buffer(env, j_pixels, "pixels", &c_pixels, &c_pixels_size)) goto done;
    status = kiln_image_decode(c_data, c_data_size, (int32_t)j_channels, c_pixels, c_pixels_size, &c_needed, &c_width, &c_height);
    if (status == KILN_ERR_BUFFER_TOO_SMALL && !c_pixels) status = KILN_OK; /* a size query */
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    jlong r_pixels = (jlong)c_needed;
    jint r_width = (jint)c_width;
    jint r_height = (jint)c_height;
    result = (*env)->NewObject(env, kj_result_class[9], kj_result_init[9], r_pixels, r_width, r_height);
done:
    return result;
}

/* kiln_tensor_decode: decodes a serialized ONNX TensorProto */
JNIEXPORT jlong JNICALL Java_dev_kiln_KilnNative_tensorDecode(JNIEnv *env, jclass cls, jobject j_data) {
    (void)cls;
    jlong result = 0;
    int32_t status = KILN_OK;
    void *c_data = NULL;
    size_t c_data_size = 0;
    kiln_tensor *c_out = NULL;
    if (kj_direct_buffer(env, j_data, "data", &c_data, &c_data_size)) goto done;
    status = kiln_tensor_decode(c_data, c_data_size, &c_out);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jlong)(intptr_t)c_out;
done:
    return result;
}

/* kiln_tensor_destroy: destroys a tensor handle (NULL is fine) */
JNIEXPORT void JNICALL Java_dev_kiln_KilnNative_tensorDestroy(JNIEnv *env, jclass cls, jlong j_tensor) {
    (void)env;
    (void)cls;
    kiln_tensor_destroy((kiln_tensor *)(intptr_t)j_tensor);
    return;
}

/* kiln_tensor_info: element type and shape of a tensor */
JNIEXPORT jobject JNICALL Java_dev_kiln_KilnNative_tensorInfo(JNIEnv *env, jclass cls, jlong j_tensor) {
    (void)cls;
    jobject result = NULL;
    int32_t status = KILN_OK;
    int32_t c_dtype = 0;
    kj_dims_out c_dims;
    kj_dims_out_init(&c_dims);
    int32_t c_rank = 0;
    for (int attempt = 0;; attempt++) {
        status = kiln_tensor_info((const kiln_tensor *)(intptr_t)j_tensor, &c_dtype, c_dims.dims, c_dims.cap, &c_rank);
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
    result = (*env)->NewObject(env, kj_result_class[10], kj_result_init[10], r_dtype, r_dims);
done:
    kj_dims_out_release(&c_dims);
    return result;
}

/* kiln_tensor_data: points at the tensor's bytes, valid until destroy (DTYPE for strings) */
JNIEXPORT jobject JNICALL Java_dev_kiln_KilnNative_tensorData(JNIEnv *env, jclass cls, jlong j_tensor) {
    (void)cls;
    jobject result = NULL;
    int32_t status = KILN_OK;
    const void *c_data = NULL;
    size_t c_nbytes = 0;
    status = kiln_tensor_data((const kiln_tensor *)(intptr_t)j_tensor, &c_data, &c_nbytes);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = kj_view_buffer(env, c_data, c_nbytes);
done:
    return result;
}

/* kiln_tensor_name: tensor name ("" if none; two-call pattern) */
JNIEXPORT jstring JNICALL Java_dev_kiln_KilnNative_tensorName(JNIEnv *env, jclass cls, jlong j_tensor) {
    (void)cls;
    jstring result = NULL;
    int32_t status = KILN_OK;
    kj_strbuf c_buf;
    kj_strbuf_init(&c_buf);
    int32_t c_needed = 0;
    for (int attempt = 0;; attempt++) {
        status = kiln_tensor_name((const kiln_tensor *)(intptr_t)j_tensor, c_buf.data, c_buf.cap, &c_needed);
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

/* kiln_tensor_encode: serializes a TensorProto (raw_data form) into a caller buffer (two-call pattern) */
JNIEXPORT jlong JNICALL Java_dev_kiln_KilnNative_tensorEncode(JNIEnv *env, jclass cls, jstring j_name, jint j_dtype, jlongArray j_dims, jobject j_data, jobject j_buf) {
    (void)cls;
    jlong result = 0;
    int32_t status = KILN_OK;
    kj_utf8 c_name = {0};
    kj_dims_in c_dims = {0};
    void *c_data = NULL;
    size_t c_data_size = 0;
    void *c_buf = NULL;
    size_t c_buf_size = 0;
    size_t c_needed = 0;
    if (kj_utf8_get(env, j_name, "name", 1, &c_name)) goto done;
    if (kj_dims_in_get(env, j_dims, "dims", &c_dims)) goto done;
    if (kj_direct_buffer(env, j_data, "data", &c_data, &c_data_size)) goto done;
    if (kj_direct_buffer(env, j_buf, "buf", &c_buf, &c_buf_size)) goto done;
    status = kiln_tensor_encode(c_name.chars, (int32_t)j_dtype, c_dims.dims, c_dims.rank, c_data, c_data_size, c_buf, c_buf_size, &c_needed);
    if (status == KILN_ERR_BUFFER_TOO_SMALL && !c_buf) status = KILN_OK; /* a size query */
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jlong)c_needed;
done:
    kj_dims_in_release(&c_dims);
    kj_utf8_release(env, &c_name);
    return result;
}

/* kiln_tensor_decode_value: decodes a serialized TensorProto, SequenceProto or OptionalProto (by kind) */
JNIEXPORT jlong JNICALL Java_dev_kiln_KilnNative_tensorDecodeValue(JNIEnv *env, jclass cls, jobject j_data, jint j_kind) {
    (void)cls;
    jlong result = 0;
    int32_t status = KILN_OK;
    void *c_data = NULL;
    size_t c_data_size = 0;
    kiln_tensor *c_out = NULL;
    if (kj_direct_buffer(env, j_data, "data", &c_data, &c_data_size)) goto done;
    status = kiln_tensor_decode_value(c_data, c_data_size, (int32_t)j_kind, &c_out);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jlong)(intptr_t)c_out;
done:
    return result;
}

/* kiln_tensor_kind: kind of the value a handle holds (KILN_KIND_*) */
JNIEXPORT jint JNICALL Java_dev_kiln_KilnNative_tensorKind(JNIEnv *env, jclass cls, jlong j_tensor) {
    (void)cls;
    jint result = 0;
    int32_t status = KILN_OK;
    int32_t c_kind = 0;
    status = kiln_tensor_kind((const kiln_tensor *)(intptr_t)j_tensor, &c_kind);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jint)c_kind;
done:
    return result;
}

/* kiln_tensor_element_count: number of elements of a sequence, or 0/1 for an optional */
JNIEXPORT jint JNICALL Java_dev_kiln_KilnNative_tensorElementCount(JNIEnv *env, jclass cls, jlong j_value) {
    (void)cls;
    jint result = 0;
    int32_t status = KILN_OK;
    int32_t c_count = 0;
    status = kiln_tensor_element_count((const kiln_tensor *)(intptr_t)j_value, &c_count);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jint)c_count;
done:
    return result;
}

/* kiln_tensor_element: new handle holding a copy of element `index` of a sequence or optional */
JNIEXPORT jlong JNICALL Java_dev_kiln_KilnNative_tensorElement(JNIEnv *env, jclass cls, jlong j_value, jint j_index) {
    (void)cls;
    jlong result = 0;
    int32_t status = KILN_OK;
    kiln_tensor *c_out = NULL;
    status = kiln_tensor_element((const kiln_tensor *)(intptr_t)j_value, (int32_t)j_index, &c_out);
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = (jlong)(intptr_t)c_out;
done:
    return result;
}

/* kiln_tensor_string: bytes of element `index` of a string tensor (two-call pattern; may contain NULs) */
JNIEXPORT jbyteArray JNICALL Java_dev_kiln_KilnNative_tensorString(JNIEnv *env, jclass cls, jlong j_tensor, jint j_index) {
    (void)cls;
    jbyteArray result = NULL;
    int32_t status = KILN_OK;
    kj_strbuf c_buf;
    kj_strbuf_init(&c_buf);
    int32_t c_needed = 0;
    for (int attempt = 0;; attempt++) {
        status = kiln_tensor_string((const kiln_tensor *)(intptr_t)j_tensor, (int32_t)j_index, c_buf.data, c_buf.cap, &c_needed);
        if (status != KILN_ERR_BUFFER_TOO_SMALL || attempt > 0) break;
        if (kj_strbuf_grow(env, &c_buf, c_needed)) goto done;
    }
    if (status != KILN_OK) {
        kj_throw_status(env, status);
        goto done;
    }
    result = kj_strbuf_bytes(env, &c_buf, c_needed - 1);
done:
    kj_strbuf_release(&c_buf);
    return result;
}

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
