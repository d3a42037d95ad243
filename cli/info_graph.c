/* Graph pictures for `kiln info` (see info_graph.h). */
#include "info_graph.h"

#include "api.h"
#include "dot_render.h"
#include "graph_dot.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int ends_with(const char *text, const char *suffix)
{
    size_t n = strlen(text), k = strlen(suffix);
    return n >= k && strcmp(text + n - k, suffix) == 0;
}

/* Writes the DOT text to an open file; returns the marked node count or
 * -1 after printing why. */
static int write_dot(FILE *out, kiln_runtime *runtime, const char *path,
                     const kiln_model *model, int optimize)
{
    model_graph g = {0}, original = {0};
    kiln_model *unoptimized = NULL;
    int32_t status = graph_read(model, &g);
    if (status == KILN_OK && optimize > 0) {
        status = load_model_optimized(runtime, path, 1, 0, &unoptimized);
        if (status == KILN_OK)
            status = graph_read(unoptimized, &original);
    }
    int fused = -1;
    if (status != KILN_OK) {
        report_error("cannot read the graph of", path, status);
    } else {
        /* The path as given: model zoos name every file model.onnx. */
        char title[4200];
        if (optimize > 0)
            snprintf(title, sizeof title, "%s, optimized (level %d)", path, optimize);
        else
            snprintf(title, sizeof title, "%s, as in the file", path);
        fused = graph_write_dot(out, &g, optimize > 0 ? &original : NULL, title);
        if (fused < 0)
            cli_error("out of memory");
        else
            printf("graph: %d nodes, %d made by the optimizer\n", g.n_nodes, fused);
    }
    graph_free(&g);
    graph_free(&original);
    kiln_model_destroy(unoptimized);
    return fused;
}

int write_graph_files(kiln_runtime *runtime, const char *path, const kiln_model *model,
                      int optimize, graph_files files)
{
    if (files.dot && !files.svg && ends_with(files.dot, ".svg")) {
        files.svg = files.dot;
        files.dot = NULL;
    }
    int svg_missing = 0;
    if (files.svg && !dot_available()) {
        cli_error("cannot write %s: Graphviz's 'dot' program is not on PATH (install "
                  "graphviz, e.g. apt-get install graphviz)%s",
                  files.svg, files.dot ? "; writing the DOT file only" : "");
        if (!files.dot)
            return -1;
        files.svg = NULL;
        svg_missing = 1;
    }
    /* An SVG without a DOT file asked for renders from a temporary one. */
    char temp[4096] = "";
    const char *dot_path = files.dot;
    FILE *out = NULL;
    if (!dot_path) {
        const char *dir = getenv("TMPDIR");
        snprintf(temp, sizeof temp, "%s/kiln-graph-XXXXXX.dot", dir && dir[0] ? dir : "/tmp");
        int fd = mkstemps(temp, 4);
        if (fd < 0 || !(out = fdopen(fd, "w"))) {
            cli_error("cannot create a temporary file %s: %s", temp, strerror(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        dot_path = temp;
    } else if (!(out = fopen(dot_path, "w"))) {
        cli_error("cannot write %s: %s", dot_path, strerror(errno));
        return -1;
    }
    int rc = write_dot(out, runtime, path, model, optimize) < 0 ? -1 : 0;
    if (fclose(out) != 0 && rc == 0) {
        cli_error("cannot write %s: %s", dot_path, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && files.dot)
        printf("graph: wrote %s\n", files.dot);
    if (rc == 0 && files.svg) {
        rc = dot_render_svg(dot_path, files.svg);
        if (rc == 0)
            printf("graph: wrote %s\n", files.svg);
    }
    if (temp[0])
        remove(temp);
    /* Graphviz missing with a DOT file asked for: the DOT was written, but
     * the SVG that was also asked for was not, which is still a failure. */
    return svg_missing ? -1 : rc;
}
