/* image_ref: runs the native kiln_image_to_tensor on one case read from
 * stdin and writes the floats to stdout, so the WebAssembly build's
 * results can be compared with the native library's.
 *
 * stdin: 10 little-endian int32 (width, height, stride, channels,
 * out_width, out_height, out_channels, flags, has_mean, has_std), then
 * stride * height pixel bytes, then out_channels floats of mean and of std
 * when present. stdout: out_channels * out_height * out_width floats.
 * Exit status 2 with the library's message on stderr when the call fails. */
#include <stdio.h>
#include <stdlib.h>

#include "kiln.h"

int main(void)
{
    int32_t h[10];
    if (fread(h, sizeof h[0], 10, stdin) != 10) {
        fprintf(stderr, "image_ref: short header\n");
        return 1;
    }
    size_t in_bytes = (size_t)h[2] * (size_t)h[1];
    size_t count = (size_t)h[4] * (size_t)h[5] * (size_t)h[6];
    uint8_t *pixels = malloc(in_bytes ? in_bytes : 1);
    float *out = malloc(count * sizeof(float) + 1);
    float mean[3], std[3];
    if (!pixels || !out || fread(pixels, 1, in_bytes, stdin) != in_bytes ||
        h[6] < 1 || h[6] > 3 ||
        (h[8] && fread(mean, sizeof(float), (size_t)h[6], stdin) != (size_t)h[6]) ||
        (h[9] && fread(std, sizeof(float), (size_t)h[6], stdin) != (size_t)h[6])) {
        fprintf(stderr, "image_ref: bad input\n");
        return 1;
    }
    int32_t rc = kiln_image_to_tensor(pixels, h[0], h[1], h[2], h[3], h[4], h[5], h[6],
                                      h[8] ? mean : NULL, h[9] ? std : NULL, h[7], out,
                                      count * sizeof(float));
    if (rc != KILN_OK) {
        char msg[256];
        kiln_last_error(msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
        return 2;
    }
    fwrite(out, sizeof(float), count, stdout);
    free(pixels);
    free(out);
    return 0;
}
