/* WebP in a build without libwebp (CMake compiles this instead of
 * core/codec/webp.c): recognised, then refused naming the library. */
#include <stddef.h>

#include "core/codec/codec_format.h"

const kn_codec kn_codec_webp = {.name = "WebP", .library = "libwebp"};
