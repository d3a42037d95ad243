/* Prints the kernel registry as a Markdown table (docs/operators.md is
 * generated from it by tools/gen_docs.sh): op, domain, opset range, input
 * dtypes, backend. It links the static library to read the registry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine/registry.h"

/* a kernel row leaves the default domain out (NULL) */
static const char *domain_of(const kn_op_def *d) { return d->domain ? d->domain : ""; }

static int by_name(const void *a, const void *b)
{
    const kn_op_def *x = *(const kn_op_def *const *)a, *y = *(const kn_op_def *const *)b;
    int c = strcmp(domain_of(x), domain_of(y));
    if (c == 0)
        c = strcmp(x->op_type, y->op_type);
    return c ? c : x->since_version - y->since_version;
}

static void print_dtypes(uint32_t mask)
{
    if (mask == 0) {
        printf("any");
        return;
    }
    const char *sep = "";
    for (int32_t d = 1; d < 32; d++) {
        if (mask & KN_BIT(d)) {
            printf("%s%s", sep, kn_dtype_onnx_name(d));
            sep = ", ";
        }
    }
}

int main(void)
{
    int32_t n = 0;
    while (kn_registry_at(n, NULL))
        n++;
    const kn_op_def **defs = malloc(sizeof *defs * (size_t)(n ? n : 1));
    if (!defs)
        return 1;
    for (int32_t i = 0; i < n; i++)
        defs[i] = kn_registry_at(i, NULL);
    qsort(defs, (size_t)n, sizeof *defs, by_name);
    int32_t ops = 0;
    for (int32_t i = 0; i < n; i++)
        ops += i == 0 || strcmp(defs[i]->op_type, defs[i - 1]->op_type) != 0 ||
               strcmp(domain_of(defs[i]), domain_of(defs[i - 1])) != 0;
    printf("%d operators, %d kernel entries.\n\n", (int)ops, (int)n);
    printf("| op | domain | opsets | input dtypes | backend |\n|---|---|---|---|---|\n");
    for (int32_t i = 0; i < n; i++) {
        const kn_op_def *d = defs[i];
        printf("| %s | %s | %d", d->op_type, domain_of(d)[0] ? domain_of(d) : "ai.onnx", (int)d->since_version);
        if (d->until_version == 0)
            printf("+");
        else if (d->until_version != d->since_version)
            printf("–%d", (int)d->until_version);
        printf(" | ");
        print_dtypes(d->dtypes);
        printf(" | %s |\n", kn_backend_of(d)->name);
    }
    free(defs);
    return 0;
}
