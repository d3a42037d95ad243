/* The practical compute ceiling of this machine for inference: the best rate
 * oneDNN's matmul reaches on large square problems, which the side-by-side
 * benchmark compares each engine's achieved GFLOP/s (or int8 GOP/s) against.
 *
 *   dnnl_peak [--threads N] [--size S] [--int8] [--json]
 *
 * --int8 times the u8 x s8 -> s32 matmul instead of float32's: the integer
 * product quantized models run (uint8 activations, int8 weights, int32
 * accumulators), and on a CPU with VNNI the one with the higher ceiling.
 * It counts 2 operations per multiply-add, as the float figure does.
 */
#include <dnnl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                               \
    do {                                                                          \
        dnnl_status_t s_ = (call);                                                \
        if (s_ != dnnl_success) {                                                 \
            fprintf(stderr, "dnnl_peak: %s failed (status %d)\n", #call, (int)s_); \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Memory of the descriptor's type filled with small varied values (a pattern
 * of 7, so no value is special to the kernel); s32 is the destination and
 * starts at zero. */
static dnnl_memory_t make_memory(dnnl_engine_t engine, const dnnl_memory_desc_t *md, float fill)
{
    dnnl_memory_t m;
    CHECK(dnnl_memory_create(&m, md, engine, DNNL_MEMORY_ALLOCATE));
    void *data = NULL;
    CHECK(dnnl_memory_get_data_handle(m, &data));
    size_t bytes = dnnl_memory_desc_get_size(md);
    switch (md->data_type) {
    case dnnl_f32:
        for (size_t i = 0; i < bytes / sizeof(float); i++)
            ((float *)data)[i] = fill * (float)(i % 7) - 1.0f;
        break;
    case dnnl_u8:
        for (size_t i = 0; i < bytes; i++)
            ((unsigned char *)data)[i] = (unsigned char)(i % 7 * 30);
        break;
    case dnnl_s8:
        for (size_t i = 0; i < bytes; i++)
            ((signed char *)data)[i] = (signed char)((int)(i % 7) * 30 - 90);
        break;
    default:
        memset(data, 0, bytes);
    }
    return m;
}

int main(int argc, char **argv)
{
    int threads = 1, json = 0, int8 = 0;
    long size = 2048;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
            size = atol(argv[++i]);
        else if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--int8") == 0)
            int8 = 1;
        else {
            fprintf(stderr, "usage: dnnl_peak [--threads N] [--size S] [--int8] [--json]\n");
            return 2;
        }
    }
    if (threads < 1 || size < 64) {
        fprintf(stderr, "dnnl_peak: bad --threads or --size\n");
        return 2;
    }
    omp_set_num_threads(threads);
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

    dnnl_dims_t dims = {size, size};
    dnnl_data_type_t src_t = int8 ? dnnl_u8 : dnnl_f32, wei_t = int8 ? dnnl_s8 : dnnl_f32,
                     dst_t = int8 ? dnnl_s32 : dnnl_f32;
    dnnl_memory_desc_t src_md, wei_md, dst_md, wei_any;
    CHECK(dnnl_memory_desc_init_by_tag(&src_md, 2, dims, src_t, dnnl_ab));
    CHECK(dnnl_memory_desc_init_by_tag(&dst_md, 2, dims, dst_t, dnnl_ab));
    CHECK(dnnl_memory_desc_init_by_tag(&wei_any, 2, dims, wei_t, dnnl_format_tag_any));
    dnnl_matmul_desc_t desc;
    CHECK(dnnl_matmul_desc_init(&desc, &src_md, &wei_any, NULL, &dst_md));
    dnnl_primitive_desc_t pd;
    CHECK(dnnl_primitive_desc_create(&pd, &desc, NULL, engine, NULL));
    /* The weights in the layout the kernel prefers, as an inference engine
     * keeps constant weights. */
    wei_md = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    dnnl_primitive_t mm;
    CHECK(dnnl_primitive_create(&mm, pd));
    dnnl_memory_t src = make_memory(engine, &src_md, 0.5f);
    dnnl_memory_t wei = make_memory(engine, &wei_md, 0.25f);
    dnnl_memory_t dst = make_memory(engine, &dst_md, 0.0f);
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}};

    double flop = 2.0 * (double)size * (double)size * (double)size, best = 1e30;
    /* Best of at least 6 runs and 1 s: the int8 product takes a fifth of
     * float's time, and on a shared machine a best-of needs enough tries to
     * catch a quiet moment. The first run includes warm-up. */
    double started = now_s();
    for (int rep = 0; rep < 6 || (now_s() - started < 1.0 && rep < 200); rep++) {
        double t0 = now_s();
        CHECK(dnnl_primitive_execute(mm, stream, 3, args));
        CHECK(dnnl_stream_wait(stream));
        double t = now_s() - t0;
        if (rep > 0 && t < best)
            best = t;
    }
    double rate = flop / best / 1e9;
    if (json && int8)
        printf("{\"threads\": %d, \"size\": %ld, \"dtype\": \"u8s8s32\", \"gops\": %.2f}\n",
               threads, size, rate);
    else if (json)
        printf("{\"threads\": %d, \"size\": %ld, \"gflops\": %.2f}\n", threads, size, rate);
    else if (int8)
        printf("oneDNN u8s8s32 matmul %ld^3, %d thread(s): %.1f GOP/s\n", size, threads, rate);
    else
        printf("oneDNN matmul %ld^3, %d thread(s): %.1f GFLOP/s\n", size, threads, rate);

    dnnl_memory_destroy(src);
    dnnl_memory_destroy(wei);
    dnnl_memory_destroy(dst);
    dnnl_primitive_destroy(mm);
    dnnl_primitive_desc_destroy(pd);
    dnnl_stream_destroy(stream);
    dnnl_engine_destroy(engine);
    return 0;
}
