/* `kiln serve` in a build without libmicrohttpd and cJSON: the command is
 * there (one CLI in every build) and says what it needs. */
#include <stdio.h>

#include "../../cli/commands.h"

int cmd_serve(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "kiln serve: this build has no server: install libmicrohttpd-dev and "
                    "libcjson-dev (Debian) and build again\n");
    return EXIT_FAIL;
}
