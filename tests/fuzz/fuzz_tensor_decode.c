/* Fuzz target (c): bytes -> kiln_tensor_decode; a tensor that decodes is
 * read back through every accessor, encoded again, and must decode to the
 * same dtype, shape, name and bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "kiln.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kiln_tensor *t = (kiln_tensor *)&t;
    int32_t rc = kiln_tensor_decode(data, size, &t);
    if (rc != KILN_OK) {
        fz_check_error(rc, "kiln_tensor_decode");
        FZ_CHECK(t == NULL, "a failed decode left a handle");
        return 0;
    }
    int32_t dtype = 0, rank = 0, needed = 0;
    int64_t dims[16];
    FZ_CHECK(kiln_tensor_info(t, &dtype, dims, 16, &rank) == KILN_OK, "info");
    const void *bytes = NULL;
    size_t nbytes = 0;
    if (dtype == KILN_DTYPE_STRING) { /* strings are read element by element */
        FZ_CHECK(kiln_tensor_data(t, &bytes, &nbytes) == KILN_ERR_DTYPE, "string data refused");
        int64_t n = 1;
        for (int32_t i = 0; i < rank && i < 16; i++)
            n *= dims[i];
        for (int64_t i = 0; i < n && i < 64; i++) {
            /* The size query answers BUFFER_TOO_SMALL with *needed set
             * (kiln.h: the two-call pattern of kiln_tensor_string). */
            int32_t len = 0;
            int32_t st = kiln_tensor_string(t, (int32_t)i, NULL, 0, &len);
            FZ_CHECK((st == KILN_ERR_BUFFER_TOO_SMALL && len >= 1) || st == KILN_ERR_LIMIT,
                     "string size (status %d, needed %d)", (int)st, (int)len);
        }
    } else {
        FZ_CHECK(kiln_tensor_data(t, &bytes, &nbytes) == KILN_OK, "data");
    }
    FZ_CHECK(bytes || nbytes == 0, "NULL data with %zu bytes", nbytes);
    uint64_t sum = 0;
    for (size_t i = 0; i < nbytes; i++) /* every byte must be readable */
        sum += ((const unsigned char *)bytes)[i];
    (void)sum;
    FZ_CHECK(kiln_tensor_name(t, NULL, 0, &needed) == KILN_OK && needed >= 1, "name size");
    char *name = malloc((size_t)needed);
    FZ_CHECK(name && kiln_tensor_name(t, name, needed, &needed) == KILN_OK, "name");

    size_t enc_size = 0;
    rc = kiln_tensor_encode(name, dtype, dims, rank, bytes, nbytes, NULL, 0, &enc_size);
    if (rc == KILN_ERR_BUFFER_TOO_SMALL) {
        unsigned char *enc = malloc(enc_size);
        FZ_CHECK(enc, "out of memory");
        FZ_CHECK(kiln_tensor_encode(name, dtype, dims, rank, bytes, nbytes, enc, enc_size,
                                    &enc_size) == KILN_OK, "encode");
        kiln_tensor *back = NULL;
        FZ_CHECK(kiln_tensor_decode(enc, enc_size, &back) == KILN_OK, "re-decode");
        int32_t dtype2 = 0, rank2 = 0;
        int64_t dims2[16];
        const void *bytes2 = NULL;
        size_t nbytes2 = 0;
        kiln_tensor_info(back, &dtype2, dims2, 16, &rank2);
        kiln_tensor_data(back, &bytes2, &nbytes2);
        FZ_CHECK(dtype2 == dtype && rank2 == rank && nbytes2 == nbytes, "round trip header");
        FZ_CHECK(memcmp(dims, dims2, sizeof(int64_t) * (size_t)rank) == 0, "round trip dims");
        FZ_CHECK(nbytes == 0 || memcmp(bytes, bytes2, nbytes) == 0, "round trip bytes");
        char name2[512];
        int32_t needed2 = 0;
        if (kiln_tensor_name(back, name2, sizeof name2, &needed2) == KILN_OK)
            FZ_CHECK(strcmp(name, name2) == 0, "round trip name");
        kiln_tensor_destroy(back);
        free(enc);
    } else {
        fz_check_error(rc, "kiln_tensor_encode");
    }
    free(name);
    kiln_tensor_destroy(t);
    return 0;
}
