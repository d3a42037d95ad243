/* The progress line (see progress.h). */
#include "progress.h"

#include "util.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Redraw interval: fast enough to look alive, rare enough to cost nothing. */
#define REDRAW_MS 50.0
/* Keeps the line within an 80-column terminal, where a wrapped line could
 * not be erased with a carriage return. */
#define MAX_LINE 79

/* The line on screen, which an error message erases first. One at a time:
 * the CLI is single-threaded and shows one line. */
static progress *shown;

static void erase_shown(void)
{
    if (shown)
        progress_clear(shown);
}

void progress_begin(progress *p, int total)
{
    memset(p, 0, sizeof *p);
    p->enabled = isatty(fileno(stderr));
    p->total = total > 0 ? total : 0;
    p->last_ms = -REDRAW_MS;
    if (p->enabled) {
        shown = p;
        cli_set_before_message(erase_shown);
    }
}

void progress_show(progress *p, int done, const char *label, int force)
{
    if (!p->enabled)
        return;
    double now = now_ms();
    if (!force && now - p->last_ms < REDRAW_MS)
        return;
    p->last_ms = now;
    char line[MAX_LINE + 1];
    int n;
    if (p->total > 0) {
        int width = snprintf(NULL, 0, "%d", p->total);
        n = snprintf(line, sizeof line, "[%*d/%d] %s", width, done, p->total, label ? label : "");
    } else {
        n = snprintf(line, sizeof line, "%s", label ? label : ""); /* no count to show */
    }
    size_t len = n < 0 ? 0 : strlen(line);
    /* Pad with spaces over what a longer previous line left behind. */
    fprintf(stderr, "\r%s%*s", line, (int)(p->drawn > len ? p->drawn - len : 0), "");
    if (p->drawn > len)
        fprintf(stderr, "\r%s", line);
    fflush(stderr);
    p->drawn = len;
}

void progress_clear(progress *p)
{
    if (!p->enabled || p->drawn == 0)
        return;
    fprintf(stderr, "\r%*s\r", (int)p->drawn, "");
    fflush(stderr);
    p->drawn = 0;
    p->last_ms = -REDRAW_MS; /* draw again at the next show */
}

void progress_end(progress *p)
{
    progress_clear(p);
    p->enabled = 0;
    if (shown == p) {
        shown = NULL;
        cli_set_before_message(NULL);
    }
}
