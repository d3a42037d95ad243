/* kiln_image_to_tensor: values worked out by hand on tiny images (half-pixel
 * bilinear resize as ONNX Resize defines it), channel orders, normalisation,
 * row strides, and every argument error. */
#include <math.h>
#include <string.h>

#include "api_helpers.h"

#define TOL 1e-6f

/* Runs the conversion into out (n floats) and asserts success. */
static void convert(const uint8_t *px, int32_t w, int32_t h, int32_t stride, int32_t ch,
                    int32_t ow, int32_t oh, int32_t oc, const float *mean, const float *std,
                    int32_t flags, float *out, size_t n)
{
    KT_OK(kiln_image_to_tensor(px, w, h, stride, ch, ow, oh, oc, mean, std, flags, out,
                               n * sizeof(float)));
}

static void expect_values(const float *got, const float *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cr_expect(fabsf(got[i] - want[i]) <= TOL * fmaxf(1.0f, fabsf(want[i])),
                  "element %zu: got %.9g, expected %.9g", i, got[i], want[i]);
}

Test(image_prep, identity_resize_copies_pixels)
{
    const uint8_t px[] = {0, 51, 102, 255, 17, 200};
    float out[6];
    convert(px, 3, 2, 3, 1, 3, 2, 1, NULL, NULL, 0, out, 6);
    const float want[] = {0.0f, 0.2f, 0.4f, 1.0f, 17 / 255.0f, 200 / 255.0f};
    expect_values(out, want, 6);
}

Test(image_prep, upscale_uses_half_pixel_centres_and_clamps_edges)
{
    /* Output x reads source x' = (x + 0.5) * 2 / 4 - 0.5 = -0.25, 0.25, 0.75,
     * 1.25; the ends clamp to the edge pixels. */
    const uint8_t px[] = {0, 255};
    float out[4];
    convert(px, 2, 1, 2, 1, 4, 1, 1, NULL, NULL, 0, out, 4);
    const float want[] = {0.0f, 0.25f, 0.75f, 1.0f};
    expect_values(out, want, 4);
}

Test(image_prep, upscale_in_two_dimensions)
{
    /* 2x2 -> 3x3: source coordinates -1/6 (clamped to 0), 0.5, 7/6 (to 1). */
    const uint8_t px[] = {0, 100, 200, 255};
    float out[9];
    convert(px, 2, 2, 2, 1, 3, 3, 1, NULL, NULL, 0, out, 9);
    const float want[] = {0, 50, 100, 100, 138.75f, 177.5f, 200, 227.5f, 255};
    float scaled[9];
    for (int i = 0; i < 9; i++)
        scaled[i] = want[i] / 255.0f;
    expect_values(out, scaled, 9);
}

Test(image_prep, downscale_by_two_averages_blocks)
{
    /* 4x4 -> 2x2: x' = 2x + 0.5, halfway between two source pixels in each
     * axis, so every output is the mean of a 2x2 block (no antialiasing). */
    const uint8_t px[] = {0,  10, 100, 110,
                          20, 30, 120, 130,
                          40, 40, 255, 255,
                          80, 80, 255, 0};
    float out[4];
    convert(px, 4, 4, 4, 1, 2, 2, 1, NULL, NULL, 0, out, 4);
    const float want[] = {15 / 255.0f, 115 / 255.0f, 60 / 255.0f, 191.25f / 255.0f};
    expect_values(out, want, 4);
}

Test(image_prep, downscale_by_three_takes_the_centre)
{
    /* 3x3 -> 1x1: x' = 0.5 * 3 - 0.5 = 1, exactly the middle pixel. */
    const uint8_t px[] = {9, 9, 9, 9, 204, 9, 9, 9, 9};
    float out[1];
    convert(px, 3, 3, 3, 1, 1, 1, 1, NULL, NULL, 0, out, 1);
    expect_values(out, (const float[]){0.8f}, 1);
}

Test(image_prep, rgb_bgr_and_luma_orders)
{
    const uint8_t px[] = {255, 51, 0, 102, 0, 255}; /* two RGB pixels */
    float out[6];
    convert(px, 2, 1, 6, 3, 2, 1, 3, NULL, NULL, 0, out, 6);
    const float rgb[] = {1.0f, 0.4f, 0.2f, 0.0f, 0.0f, 1.0f}; /* planes R, G, B */
    expect_values(out, rgb, 6);
    convert(px, 2, 1, 6, 3, 2, 1, 3, NULL, NULL, KILN_IMAGE_BGR, out, 6);
    const float bgr[] = {0.0f, 1.0f, 0.2f, 0.0f, 1.0f, 0.4f};
    expect_values(out, bgr, 6);
    convert(px, 2, 1, 6, 3, 2, 1, 1, NULL, NULL, 0, out, 2);
    const float luma[] = {0.299f + 0.587f * 0.2f, 0.299f * 0.4f + 0.114f};
    expect_values(out, luma, 2);
}

Test(image_prep, alpha_is_ignored_and_gray_is_repeated)
{
    const uint8_t rgba[] = {255, 51, 0, 7, 255, 51, 0, 250};
    float out[6];
    convert(rgba, 2, 1, 8, 4, 2, 1, 3, NULL, NULL, 0, out, 6);
    const float want[] = {1.0f, 1.0f, 0.2f, 0.2f, 0.0f, 0.0f};
    expect_values(out, want, 6);
    const uint8_t gray[] = {51, 255};
    convert(gray, 2, 1, 2, 1, 2, 1, 3, NULL, NULL, KILN_IMAGE_BGR, out, 6);
    const float repeated[] = {0.2f, 1.0f, 0.2f, 1.0f, 0.2f, 1.0f};
    expect_values(out, repeated, 6);
}

Test(image_prep, mean_and_std_per_channel)
{
    const uint8_t px[] = {255, 51, 0};
    const float mean[] = {0.485f, 0.456f, 0.406f}, std[] = {0.229f, 0.224f, 0.225f};
    float out[3];
    convert(px, 1, 1, 3, 3, 1, 1, 3, mean, std, 0, out, 3);
    const float want[] = {(1.0f - 0.485f) / 0.229f, (0.2f - 0.456f) / 0.224f,
                          (0.0f - 0.406f) / 0.225f};
    expect_values(out, want, 3);
    /* With BGR the mean/std entries follow the output channels. */
    convert(px, 1, 1, 3, 3, 1, 1, 3, mean, std, KILN_IMAGE_BGR, out, 3);
    const float want_bgr[] = {(0.0f - 0.485f) / 0.229f, (0.2f - 0.456f) / 0.224f,
                              (1.0f - 0.406f) / 0.225f};
    expect_values(out, want_bgr, 3);
}

Test(image_prep, row_padding_is_never_read)
{
    /* Rows of 2 gray pixels, 4 bytes apart; the padding holds 99s that
     * would show up in any output that read them. */
    const uint8_t px[] = {0, 255, 99, 99, 255, 0, 99, 99};
    float out[9];
    convert(px, 2, 2, 4, 1, 3, 3, 1, NULL, NULL, 0, out, 9);
    const float want[] = {0, 0.5f, 1, 0.5f, 0.5f, 0.5f, 1, 0.5f, 0};
    expect_values(out, want, 9);
}

Test(image_prep, argument_errors)
{
    const uint8_t px[12] = {0};
    float out[12];
    const size_t nb = sizeof out;
    const float bad_std[] = {1.0f, 0.0f, 1.0f}, nan_mean[] = {0.0f, NAN, 0.0f};
#define FAILS(...) KT_FAILS(kiln_image_to_tensor(__VA_ARGS__), KILN_ERR_INVALID_ARGUMENT)
    FAILS(NULL, 2, 2, 6, 3, 2, 2, 3, NULL, NULL, 0, out, nb);
    FAILS(px, 2, 2, 6, 3, 2, 2, 3, NULL, NULL, 0, NULL, nb);
    FAILS(px, 0, 2, 6, 3, 2, 2, 3, NULL, NULL, 0, out, nb);
    FAILS(px, 2, -1, 6, 3, 2, 2, 3, NULL, NULL, 0, out, nb);
    FAILS(px, 2, 2, 6, 2, 2, 2, 3, NULL, NULL, 0, out, nb);   /* 2 channels */
    FAILS(px, 2, 2, 6, 5, 2, 2, 3, NULL, NULL, 0, out, nb);   /* 5 channels */
    FAILS(px, 2, 2, 5, 3, 2, 2, 3, NULL, NULL, 0, out, nb);   /* stride < 6 */
    FAILS(px, 2, 2, -6, 3, 2, 2, 3, NULL, NULL, 0, out, nb);  /* negative stride */
    FAILS(px, 2, 2, 6, 3, 0, 2, 3, NULL, NULL, 0, out, nb);
    FAILS(px, 2, 2, 6, 3, 2, 0, 3, NULL, NULL, 0, out, nb);
    FAILS(px, 2, 2, 6, 3, 2, 2, 4, NULL, NULL, 0, out, nb);   /* 4 out channels */
    FAILS(px, 2, 2, 6, 3, 2, 2, 2, NULL, NULL, 0, out, nb);
    FAILS(px, 2, 2, 6, 3, 2, 2, 3, NULL, NULL, 0, out, nb - 4); /* out_bytes */
    FAILS(px, 2, 2, 6, 3, 2, 2, 3, NULL, NULL, 0, out, nb + 4);
    FAILS(px, 2, 2, 6, 3, 2, 2, 3, NULL, NULL, 4, out, nb);   /* unknown flag */
    FAILS(px, 2, 2, 6, 3, 2, 2, 3, NULL, bad_std, 0, out, nb);
    FAILS(px, 2, 2, 6, 3, 2, 2, 3, nan_mean, NULL, 0, out, nb);
    /* Sizes whose byte count overflows: refused, never written. */
    FAILS(px, 2, 2, 6, 3, INT32_MAX, INT32_MAX, 3, NULL, NULL, 0, out, nb);
#undef FAILS
    char msg[256];
    kiln_image_to_tensor(px, 2, 2, 6, 3, 2, 2, 3, NULL, bad_std, 0, out, nb);
    kiln_last_error(msg, sizeof msg);
    cr_expect(strstr(msg, "std[1] is 0") != NULL, "message: %s", msg);
    kiln_image_to_tensor(px, 2, 2, 6, 3, 2, 2, 3, NULL, NULL, 0, out, nb - 4);
    kiln_last_error(msg, sizeof msg);
    cr_expect(strstr(msg, "needs 48") != NULL, "message: %s", msg);
    /* The std check covers only the output channels in use. */
    convert(px, 2, 2, 6, 3, 2, 2, 1, NULL, (const float[]){2.0f}, 0, out, 4);
}
