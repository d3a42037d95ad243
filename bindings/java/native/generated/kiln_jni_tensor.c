/* Generated from capi/kiln_api.json by bindings/gen/emit_java.py; do not edit.
 * Regenerate: /usr/bin/python3 bindings/gen/generate.py */
#include <stdint.h>
#include <stdlib.h>

#include "kiln_jni_results.h"

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
