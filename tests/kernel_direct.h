/* Two helpers the kernel suites that go past the harness share: a small
 * deterministic generator and kh_run for kernels of another domain or with
 * a ninth input. Header-only (static) like kernel_checks.h, since each
 * suite is its own executable. */
#ifndef KILN_TESTS_KERNEL_DIRECT_H
#define KILN_TESTS_KERNEL_DIRECT_H

#include "core/engine/registry.h"
#include "kernel_checks.h"

static uint32_t rng = 2024;
static inline int rand_int(int lo, int hi) /* [lo, hi] */
{
    rng = rng * 1664525u + 1013904223u;
    return lo + (int)((rng >> 8) % (uint32_t)(hi - lo + 1));
}

/* kh_run for what the harness cannot express: a kernel of another domain,
 * or a ninth input (`extra`, NULL if none). Outputs of an earlier run are
 * freed first; kh_free frees these. */
static inline int run_direct(kh_case *cs, const char *domain, kn_tensor *extra, int threads)
{
    kn_tensor *in[KH_MAX_IO + 1], *out[KH_MAX_IO];
    int32_t n_in = cs->n_in;
    for (int32_t i = 0; i < n_in; i++)
        in[i] = cs->in[i].data ? &cs->in[i] : NULL;
    if (extra)
        in[n_in++] = extra;
    kh_free(cs);
    for (int32_t i = 0; i < cs->n_out; i++)
        out[i] = &cs->out[i];
    cs->node.domain = domain;
    const kn_op_def *d =
        kn_backend_kernel(&kn_backend_cpu, domain, cs->node.op_type, cs->opset, cs->in[0].dtype);
    cr_assert(d, "no %s kernel for %s", domain, cs->node.op_type);
    kn_threadpool *pool = threads > 1 ? kn_threadpool_create(threads) : NULL;
    kn_kctx k = {.node = &cs->node, .opset = cs->opset, .n_in = n_in, .n_out = cs->n_out,
                 .in = in, .out = out, .threads = pool, .err = &cs->err};
    int rc = d->prepare(&k);
    if (rc == KN_OK) {
        for (int32_t i = 0; i < cs->n_out; i++)
            cs->out[i].data = calloc(1, (size_t)kn_tensor_nbytes(&cs->out[i]) + 1);
        k.scratch = k.scratch_bytes ? aligned_alloc(64, (k.scratch_bytes + 63) & ~(size_t)63) : NULL;
        rc = d->run(&k);
        free(k.scratch);
    }
    if (d->release)
        d->release(&k);
    kn_threadpool_destroy(pool);
    return rc;
}

/* ---- QuantizeLinear ------------------------------------------------------ */

#endif
