/* `kiln run --image`: see image_input.h. */
#include "image_input.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "util.h"

void image_usage(FILE *out)
{
    fprintf(out, "  --image [NAME=]FILE      an image (PNG, JPEG, WebP, JPEG 2000, BMP, PNM,\n"
                 "                           TIFF) as float input NAME (default: the first\n"
                 "                           rank-4 float input no -i gave), shape [1, C, H, W]:\n"
                 "                           decoded, resized bilinearly, then per channel\n"
                 "                           (pixel / scale - mean) / std (repeatable)\n");
    image_prep_usage(out);
}

void image_prep_usage(FILE *out)
{
    fprintf(out, "  --size WxH               resize to W x H (default: the input's declared H\n"
                 "                           and W, else the image's own size)\n"
                 "  --layout nchw|nhwc       [1, C, H, W] or [1, H, W, C] (default: nhwc when\n"
                 "                           the input's last dim, not its second, is 1 or 3)\n"
                 "  --bgr                    channels in B, G, R order (default R, G, B; a\n"
                 "                           1-channel input gets luma)\n"
                 "  --mean A[,B,C]           subtracted per channel after scaling (default 0)\n"
                 "  --std A[,B,C]            divides per channel after the mean (default 1)\n"
                 "  --scale 255|1            255: pixels become 0..1 before mean/std (the\n"
                 "                           default; ImageNet's 0.485,0.456,0.406 fit it);\n"
                 "                           1: pixels stay 0..255\n");
}

/* "a" or "a,b,c" into values; returns the count (1 or 3) or -1. */
static int parse_floats(const char *text, float values[3])
{
    int n = 0;
    const char *p = text;
    for (;;) {
        char *end = NULL;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno || n == 3)
            return -1;
        values[n++] = (float)v;
        if (*end == 0)
            return n == 1 || n == 3 ? n : -1;
        if (*end != ',')
            return -1;
        p = end + 1;
    }
}

static int parse_size(const char *text, int *w, int *h)
{
    char *end = NULL;
    long a = strtol(text, &end, 10);
    if (end == text || (*end != 'x' && *end != 'X'))
        return -1;
    const char *rest = end + 1;
    long b = strtol(rest, &end, 10);
    if (end == rest || *end || a <= 0 || b <= 0 || a > 65536 || b > 65536)
        return -1;
    *w = (int)a;
    *h = (int)b;
    return 0;
}

int image_parse_option(int argc, char **argv, int *i, image_options *o)
{
    const char *v = NULL;
    int m;
    if ((m = arg_value(argc, argv, i, "--image", NULL, &v)) != 0) {
        if (m < 0)
            return -1;
        if (o->count == o->cap) {
            int cap = o->cap ? 2 * o->cap : 4;
            const char **specs = realloc(o->specs, (size_t)cap * sizeof *specs);
            if (!specs) {
                cli_error("out of memory");
                return -1;
            }
            o->specs = specs;
            o->cap = cap;
        }
        o->specs[o->count++] = v;
        return 1;
    }
    return image_parse_prep_option(argc, argv, i, o);
}

int image_parse_prep_option(int argc, char **argv, int *i, image_options *o)
{
    const char *v = NULL;
    int m;
    if (strcmp(argv[*i], "--bgr") == 0) {
        o->bgr = 1;
        return 1;
    }
    if ((m = arg_value(argc, argv, i, "--size", NULL, &v)) != 0) {
        if (m < 0 || parse_size(v, &o->width, &o->height) != 0) {
            cli_error("--size needs WIDTHxHEIGHT, e.g. 224x224");
            return -1;
        }
        return 1;
    }
    if ((m = arg_value(argc, argv, i, "--layout", NULL, &v)) != 0) {
        if (m < 0 || (strcmp(v, "nchw") != 0 && strcmp(v, "nhwc") != 0)) {
            cli_error("--layout is nchw or nhwc");
            return -1;
        }
        o->layout = strcmp(v, "nchw") == 0 ? IMAGE_LAYOUT_NCHW : IMAGE_LAYOUT_NHWC;
        return 1;
    }
    if ((m = arg_value(argc, argv, i, "--mean", NULL, &v)) != 0) {
        if (m < 0 || (o->mean_count = parse_floats(v, o->mean)) < 0) {
            cli_error("--mean needs one number or three separated by commas");
            return -1;
        }
        return 1;
    }
    if ((m = arg_value(argc, argv, i, "--std", NULL, &v)) != 0) {
        if (m < 0 || (o->std_count = parse_floats(v, o->std)) < 0) {
            cli_error("--std needs one number or three separated by commas");
            return -1;
        }
        return 1;
    }
    if ((m = arg_value(argc, argv, i, "--scale", NULL, &v)) != 0) {
        if (m < 0 || (strcmp(v, "255") != 0 && strcmp(v, "1") != 0)) {
            cli_error("--scale is 255 (pixels / 255) or 1 (pixels as they are)");
            return -1;
        }
        o->raw_scale = strcmp(v, "1") == 0;
        return 1;
    }
    return 0;
}

/* The input an image feeds: NAME, else the first unbound rank-4 float
 * input. Returns the index or -1 after printing why. */
int image_input_fits(const kiln_model *model, int32_t index)
{
    int32_t dtype = 0;
    shape s = {-1, NULL};
    kiln_model_input_dtype(model, index, &dtype);
    model_input_shape(model, index, &s);
    int fits = dtype == KILN_DTYPE_FLOAT && (s.rank == 4 || s.rank == -1);
    shape_free(&s);
    return fits;
}

/* The input an image feeds: NAME, else the first unbound rank-4 float
 * input. Returns the index or -1 after printing why. */
static int32_t find_input(const kiln_model *model, const char *name, const char *path,
                          const char *bound)
{
    int32_t count = 0;
    kiln_model_input_count(model, &count);
    for (int32_t i = 0; i < count; i++) {
        char *input = model_input_name(model, i, NULL);
        int match = 0;
        if (name) {
            match = input && strcmp(input, name) == 0;
        } else if (!bound[i]) {
            int32_t dtype = 0;
            shape s = {-1, NULL};
            kiln_model_input_dtype(model, i, &dtype);
            model_input_shape(model, i, &s);
            match = dtype == KILN_DTYPE_FLOAT && s.rank == 4;
            shape_free(&s);
        }
        free(input);
        if (match)
            return i;
    }
    if (name)
        cli_error("--image %s=%s: the model has no input '%s'", name, path, name);
    else
        cli_error("--image %s: no float input of rank 4 is left to feed (name one with "
                  "--image NAME=FILE)",
                  path);
    return -1;
}

/* The tensor's layout, channels and size from the input's declared shape
 * and the options. Returns 0, or -1 after printing why (the message starts
 * with the image's path). */
static int plan_tensor(const kiln_model *model, int32_t index, const image_options *o,
                       int32_t image_w, int32_t image_h, const char *path, int *nhwc, int32_t *c,
                       int32_t *h, int32_t *w)
{
    int32_t dtype = 0;
    shape s = {-1, NULL};
    kiln_model_input_dtype(model, index, &dtype);
    model_input_shape(model, index, &s);
    char *name = model_input_name(model, index, NULL);
    int rc = -1;
    int64_t d[4] = {-1, -1, -1, -1};
    if (s.rank == 4)
        memcpy(d, s.dims, sizeof d);
    int auto_nhwc = !(d[1] == 1 || d[1] == 3) && (d[3] == 1 || d[3] == 3);
    *nhwc = o->layout == IMAGE_LAYOUT_NHWC || (o->layout == IMAGE_LAYOUT_AUTO && auto_nhwc);
    int64_t dc = *nhwc ? d[3] : d[1], dh = *nhwc ? d[1] : d[2], dw = *nhwc ? d[2] : d[3];
    *c = dc > 0 ? (int32_t)dc : 3;
    *h = o->height ? o->height : dh > 0 ? (int32_t)dh : image_h;
    *w = o->width ? o->width : dw > 0 ? (int32_t)dw : image_w;
    if (dtype != KILN_DTYPE_FLOAT || (s.rank != 4 && s.rank != -1))
        cli_error("%s: input '%s' is %s of rank %d; an image feeds a float32 tensor of rank 4",
                  path, name ? name : "?", dtype_name(dtype), (int)s.rank);
    else if (*c != 1 && *c != 3)
        cli_error("%s: input '%s' has %d channels; an image gives 1 or 3 (wrong --layout?)", path,
                  name ? name : "?", (int)*c);
    else if (d[0] > 1)
        cli_error("%s: input '%s' wants a batch of %lld; an image is a batch of 1", path,
                  name ? name : "?", (long long)d[0]);
    else if ((o->mean_count == 3 || o->std_count == 3) && *c == 1)
        cli_error("%s: input '%s' has one channel; give --mean and --std one value", path,
                  name ? name : "?");
    else
        rc = 0;
    free(name);
    shape_free(&s);
    return rc;
}

/* Per-channel mean and std in the units kiln_image_to_tensor uses
 * (pixel / 255): with --scale 1 the values given are in pixel units. */
static void normalisation(const image_options *o, int32_t channels, float mean[3], float std[3])
{
    float unit = o->raw_scale ? 255.0f : 1.0f;
    for (int k = 0; k < channels; k++) {
        mean[k] = (o->mean_count ? o->mean[o->mean_count == 3 ? k : 0] : 0.0f) / unit;
        std[k] = (o->std_count ? o->std[o->std_count == 3 ? k : 0] : 1.0f) / unit;
    }
}

/* [1, C, H, W] to [1, H, W, C] in a new buffer. */
static float *to_nhwc(const float *nchw, int32_t c, int32_t h, int32_t w)
{
    float *out = malloc((size_t)c * (size_t)h * (size_t)w * sizeof *out);
    if (out)
        for (int32_t k = 0; k < c; k++)
            for (size_t i = 0; i < (size_t)h * (size_t)w; i++)
                out[i * (size_t)c + (size_t)k] = nchw[(size_t)k * (size_t)h * (size_t)w + i];
    return out;
}

/* The file's pixels as 8-bit RGB (malloc'd), or NULL after printing why. */
static uint8_t *decode_file(const char *path, int32_t *width, int32_t *height)
{
    size_t size = 0, needed = 0;
    uint8_t *pixels = NULL;
    int32_t status = KILN_OK;
    void *bytes = read_file(path, &size);
    if (!bytes) {
        cli_error("cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    if ((status = kiln_image_decode(bytes, size, 3, NULL, 0, &needed, width, height)) != KILN_OK)
        report_error("cannot decode", path, status);
    else if (!(pixels = malloc(needed ? needed : 1)))
        cli_error("out of memory for %s", path);
    else if ((status = kiln_image_decode(bytes, size, 3, pixels, needed, NULL, width, height)) !=
             KILN_OK) {
        report_error("cannot decode", path, status);
        free(pixels);
        pixels = NULL;
    }
    free(bytes);
    return pixels;
}

/* Decoded pixels to the input's tensor (see image_load_input). */
static float *convert(const kiln_model *model, int32_t index, const image_options *o,
                      const char *path, const uint8_t *pixels, int32_t iw, int32_t ih,
                      int64_t dims[4], size_t *nbytes)
{
    int nhwc = 0;
    int32_t c = 0, h = 0, w = 0, status;
    if (plan_tensor(model, index, o, iw, ih, path, &nhwc, &c, &h, &w) != 0)
        return NULL;
    size_t floats = (size_t)c * (size_t)h * (size_t)w;
    float mean[3], std[3];
    normalisation(o, c, mean, std);
    float *nchw = malloc(floats * sizeof *nchw);
    if (!nchw) {
        cli_error("out of memory for %s", path);
        return NULL;
    }
    if ((status = kiln_image_to_tensor(pixels, iw, ih, iw * 3, 3, w, h, c, mean, std,
                                       o->bgr ? KILN_IMAGE_BGR : 0, nchw, floats * sizeof *nchw)) !=
        KILN_OK) {
        report_error("cannot convert", path, status);
        free(nchw);
        return NULL;
    }
    if (nhwc) {
        float *t = to_nhwc(nchw, c, h, w);
        free(nchw);
        if (!(nchw = t)) {
            cli_error("out of memory for %s", path);
            return NULL;
        }
    }
    dims[0] = 1;
    dims[1] = nhwc ? h : c;
    dims[2] = nhwc ? w : h;
    dims[3] = nhwc ? c : w;
    *nbytes = floats * sizeof *nchw;
    return nchw;
}

float *image_load_input(const kiln_model *model, int32_t index, const image_options *o,
                        const char *path, int64_t dims[4], size_t *nbytes)
{
    int32_t iw = 0, ih = 0;
    uint8_t *pixels = decode_file(path, &iw, &ih);
    float *tensor = pixels ? convert(model, index, o, path, pixels, iw, ih, dims, nbytes) : NULL;
    free(pixels);
    return tensor;
}

/* One --image: decoded, converted and bound. *tensor keeps the floats the
 * session borrows. */
static int bind_one(const kiln_model *model, kiln_session *session, const image_options *o,
                    const char *spec, char *bound, float **tensor)
{
    char *name = NULL;
    const char *path = NULL;
    parse_name_file(spec, &name, &path);
    int32_t iw = 0, ih = 0, index = -1, status;
    int64_t dims[4];
    size_t nbytes = 0;
    float *data = NULL;
    int rc = -1;
    /* Decoded first: an unreadable file is the first thing to report. */
    uint8_t *pixels = decode_file(path, &iw, &ih);
    if (pixels && (index = find_input(model, name, path, bound)) >= 0) {
        if (bound[index]) {
            char *input = model_input_name(model, index, NULL);
            cli_error("--image %s: input '%s' is given more than once", path, input ? input : "?");
            free(input);
        } else if ((data = convert(model, index, o, path, pixels, iw, ih, dims, &nbytes))) {
            if ((status = kiln_session_set_input_at(session, index, KILN_DTYPE_FLOAT, dims, 4, data,
                                                    nbytes, 0)) != KILN_OK) {
                report_error("cannot bind", path, status);
                free(data);
            } else {
                bound[index] = 1;
                *tensor = data;
                rc = 0;
            }
        }
    }
    free(pixels);
    free(name);
    return rc;
}

/* Frees the tensors of an earlier image_bind_inputs. */
static void free_tensors(image_options *o)
{
    for (int k = 0; o->tensors && k < o->count; k++)
        free(o->tensors[k]);
    free(o->tensors);
    o->tensors = NULL;
}

int image_bind_inputs(const kiln_model *model, kiln_session *session, image_options *o, char *bound)
{
    if (o->count == 0)
        return 0;
    free_tensors(o);
    if (!(o->tensors = calloc((size_t)o->count, sizeof *o->tensors))) {
        cli_error("out of memory");
        return -1;
    }
    for (int k = 0; k < o->count; k++)
        if (bind_one(model, session, o, o->specs[k], bound, &o->tensors[k]) != 0)
            return -1;
    return 0;
}

void image_options_free(image_options *o)
{
    free_tensors(o);
    free(o->specs);
}
