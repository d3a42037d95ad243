/* The load pipeline: bytes -> ONNX reader -> IR -> optimizer (with the
 * passes of the backends that may serve the model) -> validated model whose
 * sessions may use those backends. */
#ifndef KN_LOAD_H
#define KN_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/status.h"
#include "core/engine/model.h"

typedef struct kn_load_options {
    size_t max_bytes; /* model size limit; 0 = none */
    int32_t optimize; /* KN_OPT_* level */
    int32_t allow_unsupported;
    uint32_t backends_off; /* backends the caller switched off (kn_backend_index bits) */
    /* The file the bytes came from, for messages ("'x.onnx' is not a valid
     * ONNX model: ..."); NULL: they came from memory. */
    const char *source;
} kn_load_options;

/* data/size: the model's bytes; base_dir resolves external data (NULL:
 * none allowed); mapped says the bytes are a private file mapping the reader
 * may give pages back from as it copies tensors out. */
int kn_model_load(const void *data, size_t size, const char *base_dir, int mapped,
                  const kn_load_options *o, kn_model **out, kn_err *err);

/* The same from a file (load_file.c): mapped when possible, external data
 * resolved against its folder; I/O errors name the file and the OS reason. */
int kn_model_load_file(const char *path, const kn_load_options *o, kn_model **out, kn_err *err);

#endif
