/* JPEG 2000 in a build without libopenjp2 (CMake compiles this instead of
 * core/codec/jpeg2000.c): recognised, then refused naming the library. */
#include <stddef.h>

#include "core/codec/codec_format.h"

const kn_codec kn_codec_jpeg2000 = {.name = "JPEG 2000", .library = "libopenjp2"};
