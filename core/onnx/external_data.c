/* External tensor data: a file next to the model, named by a relative path.
 * The path comes from an untrusted file, so it may not be absolute, may not
 * contain "..", and after resolving symbolic links must still lie inside the
 * model's folder; offset and length must lie inside the file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "core/onnx/reader.h"

#if defined(_WIN32)
#define canonical_path(p) _fullpath(NULL, (p), 0)
#define kn_fseek(f, off) _fseeki64((f), (__int64)(off), SEEK_SET)
#else
#define canonical_path(p) realpath((p), NULL)
#define kn_fseek(f, off) fseeko((f), (off_t)(off), SEEK_SET)
#endif

/* Strict unsigned decimal: digits only, no sign, no overflow. */
static int parse_size(kn_onnx_str s, uint64_t *out)
{
    if (s.n == 0 || s.n > 20)
        return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < s.n; i++) {
        unsigned d = (unsigned char)s.p[i] - '0';
        if (d > 9 || v > (UINT64_MAX - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

static int is_sep(char ch) { return ch == '/' || ch == '\\'; }

/* Relative, no "..", no NUL, no drive letter. */
static const char *bad_location(kn_onnx_str loc)
{
    if (loc.n == 0)
        return "is empty";
    if (memchr(loc.p, 0, loc.n))
        return "contains a NUL byte";
    if (is_sep(loc.p[0]) || (loc.n >= 2 && loc.p[1] == ':'))
        return "is an absolute path";
    for (size_t i = 0; i < loc.n;) {
        size_t j = i;
        while (j < loc.n && !is_sep(loc.p[j]))
            j++;
        if (j - i == 2 && loc.p[i] == '.' && loc.p[i + 1] == '.')
            return "contains '..'";
        i = j + 1;
    }
    return NULL;
}

/* 1 if `path` is `dir` or below it (both canonical). */
static int is_inside(const char *dir, const char *path)
{
    size_t n = strlen(dir);
    if (strncmp(dir, path, n) != 0)
        return 0;
    return path[n] == 0 || is_sep(path[n]) || (n > 0 && is_sep(dir[n - 1]));
}

/* Resolves the file and checks it stays inside base_dir; *real is malloc'd. */
static int resolve(kn_onnx_ctx *c, const char *tensor, const char *loc, char **real)
{
    size_t nb = strlen(c->base_dir), nl = strlen(loc);
    char *joined = malloc(nb + nl + 2);
    if (!joined)
        return kn_fail(c->err, KN_ERR_OUT_OF_MEMORY, "out of memory for an external data path");
    memcpy(joined, c->base_dir, nb);
    joined[nb] = '/';
    memcpy(joined + nb + 1, loc, nl + 1);
    char *base = canonical_path(c->base_dir);
    char *file = canonical_path(joined);
    int rc = KN_OK;
    if (!base)
        rc = kn_fail(c->err, KN_ERR_IO, "tensor '%s': cannot resolve model folder '%s': %s",
                     tensor, c->base_dir, strerror(errno));
    else if (!file)
        rc = kn_fail(c->err, KN_ERR_IO, "tensor '%s': cannot open external data file '%s': %s",
                     tensor, joined, strerror(errno));
    else if (!is_inside(base, file))
        rc = kn_fail(c->err, KN_ERR_INVALID_MODEL,
                     "tensor '%s': external data file '%s' lies outside the model folder",
                     tensor, loc);
    free(joined);
    free(base);
    if (rc != KN_OK)
        free(file);
    else
        *real = file;
    return rc;
}

static int read_range(kn_onnx_ctx *c, const char *tensor, const char *path, uint64_t offset,
                      size_t nbytes, void *dst)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return kn_fail(c->err, KN_ERR_IO, "tensor '%s': cannot open external data file '%s': %s",
                       tensor, path, strerror(errno));
    int ok = kn_fseek(f, offset) == 0 && (nbytes == 0 || fread(dst, 1, nbytes, f) == nbytes);
    fclose(f);
    if (!ok)
        return kn_fail(c->err, KN_ERR_IO, "tensor '%s': cannot read %zu bytes at offset %llu of "
                       "external data file '%s'", tensor, nbytes, (unsigned long long)offset, path);
    return KN_OK;
}

int kn_onnx_load_external(kn_onnx_ctx *c, const char *tensor, const kn_onnx_external *ext,
                          size_t nbytes, void **data)
{
    if (!c->base_dir)
        return kn_fail(c->err, KN_ERR_UNSUPPORTED,
                       "tensor '%s' keeps its data in an external file, which needs the model's "
                       "folder (load the model from a file)", tensor);
    if (!ext->location.p)
        return kn_fail(c->err, KN_ERR_INVALID_MODEL,
                       "tensor '%s' has external data without a location", tensor);
    const char *why = bad_location(ext->location);
    if (why)
        return kn_fail(c->err, KN_ERR_INVALID_MODEL,
                       "tensor '%s': external data location '%.*s' %s", tensor,
                       (int)(ext->location.n > 200 ? 200 : ext->location.n), ext->location.p, why);
    uint64_t offset = 0, length = 0;
    if (ext->offset.p && !parse_size(ext->offset, &offset))
        return kn_fail(c->err, KN_ERR_INVALID_MODEL,
                       "tensor '%s': external data offset '%.*s' is not a byte count", tensor,
                       (int)(ext->offset.n > 40 ? 40 : ext->offset.n), ext->offset.p);
    if (ext->length.p && !parse_size(ext->length, &length))
        return kn_fail(c->err, KN_ERR_INVALID_MODEL,
                       "tensor '%s': external data length '%.*s' is not a byte count", tensor,
                       (int)(ext->length.n > 40 ? 40 : ext->length.n), ext->length.p);

    char *loc = kn_onnx_strdup(c, ext->location);
    if (!loc)
        return c->err->code;
    char *path = NULL;
    int rc = resolve(c, tensor, loc, &path);
    if (rc != KN_OK)
        return rc;
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = kn_fail(c->err, KN_ERR_IO, "tensor '%s': external data '%s' is not a readable file",
                     tensor, loc);
    } else {
        uint64_t size = (uint64_t)st.st_size;
        if (!ext->length.p)
            length = offset <= size ? size - offset : 0;
        if (offset > size)
            rc = kn_fail(c->err, KN_ERR_INVALID_MODEL, "tensor '%s': external data offset %llu "
                         "is past the end of '%s' (%llu bytes)", tensor,
                         (unsigned long long)offset, loc, (unsigned long long)size);
        else if (length > size - offset)
            rc = kn_fail(c->err, KN_ERR_INVALID_MODEL, "tensor '%s': external data range "
                         "%llu+%llu is past the end of '%s' (%llu bytes)", tensor,
                         (unsigned long long)offset, (unsigned long long)length, loc,
                         (unsigned long long)size);
        else if (length != nbytes)
            rc = kn_fail(c->err, KN_ERR_INVALID_MODEL, "tensor '%s': external data has %llu "
                         "bytes, but its dims need %zu", tensor, (unsigned long long)length,
                         nbytes);
        else if (!(*data = kn_onnx_alloc(c, c->bump, nbytes, 1, "external tensor data")))
            rc = c->err->code;
        else
            rc = read_range(c, tensor, path, offset, nbytes, *data);
    }
    free(path);
    return rc;
}
