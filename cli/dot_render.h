/* Rendering a DOT file to SVG with Graphviz's `dot` program, when it is
 * installed (Debian: graphviz). Kiln does not link Graphviz; it runs it. */
#ifndef KILN_CLI_DOT_RENDER_H
#define KILN_CLI_DOT_RENDER_H

/* 1 if an executable `dot` is on PATH. */
int dot_available(void);
/* Runs `dot -Tsvg -o svg_path dot_path`; returns 0 when it succeeded, else
 * -1 after printing why. */
int dot_render_svg(const char *dot_path, const char *svg_path);

#endif
