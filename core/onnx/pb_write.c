#include "core/onnx/pb_write.h"

#include <stdlib.h>
#include <string.h>

void pb_out_bytes(pb_out *o, const void *src, size_t n)
{
    if (o->failed || n == 0)
        return;
    if (n > o->cap - o->used) {
        size_t cap = o->cap ? o->cap : 256;
        while (cap - o->used < n) {
            if (cap > SIZE_MAX / 2) {
                o->failed = 1;
                return;
            }
            cap *= 2;
        }
        uint8_t *p = realloc(o->p, cap);
        if (!p) {
            o->failed = 1;
            return;
        }
        o->p = p;
        o->cap = cap;
    }
    memcpy(o->p + o->used, src, n);
    o->used += n;
}

size_t pb_varint_encode(uint64_t v, uint8_t out[PB_VARINT_MAX])
{
    size_t n = 0;
    do {
        out[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return n;
}

void pb_out_varint(pb_out *o, uint64_t v)
{
    uint8_t tmp[PB_VARINT_MAX];
    pb_out_bytes(o, tmp, pb_varint_encode(v, tmp));
}

void pb_out_tag(pb_out *o, uint32_t num, uint32_t wire)
{
    pb_out_varint(o, (uint64_t)num << 3 | wire);
}

void pb_out_len(pb_out *o, uint32_t num, const void *data, size_t n)
{
    pb_out_tag(o, num, 2);
    pb_out_varint(o, n);
    pb_out_bytes(o, data, n);
}

void pb_out_str(pb_out *o, uint32_t num, const char *s) { pb_out_len(o, num, s, strlen(s)); }

void pb_out_int(pb_out *o, uint32_t num, int64_t v)
{
    pb_out_tag(o, num, 0);
    pb_out_varint(o, (uint64_t)v); /* negative int64s take ten bytes, as protobuf says */
}

void pb_out_message(pb_out *o, uint32_t num, pb_out *sub)
{
    if (sub->failed)
        o->failed = 1;
    else
        pb_out_len(o, num, sub->p, sub->used);
    pb_out_free(sub);
}

int pb_out_finish(pb_out *o, kn_err *err)
{
    if (!o->failed)
        return KN_OK;
    pb_out_free(o);
    return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory writing the model");
}

void pb_out_free(pb_out *o)
{
    free(o->p);
    *o = (pb_out){0};
}
