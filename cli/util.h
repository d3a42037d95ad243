/* Small helpers shared by the CLI commands: argument parsing, file I/O,
 * timing, memory use, JSON output, dtype names and a seeded random source.
 * Nothing here knows about models; see api.h for the Kiln-specific helpers. */
#ifndef KILN_CLI_UTIL_H
#define KILN_CLI_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- messages ---- */

/* Names the command being run ("bench") so that cli_error says
 * "kiln bench: ..."; before a command is known (NULL) it says "kiln: ...".
 * One convention for every message the tool prints to stderr. */
void cli_set_command(const char *name);
/* Prints "kiln <command>: <message>" and a newline to stderr. */
void cli_error(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* A function cli_error calls first (NULL: none), so that a progress line on
 * the terminal is erased rather than run into by the message. */
void cli_set_before_message(void (*hook)(void));

/* ---- arguments ---- */

/* Matches argv[*i] against an option that takes a value, spelled either
 * "--name VALUE" or "--name=VALUE" (alt, e.g. "-i", may be NULL).
 * Returns 1 and sets *value on a match (advancing *i past a separate value),
 * 0 if argv[*i] is another argument, -1 if the value is missing (an error
 * has been printed). */
int arg_value(int argc, char **argv, int *i, const char *name, const char *alt,
              const char **value);
/* 1 if arg asks for help ("--help" or "-h"). */
int is_help(const char *arg);
/* 1 if arg looks like an option (starts with '-' and is not just "-"). */
int is_option(const char *arg);
/* Parses a positive decimal int; returns 0 on success, -1 otherwise. */
int parse_positive_int(const char *text, int *out);
/* Parses a non-negative decimal int; returns 0 on success, -1 otherwise. */
int parse_count(const char *text, int *out);
/* Parses "1x3x224x224" (and "" or "scalar" for rank 0) into a malloc'd
 * dims array; returns 0 on success, -1 on a malformed shape. */
int parse_shape(const char *text, int64_t **dims, int32_t *rank);
/* Splits "NAME=FILE" or "FILE". Because names and paths may both contain
 * '=', the split point is the first '=' whose right side names an existing
 * file; a whole argument that is an existing file has no name. *name is a
 * malloc'd copy or NULL; *path points into text. */
void parse_name_file(const char *text, char **name, const char **path);
/* Splits "NAME=VALUE" at the last '=' (shapes never contain '='); *name is
 * malloc'd. Returns -1 if there is no '='. */
int parse_name_value(const char *text, char **name, const char **value);

/* ---- files ---- */

/* Reads a whole file into a malloc'd buffer (a NUL is appended but not
 * counted). Returns NULL with errno set on failure. */
void *read_file(const char *path, size_t *size);
/* Writes size bytes to path; returns 0 or -1 with errno set. */
int write_file(const char *path, const void *data, size_t size);
int file_exists(const char *path);
int dir_exists(const char *path);
/* Creates a directory and its missing parents; returns 0 or -1 (errno). */
int make_dirs(const char *path);
/* "dir" + "/" + "name" in a malloc'd string. */
char *path_join(const char *dir, const char *name);
/* Last path component (after trailing slashes are ignored), malloc'd. */
char *path_basename(const char *path);
/* Sorted names of the entries of dir that are directories (without "." and
 * ".."). Returns the count, or -1 if the directory cannot be read. Free with
 * free_names. */
int list_subdirs(const char *dir, char ***names);
/* The same for the regular files of dir (links to files included). */
int list_files(const char *dir, char ***names);
void free_names(char **names, int count);

/* ---- timing and memory ---- */

/* Monotonic clock in milliseconds (for intervals only). */
double now_ms(void);
/* Peak resident set size in MiB (VmHWM), or -1 if unavailable. */
double peak_rss_mib(void);

/* ---- JSON (enough for one flat object) ---- */

typedef struct json_writer {
    FILE *out;
    int fields;
} json_writer;

void json_begin(json_writer *w, FILE *out);
void json_string(json_writer *w, const char *key, const char *value);
void json_number(json_writer *w, const char *key, double value);
void json_int(json_writer *w, const char *key, long long value);
void json_end(json_writer *w);

/* ---- element types ---- */

/* Short name ("float32", "int64"); "unknown" for 0 or unlisted codes. */
const char *dtype_name(int32_t dtype);
/* Bytes per element, 0 if unknown or variable (string) or packed (int4,
 * float4e2m1, int2, ...: several elements per byte). */
size_t dtype_size(int32_t dtype);
/* Bits per element: 8 * dtype_size, or 4 / 2 for the packed types; 0 if
 * unknown. */
int dtype_bits(int32_t dtype);
/* Bytes a tensor of this many elements holds: ceil(elements * bits / 8);
 * -1 for an unknown dtype or on overflow. */
int64_t dtype_nbytes(int32_t dtype, int64_t elements);
/* Formats dims as "[1, 3, ?, ?]" (-1 shown as '?') into buf. */
void format_shape(const int64_t *dims, int32_t rank, char *buf, size_t cap);
/* Formats dims the way --shape takes them, "1x3x224x224" ('?' for a dynamic
 * dim, "scalar" for rank 0, "unknown shape" for rank -1). */
void format_dims(const int64_t *dims, int32_t rank, char *buf, size_t cap);

/* ---- random numbers ---- */

/* xorshift64*: fast, reproducible across platforms; not for security. */
typedef struct rng {
    uint64_t state;
} rng;

void rng_seed(rng *r, uint64_t seed);
uint64_t rng_next(rng *r);
/* Uniform in [lo, hi). */
double rng_uniform(rng *r, double lo, double hi);

#endif
