/* CLI helpers that know nothing about models (see util.h). */
#include "util.h"

#include "kiln.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* ---- messages ---- */

static const char *current_command; /* set once by main, before any thread */

static void (*before_message)(void);

void cli_set_command(const char *name) { current_command = name; }

void cli_set_before_message(void (*hook)(void)) { before_message = hook; }

void cli_error(const char *format, ...)
{
    if (before_message)
        before_message();
    if (current_command)
        fprintf(stderr, "kiln %s: ", current_command);
    else
        fputs("kiln: ", stderr);
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
}

/* ---- arguments ---- */

int arg_value(int argc, char **argv, int *i, const char *name, const char *alt,
              const char **value)
{
    const char *arg = argv[*i];
    const char *names[2] = {name, alt};
    for (int k = 0; k < 2; k++) {
        const char *n = names[k];
        if (!n)
            continue;
        size_t len = strlen(n);
        if (strncmp(arg, n, len) != 0)
            continue;
        if (arg[len] == '=') {
            *value = arg + len + 1;
            return 1;
        }
        if (arg[len] != '\0')
            continue;
        if (*i + 1 >= argc) {
            cli_error("option %s needs a value", n);
            return -1;
        }
        *i += 1;
        *value = argv[*i];
        return 1;
    }
    return 0;
}

int is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

int is_option(const char *arg)
{
    return arg[0] == '-' && arg[1] != '\0';
}

int parse_count(const char *text, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end != '\0' || v < 0 || v > INT_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

int parse_positive_int(const char *text, int *out)
{
    int v;
    if (parse_count(text, &v) != 0 || v < 1)
        return -1;
    *out = v;
    return 0;
}

int parse_shape(const char *text, int64_t **dims, int32_t *rank)
{
    *dims = NULL;
    *rank = 0;
    if (text[0] == '\0' || strcmp(text, "scalar") == 0)
        return 0;
    int32_t n = 1;
    for (const char *p = text; *p; p++)
        n += (*p == 'x' || *p == 'X' || *p == ',');
    int64_t *d = malloc(sizeof *d * (size_t)n);
    if (!d)
        return -1;
    const char *p = text;
    for (int32_t k = 0; k < n; k++) {
        char *end = NULL;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        int last = (k == n - 1);
        int sep_ok = last ? (*end == '\0') : (*end == 'x' || *end == 'X' || *end == ',');
        if (errno || end == p || v < 0 || !sep_ok || *p == '-' || *p == '+') {
            free(d);
            return -1;
        }
        d[k] = (int64_t)v;
        p = end + (last ? 0 : 1);
    }
    *dims = d;
    *rank = n;
    return 0;
}

static char *dup_range(const char *s, size_t len)
{
    char *r = malloc(len + 1);
    if (r) {
        memcpy(r, s, len);
        r[len] = '\0';
    }
    return r;
}

void parse_name_file(const char *text, char **name, const char **path)
{
    *name = NULL;
    *path = text;
    if (file_exists(text))
        return;
    const char *first = strchr(text, '=');
    for (const char *eq = first; eq; eq = strchr(eq + 1, '=')) {
        if (file_exists(eq + 1)) {
            *name = dup_range(text, (size_t)(eq - text));
            *path = eq + 1;
            return;
        }
    }
    /* Nothing exists either way: split at the first '=' so the error names
     * the file the user most likely meant. */
    if (first) {
        *name = dup_range(text, (size_t)(first - text));
        *path = first + 1;
    }
}

int parse_name_value(const char *text, char **name, const char **value)
{
    const char *eq = strrchr(text, '=');
    if (!eq || eq == text)
        return -1;
    *name = dup_range(text, (size_t)(eq - text));
    *value = eq + 1;
    return *name ? 0 : -1;
}

/* ---- files ---- */

void *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    /* Read in growing chunks rather than trusting fseek/ftell, so pipes and
     * files that change size while read still work. */
    while (buf) {
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap)
            break;
        char *bigger = realloc(buf, cap * 2 + 1);
        if (!bigger) {
            free(buf);
            buf = NULL;
            errno = ENOMEM;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    if (buf && ferror(f)) {
        int err = errno ? errno : EIO;
        free(buf);
        buf = NULL;
        errno = err;
    }
    fclose(f);
    if (!buf)
        return NULL;
    buf[len] = '\0';
    *size = len;
    return buf;
}

int write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t written = fwrite(data, 1, size, f);
    int err = (written != size) ? (errno ? errno : EIO) : 0;
    if (fclose(f) != 0 && !err)
        err = errno ? errno : EIO;
    if (err) {
        errno = err;
        return -1;
    }
    return 0;
}

int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int dir_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int make_dirs(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    /* Create each prefix in turn; existing ones are fine. */
    for (char *p = copy + 1; ; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
            int err = errno;
            free(copy);
            errno = err;
            return -1;
        }
        *p = saved;
        if (saved == '\0')
            break;
    }
    free(copy);
    if (!dir_exists(path)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

char *path_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    int slash = (a > 0 && dir[a - 1] != '/');
    char *r = malloc(a + (size_t)slash + b + 1);
    if (!r)
        return NULL;
    memcpy(r, dir, a);
    if (slash)
        r[a] = '/';
    memcpy(r + a + (size_t)slash, name, b + 1);
    return r;
}

char *path_basename(const char *path)
{
    size_t end = strlen(path);
    while (end > 1 && path[end - 1] == '/')
        end--;
    size_t start = end;
    while (start > 0 && path[start - 1] != '/')
        start--;
    return dup_range(path + start, end - start);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of dir's sub-directories (want_dirs 1) or regular files (0). */
static int list_entries(const char *dir, char ***names, int want_dirs)
{
    *names = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int count = 0, cap = 0;
    char **list = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *full = path_join(dir, e->d_name);
        int wanted = full && (want_dirs ? dir_exists(full) : file_exists(full));
        free(full);
        if (!wanted)
            continue;
        if (count == cap) {
            cap = cap ? cap * 2 : 64;
            char **bigger = realloc(list, sizeof *list * (size_t)cap);
            if (!bigger)
                break;
            list = bigger;
        }
        char *copy = strdup(e->d_name);
        if (!copy)
            break;
        list[count++] = copy;
    }
    closedir(d);
    if (count > 0)
        qsort(list, (size_t)count, sizeof *list, compare_names);
    *names = list;
    return count;
}

int list_subdirs(const char *dir, char ***names)
{
    return list_entries(dir, names, 1);
}

int list_files(const char *dir, char ***names)
{
    return list_entries(dir, names, 0);
}

void free_names(char **names, int count)
{
    for (int i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

/* ---- timing and memory ---- */

double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

double peak_rss_mib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    double mib = -1;
    while (fgets(line, sizeof line, f)) {
        long long kb;
        if (sscanf(line, "VmHWM: %lld kB", &kb) == 1) {
            mib = (double)kb / 1024.0;
            break;
        }
    }
    fclose(f);
    return mib;
}

/* ---- JSON ---- */

static void json_quoted(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

void json_begin(json_writer *w, FILE *out)
{
    w->out = out;
    w->fields = 0;
    fputc('{', out);
}

static void json_key(json_writer *w, const char *key)
{
    if (w->fields++)
        fputs(", ", w->out);
    json_quoted(w->out, key);
    fputs(": ", w->out);
}

void json_string(json_writer *w, const char *key, const char *value)
{
    json_key(w, key);
    json_quoted(w->out, value);
}

void json_number(json_writer *w, const char *key, double value)
{
    json_key(w, key);
    /* JSON has no NaN or infinity; null is the honest stand-in. */
    if (value != value || value > 1e308 || value < -1e308)
        fputs("null", w->out);
    else
        fprintf(w->out, "%.6g", value); /* %g output is valid JSON for finite values */
}

void json_int(json_writer *w, const char *key, long long value)
{
    json_key(w, key);
    fprintf(w->out, "%lld", value);
}

void json_end(json_writer *w)
{
    fputs("}\n", w->out);
}

/* ---- element types ---- */

static const struct {
    int32_t code;
    const char *name;
    size_t size;
} dtype_table[] = {
    {KILN_DTYPE_FLOAT, "float32", 4},   {KILN_DTYPE_UINT8, "uint8", 1},
    {KILN_DTYPE_INT8, "int8", 1},       {KILN_DTYPE_UINT16, "uint16", 2},
    {KILN_DTYPE_INT16, "int16", 2},     {KILN_DTYPE_INT32, "int32", 4},
    {KILN_DTYPE_INT64, "int64", 8},     {KILN_DTYPE_STRING, "string", 0},
    {KILN_DTYPE_BOOL, "bool", 1},       {KILN_DTYPE_FLOAT16, "float16", 2},
    {KILN_DTYPE_DOUBLE, "float64", 8},  {KILN_DTYPE_UINT32, "uint32", 4},
    {KILN_DTYPE_UINT64, "uint64", 8},   {KILN_DTYPE_BFLOAT16, "bfloat16", 2},
    {KILN_DTYPE_FLOAT8E4M3FN, "float8e4m3fn", 1},
    {KILN_DTYPE_FLOAT8E4M3FNUZ, "float8e4m3fnuz", 1},
    {KILN_DTYPE_FLOAT8E5M2, "float8e5m2", 1},
    {KILN_DTYPE_FLOAT8E5M2FNUZ, "float8e5m2fnuz", 1},
    {KILN_DTYPE_FLOAT8E8M0, "float8e8m0", 1},
    /* packed sub-byte types: no whole bytes per element (see dtype_bits) */
    {KILN_DTYPE_UINT4, "uint4", 0},     {KILN_DTYPE_INT4, "int4", 0},
    {KILN_DTYPE_FLOAT4E2M1, "float4e2m1", 0},
    {KILN_DTYPE_UINT2, "uint2", 0},     {KILN_DTYPE_INT2, "int2", 0},
};

const char *dtype_name(int32_t dtype)
{
    for (size_t i = 0; i < sizeof dtype_table / sizeof dtype_table[0]; i++)
        if (dtype_table[i].code == dtype)
            return dtype_table[i].name;
    return "unknown";
}

size_t dtype_size(int32_t dtype)
{
    for (size_t i = 0; i < sizeof dtype_table / sizeof dtype_table[0]; i++)
        if (dtype_table[i].code == dtype)
            return dtype_table[i].size;
    return 0;
}

int dtype_bits(int32_t dtype)
{
    switch (dtype) {
    case KILN_DTYPE_UINT4: case KILN_DTYPE_INT4: case KILN_DTYPE_FLOAT4E2M1: return 4;
    case KILN_DTYPE_UINT2: case KILN_DTYPE_INT2: return 2;
    default: return 8 * (int)dtype_size(dtype);
    }
}

int64_t dtype_nbytes(int32_t dtype, int64_t elements)
{
    int bits = dtype_bits(dtype);
    if (bits == 0 || elements < 0)
        return -1;
    if (bits < 8) /* packed: whole bytes, rounded up */
        return elements / (8 / bits) + (elements % (8 / bits) != 0);
    return elements > INT64_MAX / (bits / 8) ? -1 : elements * (bits / 8);
}

void format_shape(const int64_t *dims, int32_t rank, char *buf, size_t cap)
{
    if (cap == 0)
        return;
    if (rank < 0) {
        snprintf(buf, cap, "(unknown rank)");
        return;
    }
    size_t len = (size_t)snprintf(buf, cap, "[");
    for (int32_t i = 0; i < rank && len < cap; i++) {
        const char *sep = i ? ", " : "";
        if (dims[i] < 0)
            len += (size_t)snprintf(buf + len, cap - len, "%s?", sep);
        else
            len += (size_t)snprintf(buf + len, cap - len, "%s%lld", sep, (long long)dims[i]);
    }
    if (len < cap)
        snprintf(buf + len, cap - len, "]");
}

void format_dims(const int64_t *dims, int32_t rank, char *buf, size_t cap)
{
    if (cap == 0)
        return;
    if (rank <= 0) {
        snprintf(buf, cap, "%s", rank < 0 ? "unknown shape" : "scalar");
        return;
    }
    size_t len = 0;
    for (int32_t i = 0; i < rank && len < cap; i++) {
        const char *sep = i ? "x" : "";
        if (dims[i] < 0)
            len += (size_t)snprintf(buf + len, cap - len, "%s?", sep);
        else
            len += (size_t)snprintf(buf + len, cap - len, "%s%lld", sep, (long long)dims[i]);
    }
}

/* ---- random numbers ---- */

void rng_seed(rng *r, uint64_t seed)
{
    /* xorshift must never hold zero; mix the seed so small seeds differ. */
    r->state = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (r->state == 0)
        r->state = 1;
}

uint64_t rng_next(rng *r)
{
    uint64_t x = r->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

double rng_uniform(rng *r, double lo, double hi)
{
    /* Top 53 bits give every double in [0, 1) an equal chance. */
    double unit = (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
    return lo + (hi - lo) * unit;
}
