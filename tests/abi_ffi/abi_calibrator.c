/* The real sequence, part 3: the calibrator through libffi on the digits
 * model: a batch in, the QDQ model out (file and memory, two-call), loaded
 * back and run, the report read. Leaves live->calibrator (with a report)
 * for the bad-index calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi_check.h"

void calibrator_functions(ffi_api *api, abi_handles *live, const char *model_path,
                          const float *sample)
{
    const int64_t dims[4] = {1, 1, 8, 8};
    void *from_memory = NULL;
    size_t size = 0;
    void *bytes = read_file(model_path, &size);
    if (bytes && OK("kiln_calibrator_create_memory", PTR(live->runtime), PTR(bytes), SZ(size),
                    PTR(NULL), PTR(&from_memory)))
        OK("kiln_calibrator_destroy", PTR(from_memory));
    free(bytes);
    if (!OK("kiln_calibrator_create", PTR(live->runtime), PTR(model_path), PTR(live->options),
            PTR(&live->calibrator)))
        return;
    void *c = live->calibrator;
    OK("kiln_calibrator_configure", PTR(c), PTR(live->options));
    OK("kiln_calibrator_set_input", PTR(c), PTR("image"), I32(K("KILN_DTYPE_FLOAT")), PTR(dims),
       I32(4), PTR(sample), SZ(64 * sizeof(float)));
    OK("kiln_calibrator_add_batch", PTR(c));
    int32_t batches = -1;
    OK("kiln_calibrator_batch_count", PTR(c), PTR(&batches));
    CHECK(batches == 1, "batch_count %d after one batch", (int)batches);

    size_t needed = 0;
    EXPECT(api, "KILN_ERR_BUFFER_TOO_SMALL", "kiln_calibrator_write_memory", PTR(c), PTR(NULL),
           SZ(0), PTR(&needed));
    void *model = needed ? malloc(needed) : NULL;
    void *loaded = NULL;
    if (model && OK("kiln_calibrator_write_memory", PTR(c), PTR(model), SZ(needed), PTR(&needed)) &&
        OK("kiln_model_load_memory", PTR(live->runtime), PTR(model), SZ(needed), PTR(NULL),
           PTR(&loaded))) {
        int32_t nodes = 0;
        OK("kiln_model_node_count", PTR(loaded), PTR(&nodes));
        CHECK(nodes > 7, "the QDQ digits model has %d nodes (7 without Q/DQ)", (int)nodes);
    }
    CALL(api, "kiln_model_destroy", PTR(loaded));
    free(model);
    char path[] = "/tmp/kiln_abi_qdq_XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) {
        close(fd);
        OK("kiln_calibrator_write_file", PTR(c), PTR(path));
        remove(path);
    }
    int32_t lines = 0, kind = -1, zp = -1;
    int64_t bad = -1;
    float stats[5] = {0};
    OK("kiln_calibrator_report_count", PTR(c), PTR(&lines));
    CHECK(lines >= 5, "report has %d lines", (int)lines);
    check_string(api, "kiln_calibrator_report_name", c, 1, 0, "image");
    OK("kiln_calibrator_report_stats", PTR(c), I32(0), PTR(&kind), PTR(&zp), PTR(&bad), PTR(stats),
       SZ(sizeof stats));
    CHECK(kind == K("KILN_CALIB_TENSOR_ACTIVATION") && zp == 0 && bad == 0 && stats[3] > 0,
          "report line 0: kind %d zp %d nonfinite %lld scale %g", (int)kind, (int)zp,
          (long long)bad, stats[3]);
}
