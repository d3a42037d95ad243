/* ONNX backend test-case folders, as `kiln check` reads them:
 *
 *   CASE/model.onnx
 *   CASE/test_data_set_N/input_K.pb, output_K.pb   (TensorProto files, or
 *       SequenceProto / OptionalProto where the model's value is one) 
 */
#ifndef KILN_CLI_TESTDATA_H
#define KILN_CLI_TESTDATA_H

#include "kiln.h"

#include <stddef.h>

typedef struct data_set {
    char *name; /* "test_data_set_0" */
    kiln_tensor **inputs;
    int input_count;
    kiln_tensor **outputs;
    int output_count;
} data_set;

/* Case folders under dir: dir itself if it holds model.onnx, else its
 * sub-folders (sorted by name) that do. Returns the count (paths are
 * malloc'd; free with free_names), or -1 if dir cannot be read. */
int find_cases(const char *dir, char ***case_dirs);

typedef enum data_status { DATA_OK, DATA_SKIP, DATA_FAIL } data_status;

/* Decodes every data set of a case. input_K.pb / output_K.pb are decoded
 * as the kind (tensor, sequence, optional) of model input / output K; with
 * model NULL (it did not load) everything is read as a TensorProto.
 * DATA_SKIP means the data cannot be expressed through the API (a .pb that
 * does not decode as that kind, string tensors, maps); DATA_FAIL is any
 * other problem. reason says why. The sets are returned even on failure,
 * for free_data_sets. */
data_status load_data_sets(const char *case_dir, const kiln_model *model, data_set **sets,
                           int *count, char *reason, size_t cap);
void free_data_sets(data_set *sets, int count);

#endif
