/* JPEG in a build without libjpeg (CMake compiles this instead of
 * core/codec/jpeg.c): recognised, then refused naming the library. */
#include <stddef.h>

#include "core/codec/codec_format.h"

const kn_codec kn_codec_jpeg = {.name = "JPEG", .library = "libjpeg"};
