/* The CUDA backend (core/cuda/) as far as a machine goes. Everywhere: the
 * descriptor is there in every build (absent/ without nvcc), opt-in and
 * not offered eager plans; without a driver it is not available and says
 * why in the loader's words; each .cu file was compiled by nvcc into a
 * fatbin that is embedded in the library; the kernel tables are well
 * formed (every op is one Kiln's CPU backend knows, at sane opsets); every
 * kernel declines a node when it was given no device. On a machine with an
 * NVIDIA GPU (tests/gpu/run.sh): the device opens and describes itself,
 * memory round-trips, and the kernels are compared with Kiln's CPU kernels
 * on the same nodes; without one those tests skip and say so. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel/backend.h"
#include "kernel_harness.h"

extern const kn_backend kn_backend_cuda;

Test(cuda_backend, the_descriptor_is_in_every_build)
{
    cr_assert_str_eq(kn_backend_cuda.name, "cuda");
    cr_assert_eq(kn_backend_cuda.memory.kind, KN_MEMORY_DEVICE);
    cr_assert(kn_backend_cuda.flags & KN_BACKEND_OPT_IN, "a CPU user must never load CUDA");
    cr_assert(kn_backend_cuda.flags & KN_BACKEND_NOT_EAGER);
    cr_assert_not_null(kn_backend_cuda.available);
}

#ifndef KILN_WITH_CUDA

Test(cuda_backend, without_nvcc_it_is_never_available)
{
    cr_assert_eq(kn_backend_cuda.available(), 0);
    cr_assert_null(kn_backend_cuda.kernel_tables);
}

#else

#include "core/cuda/cuda_device.h"
#include "core/cuda/cuda_fatbins.h"

extern const kn_backend kn_backend_cuda;

Test(cuda_backend, every_memory_hook_is_there)
{
    const kn_backend_memory *m = &kn_backend_cuda.memory;
    cr_assert(m->open && m->close && m->alloc && m->free && m->copy && m->stream_create &&
              m->stream_destroy && m->stream_sync && m->describe);
}

Test(cuda_backend, without_a_driver_it_is_unavailable_and_says_why)
{
    if (kn_backend_cuda.available())
        cr_skip_test("a CUDA device is present here: nothing to decline");
    const char *why = kn_cuda_unavailable_reason();
    cr_assert_not_null(why);
    /* the loader's words: a missing library named, or the driver missing */
    cr_assert(strstr(why, "CUDA") != NULL, "reason: %s", why);
    cr_log_info("CUDA backend unavailable: %s", why);
    kn_err err = {0};
    cr_assert_null(kn_backend_cuda.memory.open(0, &err));
    cr_assert_eq(err.code, KN_ERR_UNSUPPORTED, "%s", err.msg);
}

/* Every .cu file of core/cuda was compiled into a fatbin and embedded. */
Test(cuda_backend, every_cu_file_is_an_embedded_fatbin)
{
    DIR *dir = opendir(KILN_SOURCE_DIR "/core/cuda");
    cr_assert_not_null(dir);
    int n_cu = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".cu") != 0)
            continue;
        n_cu++;
        int found = 0;
        for (int i = 0; kn_cuda_fatbins[i].name; i++)
            found |= strlen(kn_cuda_fatbins[i].name) == len - 3 &&
                     strncmp(kn_cuda_fatbins[i].name, e->d_name, len - 3) == 0;
        cr_assert(found, "core/cuda/%s has no embedded fatbin", e->d_name);
    }
    closedir(dir);
    int n_fatbins = 0;
    for (int i = 0; kn_cuda_fatbins[i].name; i++, n_fatbins++) {
        const kn_cuda_fatbin *f = &kn_cuda_fatbins[i];
        cr_assert_gt(f->size, 16u, "%s", f->name);
        uint32_t magic = (uint32_t)f->data[0] | (uint32_t)f->data[1] << 8 |
                         (uint32_t)f->data[2] << 16 | (uint32_t)f->data[3] << 24;
        cr_assert_eq(magic, KN_CUDA_FATBIN_MAGIC, "%s: magic %08x", f->name, magic);
        /* header: magic, version (1), header size (16), then the payload's size */
        uint16_t version = (uint16_t)(f->data[4] | f->data[5] << 8);
        uint16_t header = (uint16_t)(f->data[6] | f->data[7] << 8);
        uint64_t payload = 0;
        for (int b = 7; b >= 0; b--)
            payload = payload << 8 | f->data[8 + b];
        cr_assert_eq(version, 1, "%s", f->name);
        cr_assert_eq(header, 16, "%s", f->name);
        cr_assert_eq(payload + header, f->size, "%s: header says %llu + %u bytes, embedded %zu",
                     f->name, (unsigned long long)payload, header, f->size);
        cr_assert_eq((uintptr_t)f->data % 8, 0, "%s: the driver reads the header in place",
                     f->name);
    }
    cr_assert_eq(n_fatbins, n_cu);
}

/* Each row names an op Kiln's CPU backend serves at its first opset (so a
 * declined node always has somewhere to go), with a sane opset range. */
Test(cuda_backend, kernel_tables_are_well_formed)
{
    int rows = 0;
    for (const kn_op_def *const *const *t = kn_backend_cuda.kernel_tables; *t; t++)
        for (const kn_op_def *const *row = *t; *row; row++, rows++) {
            const kn_op_def *d = *row;
            cr_assert_not_null(d->op_type);
            cr_assert(d->prepare && d->run, "%s", d->op_type);
            cr_assert_geq(d->since_version, 1, "%s", d->op_type);
            cr_assert(d->until_version == 0 || d->until_version >= d->since_version, "%s",
                      d->op_type);
            cr_assert_leq(d->since_version, 26, "%s", d->op_type);
            cr_assert_not_null(kn_backend_kernel_any(&kn_backend_cpu, d->domain, d->op_type,
                                                     d->since_version),
                               "%s (domain %s) opset %d: no CPU kernel to fall back on",
                               d->op_type, d->domain ? d->domain : "ai.onnx", d->since_version);
        }
    cr_assert_gt(rows, 30);
    cr_log_info("CUDA backend: %d kernel rows", rows);
}

/* With no device in the kernel context every kernel declines (the engine
 * gives one only to nodes of a session that asked for the GPU). */
Test(cuda_backend, every_kernel_declines_without_a_device)
{
    static float data[4 * 3 * 8 * 8];
    const int64_t dims[] = {4, 3, 8, 8};
    for (const kn_op_def *const *const *t = kn_backend_cuda.kernel_tables; *t; t++)
        for (const kn_op_def *const *row = *t; *row; row++) {
            const kn_op_def *d = *row;
            kh_case c;
            kh_init(&c, d->op_type, d->since_version, 3, 1);
            c.node.domain = d->domain ? d->domain : "";
            for (int32_t i = 0; i < 3; i++)
                kh_input(&c, i, KN_FLOAT, dims, 4, data);
            size_t scratch = 0;
            int rc = kh_prepare_kernel(&c, &kn_backend_cuda, ~0u, &scratch);
            cr_assert_eq(rc, KN_ERR_DECLINE, "%s: prepare without a device returned %d (%s)",
                         d->op_type, rc, c.err.msg);
            kh_free(&c);
        }
}

#endif
