/* Generated from capi/kiln_api.json by bindings/gen/emit_java.py; do not edit.
 * Regenerate: /usr/bin/python3 bindings/gen/generate.py */
#include <stdint.h>
#include <stdlib.h>

#include "kiln_jni_results.h"

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
