/* `kiln`: the command-line tool. This file only dispatches to the commands;
 * each lives in its own cmd_*.c file. */
#include "commands.h"

#include "kiln.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"info", cmd_info, "show a model's inputs, outputs, opsets, ops, memory plan and graph"},
    {"run", cmd_run, "run a model on tensor files or images and print its outputs"},
    {"bench", cmd_bench, "time a model on random inputs"},
    {"check", cmd_check, "run ONNX backend test-case folders"},
    {"quantize", cmd_quantize, "calibrate on sample inputs and write an INT8 QDQ model"},
    {"diff", cmd_diff, "compare two models' intermediate tensors, worst first"},
    {"serve", cmd_serve, "serve a model repository over HTTP (KServe v2 / Open Inference Protocol)"},
};

#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out, "usage: kiln COMMAND [ARGS...]\n\ncommands:\n");
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'kiln COMMAND --help' describes a command; 'kiln --version' prints the "
                 "library version.\n");
}

int main(int argc, char **argv)
{
    /* The CLI links the shared library like any binding does, so it makes
     * the same check: refuse to run against an incompatible library. */
    if (kiln_abi_version() != KILN_ABI_VERSION) {
        cli_error("library ABI version %d, this program needs %d", (int)kiln_abi_version(),
                  KILN_ABI_VERSION);
        return EXIT_FAIL;
    }
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(name, "--version") == 0) {
        printf("kiln %s (ABI %d)\n", kiln_version(), (int)kiln_abi_version());
        return EXIT_OK;
    }
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (strcmp(name, commands[i].name) == 0) {
            cli_set_command(commands[i].name);
            return commands[i].run(argc - 1, argv + 1);
        }
    cli_error("unknown command '%s'\n", name);
    usage(stderr);
    return EXIT_USAGE;
}
