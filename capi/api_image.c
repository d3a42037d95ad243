/* kiln_image_to_tensor and kiln_image_decode: argument checks in front of
 * core/ir/image_prep.c and core/codec/. */
#include <math.h>
#include <stdint.h>

#include "api_internal.h"
#include "core/codec/codec.h"
#include "core/ir/image_prep.h"

/* Every size must be positive and every buffer's byte count must fit in
 * size_t (32 bits under WebAssembly), so the products are checked in
 * 64-bit arithmetic against SIZE_MAX. */
static int fits_size(uint64_t n)
{
    return n <= (uint64_t)SIZE_MAX;
}

static int32_t check_normalisation(const float *values, int32_t n, const char *what, int is_std)
{
    if (!values)
        return KILN_OK;
    for (int32_t c = 0; c < n; c++) {
        if (!isfinite(values[c]))
            return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                             "kiln_image_to_tensor: %s[%d] is not a finite number", what, (int)c);
        if (is_std && values[c] == 0.0f)
            return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                             "kiln_image_to_tensor: std[%d] is 0 (it divides)", (int)c);
    }
    return KILN_OK;
}

int32_t kiln_image_to_tensor(const uint8_t *pixels, int32_t width, int32_t height,
                             int32_t stride, int32_t channels, int32_t out_width,
                             int32_t out_height, int32_t out_channels, const float *mean,
                             const float *std, int32_t flags, float *out, size_t out_bytes)
{
    KILN_CHECK_ARG(pixels, "pixels is NULL");
    KILN_CHECK_ARG(out, "out is NULL");
    if (width <= 0 || height <= 0)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                         "kiln_image_to_tensor: image size %dx%d is not positive", (int)width,
                         (int)height);
    if (channels != 1 && channels != 3 && channels != 4)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                         "kiln_image_to_tensor: channels is %d; expected 1 (gray), 3 (RGB) or "
                         "4 (RGBA)", (int)channels);
    if ((int64_t)stride < (int64_t)width * channels)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                         "kiln_image_to_tensor: stride %d is less than width * channels = %lld",
                         (int)stride, (long long)width * channels);
    if (!fits_size((uint64_t)stride * (uint64_t)height))
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                         "kiln_image_to_tensor: the image (%d rows of %d bytes) is too large",
                         (int)height, (int)stride);
    if (out_width <= 0 || out_height <= 0)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                         "kiln_image_to_tensor: output size %dx%d is not positive",
                         (int)out_width, (int)out_height);
    if (out_channels != 1 && out_channels != 3)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                         "kiln_image_to_tensor: out_channels is %d; expected 1 (luma) or 3 "
                         "(colour)", (int)out_channels);
    if (flags & ~KILN_IMAGE_BGR)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                         "kiln_image_to_tensor: unknown flags 0x%x", (unsigned)flags);
    /* out_width * out_height < 2^62 and out_channels <= 3, so only the
     * final * 4 can leave 64 bits: compare before multiplying. */
    uint64_t elements = (uint64_t)out_width * (uint64_t)out_height * (uint64_t)out_channels;
    if (elements > (uint64_t)SIZE_MAX / sizeof(float))
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                         "kiln_image_to_tensor: a [1, %d, %d, %d] tensor is too large",
                         (int)out_channels, (int)out_height, (int)out_width);
    if ((uint64_t)out_bytes != elements * sizeof(float))
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                         "kiln_image_to_tensor: out_bytes is %llu; a [1, %d, %d, %d] float "
                         "tensor needs %llu", (unsigned long long)out_bytes, (int)out_channels,
                         (int)out_height, (int)out_width,
                         (unsigned long long)(elements * sizeof(float)));
    int32_t rc = check_normalisation(mean, out_channels, "mean", 0);
    if (rc == KILN_OK)
        rc = check_normalisation(std, out_channels, "std", 1);
    if (rc != KILN_OK)
        return rc;
    kn_image_view src = {pixels, width, height, stride, channels};
    kn_image_to_tensor(&src, out_width, out_height, out_channels, mean, std,
                       (flags & KILN_IMAGE_BGR) != 0, out);
    return KILN_OK;
}

int32_t kiln_image_decode(const void *data, size_t size, int32_t channels, void *pixels,
                          size_t cap, size_t *needed, int32_t *width, int32_t *height)
{
    KILN_CHECK_ARG(data, "data is NULL");
    KILN_CHECK_ARG(width && height, "width or height is NULL");
    if (channels != 1 && channels != 3)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                         "kiln_image_decode: channels is %d; expected 1 (gray) or 3 (RGB)",
                         (int)channels);
    kn_err err = {0};
    int64_t w = 0, h = 0;
    if (kn_image_probe(data, size, &w, &h, &err) != KN_OK) {
        kn_err_prefix(&err, "kiln_image_decode");
        return kiln_fail_err(&err);
    }
    /* The codec caps images at 2^28 pixels, so both sides fit in int32_t
     * and the byte count in size_t, even under WebAssembly. */
    size_t bytes = (size_t)w * (size_t)h * (size_t)channels;
    *width = (int32_t)w;
    *height = (int32_t)h;
    if (needed)
        *needed = bytes;
    if (!pixels && cap == 0)
        return KILN_OK; /* the size query */
    if (!pixels || cap < bytes)
        return kiln_fail(KILN_ERR_BUFFER_TOO_SMALL,
                         "kiln_image_decode: a %lldx%lld image with %d channel(s) needs %zu "
                         "bytes, the buffer has %zu", (long long)w, (long long)h, (int)channels,
                         bytes, pixels ? cap : 0);
    if (kn_image_decode(data, size, channels, pixels, bytes, &err) != KN_OK) {
        kn_err_prefix(&err, "kiln_image_decode");
        return kiln_fail_err(&err);
    }
    return KILN_OK;
}
