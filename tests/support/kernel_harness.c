#include "kernel_harness.h"

#include <stdlib.h>
#include <string.h>

void kh_init(kh_case *c, const char *op_type, int64_t opset, int32_t n_in, int32_t n_out)
{
    memset(c, 0, sizeof *c);
    c->node.name = "test_node";
    c->node.op_type = op_type;
    c->node.domain = "";
    c->node.attrs = c->attrs;
    c->node.n_inputs = n_in;
    c->node.n_outputs = n_out;
    c->node.inputs = c->in_ids;
    c->node.outputs = c->out_ids;
    for (int32_t i = 0; i < KH_MAX_IO; i++)
        c->in_ids[i] = c->out_ids[i] = i;
    c->n_in = n_in;
    c->n_out = n_out;
    c->opset = opset;
    c->inputs_constant_in_prepare = 1;
}

static kn_attr *add_attr(kh_case *c, const char *name, int32_t type)
{
    kn_attr *a = &c->attrs[c->node.n_attrs++];
    memset(a, 0, sizeof *a);
    a->name = name;
    a->type = type;
    return a;
}

void kh_attr_int(kh_case *c, const char *name, int64_t v) { add_attr(c, name, KN_ATTR_INT)->i = v; }
void kh_attr_float(kh_case *c, const char *name, float v) { add_attr(c, name, KN_ATTR_FLOAT)->f = v; }

void kh_attr_string(kh_case *c, const char *name, const char *v)
{
    kn_attr *a = add_attr(c, name, KN_ATTR_STRING);
    a->s = v;
    a->s_len = (int64_t)strlen(v);
}

void kh_attr_ints(kh_case *c, const char *name, const int64_t *v, int32_t n)
{
    kn_attr *a = add_attr(c, name, KN_ATTR_INTS);
    a->ints = v;
    a->count = n;
}

void kh_attr_floats(kh_case *c, const char *name, const float *v, int32_t n)
{
    kn_attr *a = add_attr(c, name, KN_ATTR_FLOATS);
    a->floats = v;
    a->count = n;
}

void kh_attr_tensor(kh_case *c, const char *name, const kn_tensor *t)
{
    add_attr(c, name, KN_ATTR_TENSOR)->t = t;
}

void kh_input(kh_case *c, int32_t i, int32_t dtype, const int64_t *dims, int32_t rank,
              const void *data)
{
    kn_tensor *t = &c->in[i];
    t->dtype = dtype;
    t->rank = rank;
    for (int32_t d = 0; d < rank; d++)
        t->dims[d] = dims[d];
    t->data = (void *)data;
}

int kh_run(kh_case *c, int32_t threads)
{
    return kh_run_kernel(c, threads, &kn_backend_cpu, c->inputs_constant_in_prepare ? ~0u : 0);
}

/* Prepares the kernel of `backend` for c (data of const_mask inputs only),
 * runs it when `run`, releases it; *scratch_bytes gets what prepare asked. */
static int prepare_run(kh_case *c, int32_t threads, const kn_backend *backend, uint32_t const_mask, int run,
                       size_t *scratch_bytes)
{
    kn_tensor *in_ptrs[KH_MAX_IO], *out_ptrs[KH_MAX_IO];
    kn_tensor in_view[KH_MAX_IO];
    for (int32_t i = 0; i < c->n_in; i++) {
        in_view[i] = c->in[i];
        if (!(const_mask & (1u << i)))
            in_view[i].data = NULL;
        in_ptrs[i] = c->in[i].data ? &in_view[i] : NULL;
    }
    for (int32_t i = 0; i < c->n_out; i++)
        out_ptrs[i] = &c->out[i];
    int32_t dtype = c->n_in > 0 && c->in[0].data ? c->in[0].dtype : 0;
    const kn_op_def *def =
        kn_backend_kernel(backend, c->node.domain, c->node.op_type, c->opset, dtype);
    if (!def)
        return kn_fail(&c->err, KN_ERR_UNSUPPORTED, "no kernel for %s opset %lld dtype %s (%s, "
                       "domain '%s')", c->node.op_type, (long long)c->opset, kn_dtype_name(dtype),
                       backend->name, c->node.domain);
    kn_threadpool *pool = threads > 1 ? kn_threadpool_create(threads) : NULL;
    kn_kctx k = {.node = &c->node, .opset = c->opset, .n_in = c->n_in, .n_out = c->n_out,
                 .in = in_ptrs, .out = out_ptrs, .threads = pool, .err = &c->err};
    k.variant = c->variant;
    int rc = def->prepare(&k);
    c->n_variants = k.n_variants;
    if (scratch_bytes)
        *scratch_bytes = k.scratch_bytes;
    if (rc == KN_OK && run) {
        for (int32_t i = 0; i < c->n_in; i++)
            in_view[i].data = c->in[i].data;
        for (int32_t i = 0; i < c->n_out; i++) {
            int64_t nb = kn_tensor_nbytes(&c->out[i]);
            c->out[i].data = calloc(1, nb > 0 ? (size_t)nb : 1);
        }
        k.scratch = k.scratch_bytes ? aligned_alloc(64, (k.scratch_bytes + 63) & ~(size_t)63) : NULL;
        rc = def->run(&k);
        free(k.scratch);
    }
    if (def->release)
        def->release(&k);
    kn_threadpool_destroy(pool);
    return rc;
}

int kh_run_kernel(kh_case *c, int32_t threads, const kn_backend *backend, uint32_t const_mask)
{
    return prepare_run(c, threads, backend, const_mask, 1, NULL);
}

int kh_prepare_kernel(kh_case *c, const kn_backend *backend, uint32_t const_mask, size_t *scratch_bytes)
{
    return prepare_run(c, 1, backend, const_mask, 0, scratch_bytes);
}

void kh_free(kh_case *c)
{
    for (int32_t i = 0; i < c->n_out; i++) {
        free(c->out[i].data);
        c->out[i].data = NULL;
    }
}
