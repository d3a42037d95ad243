#include "string_tensor.h"

#include <stdlib.h>

#include "byte_buffer.h"

static void put_varint(sv_buffer *b, uint64_t v)
{
    unsigned char bytes[10];
    int n = 0;
    do {
        bytes[n] = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v)
            bytes[n] |= 0x80;
        n++;
    } while (v);
    sv_buffer_append(b, bytes, (size_t)n);
}

kiln_tensor *sv_string_tensor(const int64_t *dims, int32_t rank, const sv_string_ref *elements,
                              size_t count)
{
    /* TensorProto field numbers: 1 dims (int64), 2 data_type, 6 string_data. */
    sv_buffer b = {0};
    for (int32_t i = 0; i < rank; i++) {
        put_varint(&b, 1u << 3);
        put_varint(&b, (uint64_t)dims[i]);
    }
    put_varint(&b, 2u << 3);
    put_varint(&b, KILN_DTYPE_STRING);
    for (size_t i = 0; i < count; i++) {
        put_varint(&b, (6u << 3) | 2u);
        put_varint(&b, elements[i].len);
        sv_buffer_append(&b, elements[i].bytes, elements[i].len);
    }
    size_t len = 0;
    char *bytes = sv_buffer_take(&b, &len);
    kiln_tensor *t = NULL;
    if (bytes && kiln_tensor_decode(bytes, len, &t) != KILN_OK)
        t = NULL;
    free(bytes);
    return t;
}
