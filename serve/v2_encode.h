/* Writes the protocol's responses: inference results (JSON, or JSON plus
 * binary tensors), model and server metadata, and {"error": "..."}. */
#ifndef KILN_SERVE_V2_ENCODE_H
#define KILN_SERVE_V2_ENCODE_H

#include "byte_buffer.h"
#include "request.h"
#include "served_model.h"

/* Writes the response to `out`; *json_length = bytes of the JSON part (the
 * Inference-Header-Content-Length value when binary outputs follow, or -1
 * when the response is JSON only). Returns 0, or -1 when an output cannot be
 * carried (the request's error is then set). */
int sv_encode_infer(const sv_model *m, sv_request *r, sv_buffer *out, long long *json_length);
/* GET /v2/models/{m}[/versions/{v}]: versions is a JSON array text. */
void sv_encode_model_metadata(const sv_model *m, const char *versions, sv_buffer *out);
void sv_encode_error(sv_buffer *out, const char *message);

#endif
