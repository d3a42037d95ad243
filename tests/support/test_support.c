#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

void *kt_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return NULL;
    }
    long n = ftell(f);
    rewind(f);
    void *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf)
        *size = (size_t)(n > 0 ? n : 0);
    return buf;
}

const char *kt_src_path(const char *relative)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", KILN_SOURCE_DIR, relative);
    return buf;
}

int kt_dir_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}
