/* -i [NAME=]FILE.pb inputs: see input_files.h. */
#include "input_files.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "util.h"

int bind_tensor_files(const kiln_model *model, kiln_session *session, const char *const *specs,
                      int count, kiln_tensor **tensors, char *bound)
{
    int32_t input_count = 0;
    kiln_model_input_count(model, &input_count);
    int rc = 0;
    for (int k = 0; k < count && rc == 0; k++) {
        char *name = NULL;
        const char *path = NULL;
        parse_name_file(specs[k], &name, &path);
        size_t size = 0;
        void *bytes = read_file(path, &size);
        int32_t status;
        rc = -1;
        if (!bytes) {
            cli_error("cannot read %s: %s", path, strerror(errno));
        } else if ((status = kiln_tensor_decode(bytes, size, &tensors[k])) != KILN_OK) {
            report_error("cannot decode", path, status);
        } else {
            int32_t index = resolve_input(model, name, tensors[k], k, input_count);
            int32_t dtype = 0;
            shape s = {-1, NULL};
            const void *data = NULL;
            size_t nbytes = 0;
            if (index < 0) {
                /* resolve_input said why */
            } else if (bound[index]) {
                char *input = model_input_name(model, index, NULL);
                cli_error("input '%s' is given more than once", input ? input : "?");
                free(input);
            } else if ((status = tensor_shape(tensors[k], &dtype, &s)) != KILN_OK ||
                       (status = kiln_tensor_data(tensors[k], &data, &nbytes)) != KILN_OK ||
                       (status = kiln_session_set_input_at(session, index, dtype, s.dims, s.rank,
                                                           data, nbytes, 0)) != KILN_OK) {
                report_error("cannot bind", path, status);
            } else {
                bound[index] = 1;
                rc = 0;
            }
            shape_free(&s);
        }
        free(bytes);
        free(name);
    }
    return rc;
}

int report_missing_inputs(const kiln_model *model, const char *bound)
{
    int32_t input_count = 0;
    kiln_model_input_count(model, &input_count);
    int missing = 0;
    for (int32_t i = 0; i < input_count; i++) {
        if (bound[i])
            continue;
        missing++;
        char *name = model_input_name(model, i, NULL);
        int32_t dtype = 0;
        shape s = {-1, NULL};
        kiln_model_input_dtype(model, i, &dtype);
        model_input_shape(model, i, &s);
        char dims[512];
        format_dims(s.dims, s.rank, dims, sizeof dims);
        /* A float input of rank 4 is most likely an image batch. */
        int image = dtype == KILN_DTYPE_FLOAT && s.rank == 4;
        cli_error("missing input '%s' (%s, %s): give it with -i %s=FILE.pb%s%s%s",
                  name ? name : "?", dtype ? dtype_name(dtype) : "any dtype", dims,
                  name ? name : "NAME", image ? " or --image " : "", image && name ? name : "",
                  image ? "=FILE.png" : "");
        shape_free(&s);
        free(name);
    }
    return missing;
}
