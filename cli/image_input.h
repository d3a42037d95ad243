/* `kiln run --image [NAME=]FILE`: an image file (PNG, JPEG, WebP, JPEG
 * 2000, BMP, PNM, TIFF) decoded, resized and normalized into a float
 * input of shape [1, C, H, W] (or [1, H, W, C]), through the public API
 * (kiln_image_decode, kiln_image_to_tensor) only. cmd_run.c and cmd_diff.c
 * parse the options through image_parse_option and bind through
 * image_bind_inputs; `kiln quantize --calib-images` shares the
 * preprocessing options and image_load_input, so an image becomes the same
 * tensor in calibration as in `kiln run`. */
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

/* The options' lines for `kiln run --help`: --image, then
 * image_prep_usage's. */
void image_usage(FILE *out);
/* The preprocessing options' lines (--size, --layout, --bgr, --mean, --std,
 * --scale), for every command that turns images into inputs. */
void image_prep_usage(FILE *out);

/* Matches argv[*i] against --image and the preprocessing options (advancing
 * *i past a value). Returns 1 if it was one, 0 if not, -1 on a bad value
 * (printed). */
int image_parse_option(int argc, char **argv, int *i, image_options *o);
/* The same for the preprocessing options only. */
int image_parse_prep_option(int argc, char **argv, int *i, image_options *o);

/* 1 when input `index` can take an image: a float input of rank 4 (or of
 * unknown rank). */
int image_input_fits(const kiln_model *model, int32_t index);

/* Decodes the image file at path and converts it for input `index` as the
 * options say: a malloc'd float tensor of shape dims (rank 4), nbytes
 * bytes. Returns NULL after printing why, naming the file (and the
 * decoder's reason) or the input. */
float *image_load_input(const kiln_model *model, int32_t index, const image_options *o,
                        const char *path, int64_t dims[4], size_t *nbytes);

/* Decodes, converts and binds each --image to its input (the input NAME,
 * else the first input not yet bound in bound[] that is a float tensor of
 * rank 4), marking bound[index]. The session borrows the tensors, which o
 * keeps until image_options_free or the next call (so each of several
 * sessions can be bound in turn, each run before the next is bound).
 * Returns 0, or -1 after printing why. */
int image_bind_inputs(const kiln_model *model, kiln_session *session, image_options *o,
                      char *bound);

void image_options_free(image_options *o);

#endif
