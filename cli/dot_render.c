/* Running Graphviz (see dot_render.h). */
#include "dot_render.h"

#include "util.h"

#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int dot_available(void)
{
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    /* Each PATH entry in turn, as execvp would search them. */
    while (*path) {
        size_t len = strcspn(path, ":");
        char candidate[4096];
        if (len > 0 && len < sizeof candidate - 5) {
            snprintf(candidate, sizeof candidate, "%.*s/dot", (int)len, path);
            if (access(candidate, X_OK) == 0)
                return 1;
        }
        path += len;
        if (*path == ':')
            path++;
    }
    return 0;
}

int dot_render_svg(const char *dot_path, const char *svg_path)
{
    char *argv[] = {"dot", "-Tsvg", "-o", (char *)svg_path, (char *)dot_path, NULL};
    pid_t pid;
    int err = posix_spawnp(&pid, "dot", NULL, NULL, argv, environ);
    if (err != 0) {
        cli_error("cannot run Graphviz's dot: %s", strerror(err));
        return -1;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            cli_error("cannot wait for Graphviz's dot: %s", strerror(errno));
            return -1;
        }
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        cli_error("Graphviz's dot failed to render %s (exit status %d)", svg_path,
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return -1;
    }
    return 0;
}
