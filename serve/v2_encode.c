#include "v2_encode.h"

#include <stdlib.h>
#include <string.h>

#include "datatypes.h"

static void put_shape(sv_buffer *out, const int64_t *dims, int32_t rank)
{
    sv_buffer_puts(out, "[");
    for (int32_t d = 0; d < rank; d++)
        sv_buffer_printf(out, d ? ",%lld" : "%lld", (long long)dims[d]);
    sv_buffer_puts(out, "]");
}

/* BYTES elements: JSON strings, or in binary form each behind its 4-byte
 * little-endian length. */
static int put_strings(sv_buffer *out, sv_buffer *blob, const sv_tensor *t, int binary)
{
    int64_t count = sv_element_count(t->dims, t->rank);
    char small[256];
    if (!binary)
        sv_buffer_puts(out, "[");
    for (int64_t i = 0; i < count; i++) {
        int32_t needed = 0;
        char *text = small;
        if (kiln_tensor_string(t->strings, (int32_t)i, small, sizeof small, &needed) ==
            KILN_ERR_BUFFER_TOO_SMALL) {
            text = malloc((size_t)needed);
            if (!text || kiln_tensor_string(t->strings, (int32_t)i, text, needed, &needed) !=
                             KILN_OK) {
                free(text);
                return -1;
            }
        }
        uint32_t len = (uint32_t)(needed > 0 ? needed - 1 : 0);
        if (binary) {
            unsigned char prefix[4] = {(unsigned char)len, (unsigned char)(len >> 8),
                                       (unsigned char)(len >> 16), (unsigned char)(len >> 24)};
            sv_buffer_append(blob, prefix, 4);
            sv_buffer_append(blob, text, len);
        } else {
            if (i)
                sv_buffer_puts(out, ",");
            /* JSON strings cannot hold arbitrary bytes; text ones pass as is */
            sv_buffer_json_string(out, text);
        }
        if (text != small)
            free(text);
    }
    if (!binary)
        sv_buffer_puts(out, "]");
    return 0;
}

int sv_encode_infer(const sv_model *m, sv_request *r, sv_buffer *out, long long *json_length)
{
    sv_buffer blobs = {0};
    sv_buffer_puts(out, "{\"model_name\":");
    sv_buffer_json_string(out, m->name);
    sv_buffer_puts(out, ",\"model_version\":");
    sv_buffer_json_string(out, m->version);
    if (r->id) {
        sv_buffer_puts(out, ",\"id\":");
        sv_buffer_json_string(out, r->id);
    }
    sv_buffer_puts(out, ",\"outputs\":[");
    int any_binary = 0;
    for (int32_t k = 0; k < r->wanted_count; k++) {
        int32_t o = r->output_order[k];
        const sv_tensor *t = &r->outputs[o];
        const char *dt = sv_datatype_name(t->dtype);
        if (!dt) {
            sv_buffer_free(&blobs);
            sv_request_fail(r, 500, "output '%s' has an element type the protocol cannot carry",
                            m->outputs[o].name);
            return -1;
        }
        sv_buffer_puts(out, k ? ",{\"name\":" : "{\"name\":");
        sv_buffer_json_string(out, m->outputs[o].name);
        sv_buffer_printf(out, ",\"datatype\":\"%s\",\"shape\":", dt);
        put_shape(out, t->dims, t->rank);
        int binary = r->output_binary[o];
        if (binary) {
            size_t before = blobs.len;
            if (t->strings ? put_strings(NULL, &blobs, t, 1) != 0
                           : sv_buffer_append(&blobs, t->data, t->nbytes) != 0) {
                sv_buffer_free(&blobs);
                sv_request_fail(r, 500, "out of memory writing output '%s'", m->outputs[o].name);
                return -1;
            }
            sv_buffer_printf(out, ",\"parameters\":{\"binary_data_size\":%zu}}",
                             blobs.len - before);
            any_binary = 1;
            continue;
        }
        sv_buffer_puts(out, ",\"data\":");
        if (t->strings) {
            if (put_strings(out, NULL, t, 0) != 0) {
                sv_buffer_free(&blobs);
                sv_request_fail(r, 500, "could not read output '%s'", m->outputs[o].name);
                return -1;
            }
        } else {
            size_t count = t->nbytes / (sv_datatype_size(t->dtype) ? sv_datatype_size(t->dtype) : 1);
            sv_buffer_puts(out, "[");
            for (size_t i = 0; i < count; i++) {
                if (i)
                    sv_buffer_puts(out, ",");
                sv_append_element(out, t->dtype, t->data, i);
            }
            sv_buffer_puts(out, "]");
        }
        sv_buffer_puts(out, "}");
    }
    sv_buffer_puts(out, "]}");
    *json_length = -1;
    if (any_binary) {
        *json_length = (long long)out->len;
        sv_buffer_append(out, blobs.data, blobs.len);
    }
    sv_buffer_free(&blobs);
    if (out->failed) {
        sv_request_fail(r, 500, "out of memory writing the response");
        return -1;
    }
    return 0;
}

static void put_io(sv_buffer *out, const sv_io *io, int32_t count)
{
    sv_buffer_puts(out, "[");
    for (int32_t i = 0; i < count; i++) {
        const char *dt = sv_datatype_name(io[i].dtype);
        sv_buffer_puts(out, i ? ",{\"name\":" : "{\"name\":");
        sv_buffer_json_string(out, io[i].name);
        sv_buffer_printf(out, ",\"datatype\":\"%s\",\"shape\":", dt ? dt : "");
        if (io[i].rank < 0) /* unknown rank: the protocol's shape cannot say it; [-1] is closest */
            sv_buffer_puts(out, "[-1]");
        else
            put_shape(out, io[i].dims, io[i].rank);
        sv_buffer_puts(out, "}");
    }
    sv_buffer_puts(out, "]");
}

void sv_encode_model_metadata(const sv_model *m, const char *versions, sv_buffer *out)
{
    sv_buffer_puts(out, "{\"name\":");
    sv_buffer_json_string(out, m->name);
    sv_buffer_printf(out, ",\"versions\":%s,\"platform\":\"onnx\",\"inputs\":", versions);
    put_io(out, m->inputs, m->input_count);
    sv_buffer_puts(out, ",\"outputs\":");
    put_io(out, m->outputs, m->output_count);
    sv_buffer_puts(out, "}");
}

void sv_encode_error(sv_buffer *out, const char *message)
{
    sv_buffer_puts(out, "{\"error\":");
    sv_buffer_json_string(out, message ? message : "unknown error");
    sv_buffer_puts(out, "}");
}
