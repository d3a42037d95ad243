/* A one-line progress display for long CLI work ("[ 37/120] test_relu"),
 * drawn on stderr only when stderr is a terminal, so piped or logged
 * output never carries carriage returns. */
#ifndef KILN_CLI_PROGRESS_H
#define KILN_CLI_PROGRESS_H

#include <stddef.h>

typedef struct progress {
    int enabled;      /* stderr is a terminal */
    int total;        /* steps in all; 0 when unknown */
    size_t drawn;     /* characters of the line now on screen */
    double last_ms;   /* when it was last drawn */
} progress;

/* Starts a display of `total` steps (0: unknown; then only the label is
 * shown). Clear a line already drawn before starting another. */
void progress_begin(progress *p, int total);
/* Shows step `done` of the total with a label (e.g. the test case's name). Redraws at
 * most every few tens of milliseconds unless `force` is set, so fast loops
 * do not spend their time writing to the terminal. */
void progress_show(progress *p, int done, const char *label, int force);
/* Erases the line, e.g. before printing a result to the same terminal;
 * the next progress_show draws it again. */
void progress_clear(progress *p);
/* Erases the line for good. */
void progress_end(progress *p);

#endif
