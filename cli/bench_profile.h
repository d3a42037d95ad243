/* `kiln bench --profile`: where the time of a run goes, per op type and per
 * step, read through the public profiling API. */
#ifndef KILN_CLI_BENCH_PROFILE_H
#define KILN_CLI_BENCH_PROFILE_H

#include "kiln.h"

#include <stdio.h>

/* Prints the time per op type (all of them) and the top_n slowest steps
 * (every step when top_n is 0), as mean milliseconds per run, to out.
 * Returns a kiln status. */
int32_t print_profile(const kiln_session *session, int top_n, FILE *out);

#endif
