/* Helpers shared by the Criterion suites. */
#ifndef KILN_TEST_SUPPORT_H
#define KILN_TEST_SUPPORT_H

#include <stddef.h>

/* Reads a whole file into a malloc'd buffer (NULL if it cannot be read). */
void *kt_read_file(const char *path, size_t *size);
/* Path of a file under the source tree, in a static buffer. */
const char *kt_src_path(const char *relative);
/* 1 if the directory exists. */
int kt_dir_exists(const char *path);

#endif
