#include "v2_decode.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byte_buffer.h"
#include "datatypes.h"
#include "string_tensor.h"

typedef struct {
    const char *bytes; /* the binary part after the JSON */
    size_t length, used;
    size_t json_length;
    char *err;
    size_t cap;
} decoder;

/* Writes the leaves of a (possibly nested) JSON array into t in row-major
 * order; returns the count written, or -1 after setting the error. */
typedef struct {
    sv_tensor *t;
    size_t count, expected;
    sv_string_ref *strings;
    const char *input;
    decoder *d;
} leaf_writer;

static int write_leaves(leaf_writer *w, const cJSON *node)
{
    if (cJSON_IsArray(node)) {
        for (const cJSON *c = node->child; c; c = c->next)
            if (write_leaves(w, c) != 0)
                return -1;
        return 0;
    }
    if (w->count >= w->expected) {
        w->count++; /* counted to report the real total below */
        return 0;
    }
    size_t i = w->count++;
    if (w->t->dtype == KILN_DTYPE_STRING) {
        if (!cJSON_IsString(node)) {
            snprintf(w->d->err, w->d->cap, "input '%s': element %zu is not a string (BYTES)",
                     w->input, i);
            return -1;
        }
        w->strings[i].bytes = node->valuestring;
        w->strings[i].len = strlen(node->valuestring);
        return 0;
    }
    int is_bool = cJSON_IsBool(node);
    if (!cJSON_IsNumber(node) && !is_bool) {
        snprintf(w->d->err, w->d->cap, "input '%s': element %zu is not a number (%s)", w->input, i,
                 sv_datatype_name(w->t->dtype));
        return -1;
    }
    double v = is_bool ? (cJSON_IsTrue(node) ? 1 : 0) : node->valuedouble;
    if (sv_store_element(w->t->dtype, w->t->data, i, v, is_bool) != 0) {
        snprintf(w->d->err, w->d->cap, "input '%s': element %zu (%g) is not a valid %s value",
                 w->input, i, v, sv_datatype_name(w->t->dtype));
        return -1;
    }
    return 0;
}

/* BYTES elements in binary form: each a 4-byte little-endian length, then
 * the bytes. */
static int split_binary_strings(decoder *d, const char *input, const char *bytes, size_t n,
                                sv_string_ref *out, size_t count)
{
    size_t at = 0;
    for (size_t i = 0; i < count; i++) {
        if (n - at < 4) {
            snprintf(d->err, d->cap, "input '%s': binary BYTES data ends inside element %zu's "
                     "length prefix", input, i);
            return -1;
        }
        const unsigned char *p = (const unsigned char *)bytes + at;
        size_t len = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
        at += 4;
        if (len > n - at) {
            snprintf(d->err, d->cap, "input '%s': BYTES element %zu says %zu bytes, only %zu "
                     "are left", input, i, len, n - at);
            return -1;
        }
        out[i].bytes = bytes + at;
        out[i].len = len;
        at += len;
    }
    if (at != n) {
        snprintf(d->err, d->cap, "input '%s': %zu bytes left after %zu BYTES elements", input,
                 n - at, count);
        return -1;
    }
    return 0;
}

static const char *model_dtype_name(int32_t dtype)
{
    const char *n = sv_datatype_name(dtype);
    return n ? n : "a type the protocol cannot carry";
}

/* The position of the input or output called `name` among the model's, or -1. */
static int32_t io_index(const sv_io *list, int32_t count, const char *name)
{
    for (int32_t i = 0; i < count; i++)
        if (strcmp(list[i].name, name) == 0)
            return i;
    return -1;
}

static int decode_input(decoder *d, const sv_model *m, sv_request *r, const cJSON *in,
                        int *seen)
{
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(in, "name"));
    if (!cJSON_IsObject(in) || !name) {
        snprintf(d->err, d->cap, "each entry of \"inputs\" needs a \"name\" string");
        return -1;
    }
    int32_t index = io_index(m->inputs, m->input_count, name);
    if (index < 0) {
        snprintf(d->err, d->cap, "model '%s' has no input '%s'", m->name, name);
        return -1;
    }
    if (seen[index]++) {
        snprintf(d->err, d->cap, "input '%s' is given twice", name);
        return -1;
    }
    const sv_io *io = &m->inputs[index];
    sv_tensor *t = &r->inputs[index];
    const char *dt = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(in, "datatype"));
    t->dtype = sv_datatype_from_name(dt);
    if (!t->dtype) {
        snprintf(d->err, d->cap, "input '%s': unknown datatype '%s' (BOOL, UINT8..UINT64, "
                 "INT8..INT64, FP16, FP32, FP64, BF16, BYTES)", name, dt ? dt : "(missing)");
        return -1;
    }
    if (io->dtype && io->dtype != t->dtype) {
        snprintf(d->err, d->cap, "input '%s' is %s in the model; the request says %s", name,
                 model_dtype_name(io->dtype), dt);
        return -1;
    }
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(in, "shape");
    int rank = cJSON_GetArraySize(shape);
    if (!cJSON_IsArray(shape) || rank > SV_MAX_RANK) {
        snprintf(d->err, d->cap, "input '%s': \"shape\" must be an array of at most %d dims",
                 name, SV_MAX_RANK);
        return -1;
    }
    t->rank = rank;
    int k = 0;
    for (const cJSON *c = shape->child; c; c = c->next, k++) {
        double v = c->valuedouble;
        if (!cJSON_IsNumber(c) || v < 0 || v != (double)(long long)v || v > 1e15) {
            snprintf(d->err, d->cap, "input '%s': shape entry %d is not a whole number >= 0",
                     name, k);
            return -1;
        }
        t->dims[k] = (int64_t)v;
    }
    if (io->rank >= 0 && io->rank != rank) {
        snprintf(d->err, d->cap, "input '%s' has rank %d in the model; the request's shape has "
                 "%d dims", name, (int)io->rank, rank);
        return -1;
    }
    for (int i = 0; io->rank >= 0 && i < rank; i++)
        if (io->dims[i] >= 0 && io->dims[i] != t->dims[i]) {
            snprintf(d->err, d->cap, "input '%s': dim %d is %lld in the model, %lld in the "
                     "request", name, i, (long long)io->dims[i], (long long)t->dims[i]);
            return -1;
        }
    int64_t count = sv_element_count(t->dims, t->rank);
    size_t size = sv_datatype_size(t->dtype);
    if (count < 0 || (size && (uint64_t)count > SIZE_MAX / 2 / size)) {
        snprintf(d->err, d->cap, "input '%s': the shape is too large", name);
        return -1;
    }
    t->nbytes = (size_t)count * size;

    const cJSON *params = cJSON_GetObjectItemCaseSensitive(in, "parameters");
    const cJSON *bsize = cJSON_GetObjectItemCaseSensitive(params, "binary_data_size");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(in, "data");
    if (bsize && data) {
        snprintf(d->err, d->cap, "input '%s' has both \"data\" and binary_data_size", name);
        return -1;
    }
    sv_string_ref *strings = NULL;
    size_t body_left = d->length - d->used;
    if (t->dtype == KILN_DTYPE_STRING) {
        /* A BYTES element takes at least 4 bytes in binary form (its length)
         * and 3 in JSON ("",): a larger count is a lie, refused before
         * allocating for it. */
        if ((bsize && (size_t)count > body_left / 4) ||
            (!bsize && (size_t)count > d->json_length / 3 + 1)) {
            snprintf(d->err, d->cap, "input '%s': its shape means %lld BYTES elements, more "
                     "than the request carries", name, (long long)count);
            return -1;
        }
        strings = calloc((size_t)count + 1, sizeof *strings);
        if (!strings) {
            snprintf(d->err, d->cap, "out of memory");
            return -1;
        }
    } else {
        /* Every byte of a binary input must be in the body, and a JSON input
         * spends at least two bytes of text per element; a larger shape is a
         * lie, refused before allocating for it. */
        if ((!bsize && (size_t)count > d->json_length / 2 + 1) ||
            (bsize && t->nbytes > body_left)) {
            snprintf(d->err, d->cap, "input '%s': its shape means %lld %s elements (%zu bytes), "
                     "more than the request carries", name, (long long)count, dt, t->nbytes);
            return -1;
        }
        t->data = malloc(t->nbytes ? t->nbytes : 1);
        if (!t->data) {
            snprintf(d->err, d->cap, "out of memory for input '%s' (%zu bytes)", name, t->nbytes);
            return -1;
        }
    }
    int rc = 0;
    if (bsize) {
        double v = bsize->valuedouble;
        if (!cJSON_IsNumber(bsize) || v < 0 || v != (double)(long long)v ||
            v > (double)(d->length - d->used)) {
            snprintf(d->err, d->cap, "input '%s': binary_data_size %g is not a byte count "
                     "within the %zu bytes left in the body", name, v, d->length - d->used);
            rc = -1;
        } else if (t->dtype == KILN_DTYPE_STRING) {
            rc = split_binary_strings(d, name, d->bytes + d->used, (size_t)v, strings,
                                      (size_t)count);
            d->used += (size_t)v;
        } else if ((size_t)v != t->nbytes) {
            snprintf(d->err, d->cap, "input '%s': binary_data_size is %zu bytes; its shape "
                     "holds %lld %s elements = %zu bytes", name, (size_t)v, (long long)count, dt,
                     t->nbytes);
            rc = -1;
        } else {
            memcpy(t->data, d->bytes + d->used, t->nbytes);
            d->used += t->nbytes;
        }
    } else if (cJSON_IsArray(data)) {
        leaf_writer w = {t, 0, (size_t)count, strings, name, d};
        rc = write_leaves(&w, data);
        if (rc == 0 && w.count != (size_t)count) {
            snprintf(d->err, d->cap, "input '%s': \"data\" has %zu elements; shape needs %lld",
                     name, w.count, (long long)count);
            rc = -1;
        }
    } else {
        snprintf(d->err, d->cap, "input '%s' needs \"data\" (an array) or parameters."
                 "binary_data_size", name);
        rc = -1;
    }
    if (rc == 0 && strings) {
        t->strings = sv_string_tensor(t->dims, t->rank, strings, (size_t)count);
        if (!t->strings) {
            char why[300];
            kiln_last_error(why, sizeof why);
            snprintf(d->err, d->cap, "input '%s': %s", name, why);
            rc = -1;
        }
    }
    free(strings);
    return rc;
}

static int flag(const cJSON *params, const char *key, int fallback)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, key);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : fallback;
}

static int decode_outputs(decoder *d, const sv_model *m, sv_request *r, const cJSON *root)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "parameters");
    int all_binary = flag(params, "binary_data_output", 0);
    const cJSON *outs = cJSON_GetObjectItemCaseSensitive(root, "outputs");
    if (!outs) {
        for (int32_t o = 0; o < m->output_count; o++) {
            r->output_wanted[o] = 1;
            r->output_binary[o] = (uint8_t)all_binary;
            r->output_order[r->wanted_count++] = o;
        }
        return 0;
    }
    if (!cJSON_IsArray(outs)) {
        snprintf(d->err, d->cap, "\"outputs\" must be an array");
        return -1;
    }
    for (const cJSON *o = outs->child; o; o = o->next) {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "name"));
        if (!name) {
            snprintf(d->err, d->cap, "each entry of \"outputs\" needs a \"name\" string");
            return -1;
        }
        int32_t index = io_index(m->outputs, m->output_count, name);
        if (index < 0) {
            snprintf(d->err, d->cap, "model '%s' has no output '%s'", m->name, name);
            return -1;
        }
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(o, "parameters");
        if (cJSON_GetObjectItemCaseSensitive(op, "classification")) {
            snprintf(d->err, d->cap, "output '%s': the classification extension is not "
                     "supported", name);
            return -1;
        }
        if (r->output_wanted[index])
            continue;
        r->output_wanted[index] = 1;
        r->output_binary[index] = (uint8_t)flag(op, "binary_data", all_binary);
        r->output_order[r->wanted_count++] = index;
    }
    return 0;
}

sv_request *sv_decode_infer(const sv_model *m, const char *body, size_t length,
                            long long header_length, char *err, size_t cap)
{
    decoder d = {0};
    d.err = err;
    d.cap = cap;
    size_t json_length = length;
    if (header_length >= 0) {
        if ((unsigned long long)header_length > length) {
            snprintf(err, cap, "Inference-Header-Content-Length is %lld; the body has %zu bytes",
                     header_length, length);
            return NULL;
        }
        json_length = (size_t)header_length;
    }
    d.json_length = json_length;
    d.bytes = body + json_length;
    d.length = length - json_length;
    /* JSON text is UTF-8 (RFC 8259); cJSON passes any bytes through, and
     * they would come back in ids and messages. */
    for (size_t at = 0; at < json_length;) {
        size_t n = sv_utf8_sequence((const unsigned char *)body + at, json_length - at);
        if (n == 0) {
            snprintf(err, cap, "the request's JSON is not valid UTF-8 (byte %zu)", at);
            return NULL;
        }
        at += n;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(body, json_length, &end, 0);
    if (!cJSON_IsObject(root)) {
        size_t at = root || !cJSON_GetErrorPtr() ? 0 : (size_t)(cJSON_GetErrorPtr() - body);
        if (root || !cJSON_GetErrorPtr())
            snprintf(err, cap, "the request is not a JSON object");
        else
            snprintf(err, cap, "the request is not a JSON object (malformed at byte %zu)", at);
        cJSON_Delete(root);
        return NULL;
    }
    while (end && end < body + json_length && (*end == ' ' || *end == '\t' || *end == '\n' ||
                                               *end == '\r'))
        end++;
    if (end && end < body + json_length) {
        snprintf(err, cap, "the request has %zu bytes after its JSON object (at byte %zu); "
                 "binary tensor data needs the Inference-Header-Content-Length header",
                 (size_t)(body + json_length - end), (size_t)(end - body));
        cJSON_Delete(root);
        return NULL;
    }
    sv_request *r = sv_request_new(m->input_count, m->output_count);
    int *seen = calloc((size_t)m->input_count + 1, sizeof *seen);
    int ok = r && seen;
    if (!ok)
        snprintf(err, cap, "out of memory");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");
    if (ok && id) {
        if (!cJSON_IsString(id)) {
            snprintf(err, cap, "\"id\" must be a string");
            ok = 0;
        } else {
            r->id = strdup(id->valuestring);
        }
    }
    const cJSON *inputs = cJSON_GetObjectItemCaseSensitive(root, "inputs");
    if (ok && !cJSON_IsArray(inputs)) {
        snprintf(err, cap, "the request needs an \"inputs\" array");
        ok = 0;
    }
    for (const cJSON *in = ok ? inputs->child : NULL; in && ok; in = in->next)
        ok = decode_input(&d, m, r, in, seen) == 0;
    for (int32_t i = 0; ok && i < m->input_count; i++)
        if (!seen[i]) {
            snprintf(err, cap, "input '%s' is missing (model '%s' takes %d input%s)",
                     m->inputs[i].name, m->name, (int)m->input_count,
                     m->input_count == 1 ? "" : "s");
            ok = 0;
        }
    if (ok && d.used != d.length) {
        snprintf(err, cap, "the body has %zu bytes after the JSON; the inputs' "
                 "binary_data_size add up to %zu", d.length, d.used);
        ok = 0;
    }
    if (ok)
        ok = decode_outputs(&d, m, r, root) == 0;
    cJSON_Delete(root);
    free(seen);
    if (!ok) {
        sv_request_free(r);
        return NULL;
    }
    /* Rows, for dynamic batching: the first dim, when every input agrees. */
    r->batch = 0;
    if (m->batchable) {
        r->batch = r->inputs[0].dims[0];
        for (int32_t i = 1; i < m->input_count; i++)
            if (r->inputs[i].dims[0] != r->batch)
                r->batch = 0;
    }
    return r;
}
