/* PNG in a build without libpng (CMake compiles this instead of
 * core/codec/png.c): recognised, then refused naming the library. */
#include <stddef.h>

#include "core/codec/codec_format.h"

const kn_codec kn_codec_png = {.name = "PNG", .library = "libpng"};
