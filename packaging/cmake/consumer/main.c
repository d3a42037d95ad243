/* kiln_consumer MODEL SAMPLE LABEL: classifies one digits sample with an
 * installed Kiln and exits 0 when the class is LABEL. Built by
 * packaging/cmake/test_consumer.sh with pkg-config and with find_package. */
#include <stdio.h>
#include <stdlib.h>

#include <kiln.h>

static int fail(const char *what, int32_t status)
{
    char msg[512];
    kiln_last_error(msg, (int32_t)sizeof msg);
    fprintf(stderr, "kiln_consumer: %s: %s: %s\n", what, kiln_status_name(status), msg);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s MODEL SAMPLE LABEL\n", argv[0]);
        return 2;
    }
    if (kiln_abi_version() != KILN_ABI_VERSION) {
        fprintf(stderr, "kiln_consumer: header ABI %d, library ABI %d\n", KILN_ABI_VERSION,
                (int)kiln_abi_version());
        return 1;
    }
    static unsigned char bytes[1 << 16];
    FILE *f = fopen(argv[2], "rb");
    size_t size = f ? fread(bytes, 1, sizeof bytes, f) : 0;
    if (f)
        fclose(f);
    if (size == 0 || size == sizeof bytes) {
        fprintf(stderr, "kiln_consumer: cannot read %s\n", argv[2]);
        return 1;
    }
    kiln_runtime *runtime = NULL;
    kiln_model *model = NULL;
    kiln_session *session = NULL;
    kiln_tensor *input = NULL;
    int32_t dtype = 0, rank = 0, st;
    int64_t dims[8];
    const void *data = NULL;
    size_t nbytes = 0;
    float logits[10];
    int rc = 1;
    if ((st = kiln_runtime_create(NULL, &runtime)) ||
        (st = kiln_model_load_file(runtime, argv[1], NULL, &model)) ||
        (st = kiln_session_create(model, NULL, &session)) ||
        (st = kiln_tensor_decode(bytes, size, &input)) ||
        (st = kiln_tensor_info(input, &dtype, dims, 8, &rank)) ||
        (st = kiln_tensor_data(input, &data, &nbytes)) ||
        (st = kiln_session_set_input_at(session, 0, dtype, dims, rank, data, nbytes, 0)) ||
        (st = kiln_session_run(session)) ||
        (st = kiln_session_output_copy(session, 0, logits, sizeof logits, NULL))) {
        rc = fail("classifying", st);
    } else {
        int best = 0;
        for (int i = 1; i < 10; i++)
            if (logits[i] > logits[best])
                best = i;
        printf("kiln %s: class %d\n", kiln_version(), best);
        rc = best == atoi(argv[3]) ? 0 : 1;
    }
    kiln_tensor_destroy(input);
    kiln_session_destroy(session);
    kiln_model_destroy(model);
    kiln_runtime_destroy(runtime);
    return rc;
}
