/* What the small C benchmarks (kiln_cpu_time, kiln_step_scaling) share:
 * seeded random inputs for any model, and Kiln's last error printed under
 * the tool's name. */
#ifndef KILN_BENCH_RANDOM_INPUTS_H
#define KILN_BENCH_RANDOM_INPUTS_H

#include "kiln.h"

/* Prints "TOOL: WHAT: <kiln_last_error>" to stderr; returns 1 (an exit
 * status). */
int bench_fail(const char *tool, const char *what);

/* Binds seeded random values to every input of s: floats in [-1, 1],
 * int64 in [0, 10), dynamic dims 1, the same values on every call, so two
 * sessions (or two builds) run on identical inputs. Only float and int64
 * inputs; returns 0, or 1 after printing why under TOOL's name. */
int bench_bind_random_inputs(const char *tool, const kiln_model *m, kiln_session *s);

#endif
