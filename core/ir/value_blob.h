/* Sequence and optional values as one self-contained byte blob, carried in
 * an ordinary kn_tensor of pseudo dtype KN_SEQUENCE or KN_OPTIONAL (element
 * size 1, rank 1, dims[0] = blob bytes). Because a blob holds no pointers
 * (payloads are found by offsets from its own start), everything that moves
 * tensors — Identity, If and Loop results, folded constants, session
 * inputs — moves sequences and optionals by a plain memcpy.
 *
 * Layout (all little-endian host integers; the blob start is 16-byte
 * aligned wherever the runtime keeps one):
 *
 *   kn_blob_header                       16 bytes
 *   kn_blob_entry[count]                 96 bytes each
 *   payloads, each at a 16-byte-aligned offset (from the blob start) and
 *   padded with zeros to a multiple of 16
 *
 * An entry is a tensor (its row-major bytes) or a nested sequence or
 * optional (its payload is itself a blob). An optional is a blob with
 * count 0 (none) or 1. */
#ifndef KN_VALUE_BLOB_H
#define KN_VALUE_BLOB_H

#include <stdint.h>

#include "core/base/status.h"
#include "core/ir/tensor.h"

#define KN_BLOB_ALIGN 16
/* Nesting deeper than this (sequence of sequence of ...) is refused. */
#define KN_BLOB_MAX_DEPTH 16
/* elem_kind of a blob whose element type nobody declared (an empty
 * optional read from a file with elem_type UNDEFINED). */
#define KN_BLOB_KIND_UNKNOWN (-1)

typedef struct kn_blob_header {
    int64_t count;      /* number of entries */
    int32_t elem_kind;  /* KN_KIND_* of the elements, or KN_BLOB_KIND_UNKNOWN */
    int32_t elem_dtype; /* innermost tensor dtype when known, else KN_UNDEFINED */
} kn_blob_header;

typedef struct kn_blob_entry {
    int32_t kind;  /* KN_KIND_TENSOR, or KN_KIND_SEQUENCE / KN_KIND_OPTIONAL (nested blob) */
    int32_t dtype; /* tensor dtype; KN_SEQUENCE / KN_OPTIONAL for a nested blob */
    int32_t rank;  /* nested blob: 1, with dims[0] = nbytes */
    int32_t pad;
    int64_t dims[KN_MAX_RANK];
    int64_t offset; /* payload start from the blob start; a multiple of 16 */
    int64_t nbytes; /* payload bytes without the padding */
} kn_blob_entry;

_Static_assert(sizeof(kn_blob_header) == 16, "blob header layout");
_Static_assert(sizeof(kn_blob_entry) == 32 + 8 * KN_MAX_RANK, "blob entry layout");

/* 1 for KN_SEQUENCE and KN_OPTIONAL. */
static inline int kn_is_blob_dtype(int32_t dtype)
{
    return dtype == KN_SEQUENCE || dtype == KN_OPTIONAL;
}

/* ---- sizes: a blob of n elements takes kn_blob_base_bytes(n) plus
 * kn_blob_payload_bytes(e) for each element e. -1 on overflow. ---- */
int64_t kn_blob_base_bytes(int64_t count);
int64_t kn_blob_payload_bytes(const kn_tensor *elem);
/* a + b, or -1 if either is negative or the sum overflows. */
int64_t kn_blob_add_bytes(int64_t a, int64_t b);

/* Makes t a blob descriptor: dtype (KN_SEQUENCE or KN_OPTIONAL), rank 1,
 * dims[0] = nbytes; data is left as it is. */
void kn_blob_desc(kn_tensor *t, int32_t dtype, int64_t nbytes);

/* ---- writing: begin with the final count, then push each element. The
 * blob's descriptor (dims[0]) bounds every write; pushing more elements or
 * bytes than it was sized for fails with KN_ERR_INTERNAL. ---- */
typedef struct kn_blob_writer {
    unsigned char *base;
    int64_t cap, count, next, end;
} kn_blob_writer;

int kn_blob_begin(kn_blob_writer *w, kn_tensor *blob, int64_t count, int32_t elem_kind,
                  int32_t elem_dtype, kn_err *err);
/* elem: a tensor, or a blob (stored as a nested value). */
int kn_blob_push(kn_blob_writer *w, const kn_tensor *elem, kn_err *err);
/* Adds an entry of elem's dtype and shape (elem->data is not read) and
 * points *payload at its bytes for the caller to fill. */
int kn_blob_reserve(kn_blob_writer *w, const kn_tensor *elem, void **payload, kn_err *err);
/* Fails unless exactly `count` elements were pushed. */
int kn_blob_end(kn_blob_writer *w, kn_err *err);

/* ---- reading: blob must have passed kn_blob_check (or been written by
 * kn_blob_begin/push). ---- */
void kn_blob_read_header(const kn_tensor *blob, kn_blob_header *h);
int64_t kn_blob_count(const kn_tensor *blob);
void kn_blob_read_entry(const kn_tensor *blob, int64_t i, kn_blob_entry *e);
/* Entry i as a tensor descriptor whose data points into the blob (a nested
 * value comes out as a blob descriptor). */
void kn_blob_elem(const kn_tensor *blob, int64_t i, kn_tensor *out);

/* Validates a blob completely (nested ones too): header, entry count
 * against the bytes present, every entry's dtype, shape, size, alignment
 * and bounds, optionals holding at most one value. Errors are
 * KN_ERR_INVALID_ARGUMENT naming the problem. `what` names the value in
 * messages. */
int kn_blob_check(const kn_tensor *blob, const char *what, kn_err *err);

#endif
