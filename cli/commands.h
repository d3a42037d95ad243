/* The CLI's commands. Each takes the arguments after "kiln" (argv[0] is the
 * command name) and returns the process exit code: 0 success, 1 failure,
 * 2 bad usage. */
#ifndef KILN_CLI_COMMANDS_H
#define KILN_CLI_COMMANDS_H

int cmd_info(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_quantize(int argc, char **argv);
int cmd_diff(int argc, char **argv);
/* in serve/ (or serve/absent/ when the build lacks its libraries) */
int cmd_serve(int argc, char **argv);

/* Exit codes shared by all commands. */
#define EXIT_OK 0
#define EXIT_FAIL 1
#define EXIT_USAGE 2

#endif
