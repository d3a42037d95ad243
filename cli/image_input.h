/* `kiln run --image [NAME=]FILE`: an image file (PNG, JPEG, WebP, JPEG
 * 2000, BMP, PNM, TIFF) decoded, resized and normalized into a float
 * input of shape [1, C, H, W] (or [1, H, W, C]), through the public API
 * (kiln_image_decode, kiln_image_to_tensor) only. cmd_run.c parses the
 * options through image_parse_option and binds through image_bind_inputs. */
#ifndef KILN_CLI_IMAGE_INPUT_H
#define KILN_CLI_IMAGE_INPUT_H

#include <stdio.h>

#include "kiln.h"

typedef struct image_options {
    const char **specs; /* each --image argument, [NAME=]FILE */
    int count, cap;
    int width, height; /* --size WxH; 0: the model's H and W (else the image's) */
    int layout;        /* IMAGE_LAYOUT_* */
    int bgr;           /* --bgr */
    float mean[3], std[3];
    int mean_count, std_count; /* 0: not given (0 and 1); 1 or 3 values */
    int raw_scale;             /* --scale 1: pixels stay 0..255 (default 255: divided by 255) */
    float **tensors;           /* bound inputs, kept until the run returns */
} image_options;

enum { IMAGE_LAYOUT_AUTO, IMAGE_LAYOUT_NCHW, IMAGE_LAYOUT_NHWC };

/* The options' lines for `kiln run --help`. */
void image_usage(FILE *out);

/* Matches argv[*i] against the image options (advancing *i past a value).
 * Returns 1 if it was one, 0 if not, -1 on a bad value (printed). */
int image_parse_option(int argc, char **argv, int *i, image_options *o);

/* Decodes, converts and binds each --image to its input (the input NAME,
 * else the first input not yet bound in bound[] that is a float tensor of
 * rank 4), marking bound[index]. Returns 0, or -1 after printing why. */
int image_bind_inputs(const kiln_model *model, kiln_session *session, image_options *o,
                      char *bound);

void image_options_free(image_options *o);

#endif
