/* The load pipeline from a file: the model's bytes as a private read-only
 * mapping, so the reader can give pages back as it copies tensors out
 * (peak ~1x the model size, not 2x); a plain read where mapping is
 * impossible (empty or special files). External data is resolved against
 * the model's folder. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/engine/load.h"
#include "core/engine/model.h"
#include "core/engine/weight_store.h"

typedef struct file_bytes {
    void *p;
    size_t size;
    int mapped;
    int fd; /* kept open while mapped: the weight store may read weights back */
} file_bytes;

static int read_model_file(const char *path, size_t max_bytes, file_bytes *fb, kn_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return kn_fail(err, KN_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        /* a folder opens for reading; say so in the OS's own words */
        const char *why = fstat(fd, &st) != 0   ? strerror(errno)
                          : S_ISDIR(st.st_mode) ? strerror(EISDIR)
                                                : "not a regular file";
        close(fd);
        return kn_fail(err, KN_ERR_IO, "cannot read '%s': %s", path, why);
    }
    size_t size = (size_t)st.st_size;
    if (max_bytes && size > max_bytes) {
        close(fd);
        return kn_fail(err, KN_ERR_LIMIT, "'%s' is %zu bytes, above the %zu MiB model limit",
                       path, size, max_bytes >> 20);
    }
    fb->size = size;
    if (size > 0) {
        void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            fb->fd = fd;
            fb->p = p;
            fb->mapped = 1;
            return KN_OK;
        }
    }
    fb->p = malloc(size ? size : 1);
    size_t got = 0;
    int read_errno = 0;
    while (fb->p && got < size) {
        ssize_t n = read(fd, (char *)fb->p + got, size - got);
        if (n <= 0) {
            read_errno = n < 0 ? errno : 0;
            break;
        }
        got += (size_t)n;
    }
    close(fd);
    if (!fb->p)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "cannot hold '%s' in memory", path);
    if (got != size) {
        free(fb->p);
        return kn_fail(err, KN_ERR_IO, "short read on '%s'%s%s", path, read_errno ? ": " : "",
                       read_errno ? strerror(read_errno) : "");
    }
    return KN_OK;
}

int kn_model_load_file(const char *path, const kn_load_options *o, kn_model **out, kn_err *err)
{
    *out = NULL;
    file_bytes fb = {.fd = -1};
    int rc = read_model_file(path, o->max_bytes, &fb, err);
    if (rc != KN_OK)
        return rc;
    char *dir = strdup(path);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash)
        *slash = 0;
    kn_load_options named = *o;
    named.source = path;
    rc = dir ? kn_model_load(fb.p, fb.size, slash ? dir : ".", fb.mapped, &named, out, err)
             : kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory");
    free(dir);
    if (fb.mapped)
        munmap(fb.p, fb.size);
    else
        free(fb.p);
    /* the store reads evicted one-way weights back from the file */
    if (fb.fd >= 0 && !(rc == KN_OK && kn_weight_store_attach_file((*out)->weights, fb.fd, path,
                                                                   (*out)->ir->file_spans)))
        close(fb.fd);
    return rc;
}
