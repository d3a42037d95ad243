/* The optimizer on real models: each exported model (tools/export_models.py;
 * CI puts them in BUILD/models, KILN_MODELS_DIR overrides) runs at levels 0
 * and 2 on its input_0.pb (or seeded random inputs) and the outputs agree
 * within 1e-4 of the output's largest magnitude (fused kernels sum in a
 * different order). Skipped, saying why, when a model is absent. */
#include <stdio.h>

#include "test_opt_util.h"

static const char *models_dir(void)
{
    const char *env = getenv("KILN_MODELS_DIR");
    return env && env[0] ? env : KILN_BINARY_DIR "/models";
}

/* Binds input 0 from input_0.pb when the model folder has one. */
static int load_input_file(const char dir[1024], opt_inputs *in)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/input_0.pb", dir);
    size_t size = 0;
    void *bytes = kt_read_file(path, &size);
    if (!bytes)
        return 0;
    kiln_tensor *t = NULL;
    KT_OK(kiln_tensor_decode(bytes, size, &t));
    free(bytes);
    const void *data;
    size_t nbytes;
    KT_OK(kiln_tensor_info(t, &in->dtype[0], in->dims[0], 8, &in->rank[0]));
    KT_OK(kiln_tensor_data(t, &data, &nbytes));
    free(in->data[0]);
    in->data[0] = malloc(nbytes ? nbytes : 1);
    memcpy(in->data[0], data, nbytes);
    in->nbytes[0] = nbytes;
    kiln_tensor_destroy(t);
    return 1;
}

static void check_model(const char *name)
{
    char dir[1024], path[1100];
    snprintf(dir, sizeof dir, "%s/%s", models_dir(), name);
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    FILE *f = fopen(path, "rb");
    if (!f)
        cr_skip_test("%s is absent (export it with tools/export_models.py, or set "
                     "KILN_MODELS_DIR)", path);
    fclose(f);
    kiln_runtime *rt = kt_runtime(2);
    kiln_model *m0 = opt_load(rt, path, 0), *m2 = opt_load(rt, path, 2);
    cr_assert_lt(opt_node_count(m2), opt_node_count(m0), "%s: nothing was optimized", name);
    cr_log_info("%s: %d nodes -> %d", name, opt_node_count(m0), opt_node_count(m2));
    opt_inputs in;
    opt_make_inputs(m0, &in);
    load_input_file(dir, &in);
    kiln_session *s0 = opt_run(m0, &in), *s2 = opt_run(m2, &in);
    int32_t n_out = 0;
    KT_OK(kiln_model_output_count(m0, &n_out));
    double worst = opt_compare_sessions(s0, s2, n_out, 1e-4, 1);
    cr_log_info("%s: largest difference %.3g", name, worst);
    kiln_session_destroy(s0);
    kiln_session_destroy(s2);
    opt_free_inputs(&in);
    kiln_model_destroy(m0);
    kiln_model_destroy(m2);
    kiln_runtime_destroy(rt);
}

Test(opt_models, resnet50, .timeout = 600) { check_model("resnet50"); }
Test(opt_models, mobilenet_v2, .timeout = 600) { check_model("mobilenet_v2"); }
Test(opt_models, squeezenet1_1, .timeout = 600) { check_model("squeezenet1_1"); }
Test(opt_models, efficientnet_b0, .timeout = 600) { check_model("efficientnet_b0"); }
Test(opt_models, vit_b_16, .timeout = 600) { check_model("vit_b_16"); }
Test(opt_models, bert_encoder, .timeout = 600) { check_model("bert_encoder"); }
