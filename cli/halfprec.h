/* IEEE half (float16) and bfloat16 conversions, written out by hand because
 * C11 has no portable 16-bit float type. Used to compare test outputs and to
 * fill benchmark inputs. */
#ifndef KILN_CLI_HALFPREC_H
#define KILN_CLI_HALFPREC_H

#include <stdint.h>

float half_to_float(uint16_t h);
/* Rounds to nearest, ties to even; overflow becomes infinity. */
uint16_t float_to_half(float f);
float bfloat16_to_float(uint16_t b);
/* Rounds to nearest, ties to even; NaN stays NaN. */
uint16_t float_to_bfloat16(float f);

#endif
