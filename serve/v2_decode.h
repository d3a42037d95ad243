/* Reads an inference request of the Open Inference Protocol: the JSON
 * document, and with Triton's binary tensor extension the raw tensor bytes
 * after it (Inference-Header-Content-Length says where the JSON ends).
 * Every check that can be made before the model runs is made here, so that
 * a bad request is answered 400 with the input's name, the protocol's
 * datatype names and element counts, and never reaches a worker. */
#ifndef KILN_SERVE_V2_DECODE_H
#define KILN_SERVE_V2_DECODE_H

#include <stddef.h>

#include "request.h"
#include "served_model.h"

/* header_length: the JSON part's byte length, or -1 when the header was
 * absent (the body is all JSON). Returns NULL with the reason in err. */
sv_request *sv_decode_infer(const sv_model *m, const char *body, size_t length,
                            long long header_length, char *err, size_t err_cap);

#endif
