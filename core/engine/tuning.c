#include "core/engine/tuning.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/base/alloc.h"
#include "core/base/clock.h"
#include "core/base/hash.h"

struct kn_tuner {
    char *path;           /* cache file or NULL */
    char prefix[256];     /* model hash|cpu|isa|threads */
    char model[24];       /* model hash, the start of a device key */
    char **lines;         /* read from the file, then added */
    int32_t n_lines, cap_lines, n_new;
};

static uint64_t fnv_str(uint64_t h, const char *s)
{
    return kn_fnv1a(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

/* Structure of the graph: ops, names, attributes' scalars, initializer
 * types and shapes (kernel choices depend on those, not on weight values). */
static uint64_t model_hash(const kn_model_ir *ir, const kn_graph *g)
{
    uint64_t h = KN_FNV_SEED;
    h = kn_fnv1a(h, &ir->ir_version, sizeof ir->ir_version);
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const kn_node *n = &g->nodes[i];
        h = fnv_str(fnv_str(fnv_str(h, n->op_type), n->domain), n->name);
        for (int32_t a = 0; a < n->n_attrs; a++) {
            h = fnv_str(h, n->attrs[a].name);
            h = kn_fnv1a(h, &n->attrs[a].i, sizeof n->attrs[a].i);
            h = kn_fnv1a(h, &n->attrs[a].f, sizeof n->attrs[a].f);
            if (n->attrs[a].type == KN_ATTR_INTS && n->attrs[a].ints)
                h = kn_fnv1a(h, n->attrs[a].ints, sizeof(int64_t) * (size_t)n->attrs[a].count);
        }
        for (int32_t j = 0; j < n->n_inputs; j++)
            h = kn_fnv1a(h, &n->inputs[j], sizeof n->inputs[j]);
    }
    for (int32_t v = 0; v < g->n_values; v++) {
        const kn_value *val = &g->values[v];
        h = fnv_str(h, val->name);
        h = kn_fnv1a(h, &val->dtype, sizeof val->dtype);
        if (val->is_initializer && val->rank > 0)
            h = kn_fnv1a(h, val->dims, sizeof(int64_t) * (size_t)val->rank);
    }
    return h;
}

static void cpu_model(char *buf, size_t cap)
{
    snprintf(buf, cap, "unknown-cpu");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            snprintf(buf, cap, "%s", colon + 2);
            break;
        }
    }
    if (f)
        fclose(f);
    for (char *c = buf; *c; c++)
        if (*c == ' ' || *c == '|' || *c == '\t')
            *c = '_';
        else if (*c == '\n')
            *c = 0;
}

static const char *isa_name(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return "avx512";
    if (__builtin_cpu_supports("avx2"))
        return "avx2";
#endif
    return "base";
}

static int add_line(kn_tuner *t, char *line)
{
    if (t->n_lines == t->cap_lines) {
        int32_t cap = t->cap_lines ? t->cap_lines * 2 : 64;
        char **grown = realloc(t->lines, sizeof *grown * (size_t)cap);
        if (!grown)
            return KN_ERR_OUT_OF_MEMORY;
        t->lines = grown;
        t->cap_lines = cap;
    }
    t->lines[t->n_lines++] = line;
    return KN_OK;
}

int kn_tuner_open(kn_tuner **out, const kn_model_ir *ir, const kn_graph *g, const char *cache_path,
                  int32_t threads, kn_err *err)
{
    kn_tuner *t = calloc(1, sizeof *t);
    if (!t || (cache_path && !(t->path = strdup(cache_path)))) {
        free(t);
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory tuning");
    }
    char cpu[160];
    cpu_model(cpu, sizeof cpu);
    snprintf(t->model, sizeof t->model, "%016llx", (unsigned long long)model_hash(ir, g));
    snprintf(t->prefix, sizeof t->prefix, "%s|%s|%s|t%d", t->model, cpu, isa_name(), (int)threads);
    FILE *f = cache_path ? fopen(cache_path, "r") : NULL;
    if (cache_path && !f && errno != ENOENT) { /* a missing cache is written on close */
        int os_error = errno;
        t->n_new = 0;
        kn_tuner_close(t, NULL);
        return kn_fail(err, KN_ERR_IO, "cannot read the tuning cache '%s': %s", cache_path,
                       strerror(os_error));
    }
    char line[2048]; /* a device key holds the device's description */
    int rc = KN_OK;
    while (rc == KN_OK && f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || line[0] == '#')
            continue;
        char *copy = strdup(line);
        rc = copy ? add_line(t, copy) : KN_ERR_OUT_OF_MEMORY;
        if (rc != KN_OK)
            free(copy);
    }
    if (f)
        fclose(f);
    if (rc != KN_OK) {
        t->n_new = 0;
        kn_tuner_close(t, NULL);
        return kn_fail(err, rc, "out of memory reading the tuning cache");
    }
    *out = t;
    return KN_OK;
}

int kn_tuner_close(kn_tuner *t, kn_err *err)
{
    if (!t)
        return KN_OK;
    int rc = KN_OK;
    if (t->path && t->n_new > 0) {
        /* write a sibling file and rename it: readers never see half a file */
        char tmp[4200];
        snprintf(tmp, sizeof tmp, "%s.%ld.tmp", t->path, (long)getpid());
        errno = 0;
        FILE *f = fopen(tmp, "w");
        int ok = f != NULL && fputs("# kiln tuning cache v1: <model|cpu|isa|threads|node|shapes> "
                                    "<backend>, or <model|device|precision|node|shapes> "
                                    "<backend>/<choice>\n", f) >= 0;
        for (int32_t i = 0; ok && i < t->n_lines; i++)
            ok = fprintf(f, "%s\n", t->lines[i]) > 0;
        if (f && fclose(f) != 0)
            ok = 0;
        if (!ok || rename(tmp, t->path) != 0) {
            int os_error = errno;
            remove(tmp);
            rc = kn_fail(err, KN_ERR_IO, "cannot write the tuning cache '%s': %s", t->path,
                         os_error ? strerror(os_error) : "write failed");
        }
    }
    for (int32_t i = 0; i < t->n_lines; i++)
        free(t->lines[i]);
    free(t->lines);
    free(t->path);
    free(t);
    return rc;
}

static void node_key(const char *prefix, int32_t node, const kn_kctx *k, char *key, size_t cap)
{
    size_t n = (size_t)snprintf(key, cap, "%s|n%d|", prefix, (int)node);
    for (int32_t j = 0; j < k->n_in && n < cap; j++) {
        const kn_tensor *x = k->in[j];
        if (j > 0)
            n += (size_t)snprintf(key + n, cap - n, ",");
        for (int32_t d = 0; x && d < x->rank && n < cap; d++)
            n += (size_t)snprintf(key + n, cap - n, d ? "x%lld" : "%lld", (long long)x->dims[d]);
        if (x && x->rank == 0 && n < cap)
            n += (size_t)snprintf(key + n, cap - n, "s");
    }
}

static const char *lookup(const kn_tuner *t, const char *key)
{
    size_t len = strlen(key);
    for (int32_t i = t->n_lines - 1; i >= 0; i--)
        if (strncmp(t->lines[i], key, len) == 0 && t->lines[i][len] == ' ')
            return t->lines[i] + len + 1;
    return NULL;
}

static int keep_line(kn_tuner *t, const char *key, const char *value, kn_err *err)
{
    char *line = malloc(strlen(key) + strlen(value) + 2);
    if (!line)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory tuning");
    sprintf(line, "%s %s", key, value);
    if (add_line(t, line) != KN_OK) {
        free(line);
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory tuning");
    }
    t->n_new++;
    return KN_OK;
}

/* <model hash>|<device, blanks and bars as '_'>|p<precision> */
static void device_prefix(const kn_tuner *t, const char *device, int32_t precision, char *buf,
                          size_t cap)
{
    char name[640];
    snprintf(name, sizeof name, "%s", device);
    for (char *c = name; *c; c++)
        if (*c == ' ' || *c == '\t' || *c == '\n' || *c == '|')
            *c = '_';
    snprintf(buf, cap, "%s|%s|p%d", t->model, name, (int)precision);
}

const char *kn_tuner_device_choice(const kn_tuner *t, int32_t node, const kn_kctx *k,
                                   const kn_backend *backend, const char *device)
{
    char prefix[768], key[1100];
    device_prefix(t, device, k->precision, prefix, sizeof prefix);
    node_key(prefix, node, k, key, sizeof key);
    const char *known = lookup(t, key);
    size_t len = strlen(backend->name);
    if (!known || strncmp(known, backend->name, len) != 0 || known[len] != '/')
        return NULL;
    return known + len + 1;
}

int kn_tuner_keep_device_choice(kn_tuner *t, int32_t node, const kn_kctx *k,
                                const kn_backend *backend, const char *device, const char *choice,
                                kn_err *err)
{
    char prefix[768], key[1100], value[160];
    device_prefix(t, device, k->precision, prefix, sizeof prefix);
    node_key(prefix, node, k, key, sizeof key);
    snprintf(value, sizeof value, "%s/%s", backend->name, choice);
    return keep_line(t, key, value, err);
}


/* Best of a few runs of a prepared kernel (after one warm-up). */
static int64_t time_kernel(const kn_op_def *def, kn_kctx *k)
{
    int64_t best = INT64_MAX;
    for (int r = 0; r < 4; r++) {
        int64_t t0 = kn_now_ns();
        if (def->run(k) != KN_OK)
            return INT64_MAX;
        int64_t dt = kn_now_ns() - t0;
        if (r > 0 && dt < best)
            best = dt;
    }
    return best;
}

/* Memory for every input without a value and every output, and the
 * scratch of both kernels; NULL pointers put back by release_buffers. */
typedef struct buffers {
    void *in[16], *out[16], *out2[16], *scratch;
} buffers;

static void release_buffers(buffers *b, kn_kctx *k, kn_kctx *k2)
{
    for (int32_t j = 0; j < k->n_in && j < 16; j++)
        if (b->in[j]) {
            k->in[j]->data = NULL;
            kn_aligned_free(b->in[j]);
        }
    for (int32_t j = 0; j < k->n_out && j < 16; j++) {
        if (k->out[j])
            k->out[j]->data = NULL;
        kn_aligned_free(b->out[j]);
        kn_aligned_free(b->out2[j]);
    }
    kn_aligned_free(b->scratch);
    k->scratch = k2->scratch = NULL;
}

static int make_buffers(buffers *b, kn_kctx *k, kn_kctx *k2)
{
    memset(b, 0, sizeof *b);
    if (k->n_in > 16 || k->n_out > 16)
        return 0;
    for (int32_t j = 0; j < k->n_in; j++) {
        kn_tensor *x = k->in[j];
        if (!x || x->data)
            continue;
        size_t nb = (size_t)kn_tensor_nbytes(x);
        if (!(b->in[j] = kn_aligned_alloc(nb ? nb : 1)))
            return 0;
        memset(b->in[j], 0, nb); /* zeros: bytes of every dtype that mean a value */
        x->data = b->in[j];
    }
    for (int32_t j = 0; j < k->n_out; j++) {
        if (!k->out[j])
            continue;
        size_t nb = (size_t)kn_tensor_nbytes(k->out[j]), nb2 = (size_t)kn_tensor_nbytes(k2->out[j]);
        if (!(b->out[j] = kn_aligned_alloc(nb ? nb : 1)) ||
            !(b->out2[j] = kn_aligned_alloc(nb2 ? nb2 : 1)))
            return 0;
        k->out[j]->data = b->out[j];
        k2->out[j]->data = b->out2[j];
    }
    size_t sb = k->scratch_bytes > k2->scratch_bytes ? k->scratch_bytes : k2->scratch_bytes;
    if (sb && !(b->scratch = kn_aligned_alloc(sb)))
        return 0;
    k->scratch = k2->scratch = b->scratch;
    return 1;
}

/* Prepares `def` as variant `variant` on a copy of k (its own outputs),
 * times it and k's kernel `fast` on shared buffers, and releases it.
 * Returns its best time (INT64_MAX when it declines or fails); lowers
 * *t_fast to fast's best. */
static int64_t time_candidate(const kn_op_def *fast, kn_kctx *k, const kn_op_def *def,
                              int32_t variant, int64_t *t_fast)
{
    kn_tensor outs[16];
    kn_tensor *out_ptrs[16];
    if (k->n_out > 16)
        return INT64_MAX;
    kn_err cand_err = {0};
    kn_kctx k2 = *k;
    k2.state = NULL;
    k2.scratch_bytes = 0;
    k2.err = &cand_err;
    k2.out = out_ptrs;
    k2.variant = variant;
    k2.n_variants = 0;
    for (int32_t j = 0; j < k->n_out; j++) {
        out_ptrs[j] = k->out[j] ? &outs[j] : NULL;
        memset(&outs[j], 0, sizeof outs[j]);
    }
    int64_t t = INT64_MAX;
    if (def->prepare(&k2) == KN_OK) {
        buffers b;
        if (make_buffers(&b, k, &k2)) {
            int64_t tf = time_kernel(fast, k);
            *t_fast = tf < *t_fast ? tf : *t_fast;
            t = time_kernel(def, &k2);
        }
        release_buffers(&b, k, &k2);
    }
    if (def->release)
        def->release(&k2);
    return t;
}

/* "<backend>" for variant 0, "<backend>#<variant>" for the others */
static void choice_name(const kn_backend *backend, int32_t variant, char *buf, size_t cap)
{
    if (variant > 0)
        snprintf(buf, cap, "%s#%d", backend->name, (int)variant);
    else
        snprintf(buf, cap, "%s", backend->name);
}

int kn_tuner_choose(kn_tuner *t, int32_t node, const kn_tune_candidate *fast_c, kn_kctx *k,
                    const kn_tune_candidate *other_c, int32_t *choice, int *timed, kn_err *err)
{
    char key[600], name[48];
    const kn_op_def *fast = fast_c->def, *other = other_c ? other_c->def : NULL;
    node_key(t->prefix, node, k, key, sizeof key);
    *choice = 0;
    *timed = 0;
    int32_t variants = k->n_variants > 1 ? k->n_variants : 1;
    const char *known = lookup(t, key);
    if (known) {
        if (other) {
            choice_name(other_c->backend, 0, name, sizeof name);
            if (strcmp(known, name) == 0)
                *choice = KN_TUNE_OTHER;
        }
        for (int32_t v = 1; v < variants; v++) {
            choice_name(fast_c->backend, v, name, sizeof name);
            if (strcmp(known, name) == 0)
                *choice = v;
        }
        return KN_OK;
    }
    int64_t t_fast = INT64_MAX, best = INT64_MAX;
    for (int32_t v = 1; v < variants; v++) {
        int64_t tv = time_candidate(fast, k, fast, v, &t_fast);
        if (tv < best) {
            best = tv;
            *choice = v;
        }
    }
    if (other) {
        int64_t to = time_candidate(fast, k, other, 0, &t_fast);
        if (to < best) {
            best = to;
            *choice = KN_TUNE_OTHER;
        }
    }
    if (t_fast == INT64_MAX && best == INT64_MAX) {
        *choice = 0;
        return KN_OK;
    }
    if (t_fast <= best)
        *choice = 0;
    *timed = 1;
    if (*choice == KN_TUNE_OTHER)
        choice_name(other_c->backend, 0, name, sizeof name);
    else
        choice_name(fast_c->backend, *choice, name, sizeof name);
    return keep_line(t, key, name, err);
}
