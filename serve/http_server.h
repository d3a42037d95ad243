/* The HTTP side of `kiln serve`: libmicrohttpd with a thread per connection
 * (a handler blocks while its request is queued and run, which costs a
 * thread but no hand-off between threads), the protocol's routes, limits on
 * bodies, connections and request rate, and the drain on shutdown. */
#ifndef KILN_SERVE_HTTP_SERVER_H
#define KILN_SERVE_HTTP_SERVER_H

#include <stdint.h>

#include "repository.h"
#include "serve_options.h"

typedef struct sv_http sv_http;

/* Starts listening. Returns NULL with the reason (address, OS error) in err. */
sv_http *sv_http_start(const sv_options *options, sv_repository *repo, char *err, size_t cap);
int sv_http_port(const sv_http *http);
/* From now on inference gets 503 and /v2/health/ready says not ready. */
void sv_http_begin_drain(sv_http *http);
/* HTTP requests accepted and not yet answered. */
int64_t sv_http_active(const sv_http *http);
void sv_http_stop(sv_http *http);

#endif
