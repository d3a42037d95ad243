/* cuBLASLt's algorithms for one planned product (matmul_algo.h). */
#include "core/cuda/matmul_algo.h"

#include <stdio.h>
#include <string.h>

#include "core/cuda/cuda_device.h"

int kn_lt_heuristics(kn_kctx *k, const kn_lt_problem *p, int want,
                     kn_cublasLtMatmulHeuristicResult *found, int *n)
{
    const kn_cuda_device *dev = kn_cuda_dev(k);
    const kn_cuda_api *api = dev->api;
    kn_cublasLtMatmulPreference pref = NULL;
    uint64_t max_ws = KN_LT_MAX_WORKSPACE;
    memset(found, 0, sizeof *found * (size_t)want);
    *n = 0;
    int rc = kn_cublas_check(dev, api->cublasLtMatmulPreferenceCreate(&pref),
                             "creating a preference", k->err);
    if (rc == KN_OK)
        rc = kn_cublas_check(
            dev,
            api->cublasLtMatmulPreferenceSetAttribute(
                pref, KN_CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_ws, sizeof max_ws),
            "setting the workspace limit", k->err);
    if (rc == KN_OK)
        rc = kn_cublas_check(dev,
                             api->cublasLtMatmulAlgoGetHeuristic(dev->blaslt, p->desc, p->lay[0],
                                                                 p->lay[1], p->lay[2], p->lay[3],
                                                                 pref, want, found, n),
                             "choosing an algorithm", k->err);
    if (pref)
        api->cublasLtMatmulPreferenceDestroy(pref);
    /* only the candidates the heuristic says will run */
    int kept = 0;
    for (int i = 0; rc == KN_OK && i < *n && i < want; i++)
        if (found[i].state == KN_CUBLAS_STATUS_SUCCESS)
            found[kept++] = found[i];
    *n = rc == KN_OK ? kept : 0;
    return rc;
}

/* What tells one configuration from another, in the word's order. */
static const int config_attrs[] = {
    KN_CUBLASLT_ALGO_CONFIG_ID,
    KN_CUBLASLT_ALGO_CONFIG_TILE_ID,
    KN_CUBLASLT_ALGO_CONFIG_STAGES_ID,
    KN_CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
    KN_CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME,
    KN_CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING,
    KN_CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION,
};
enum { N_CONFIG = sizeof config_attrs / sizeof config_attrs[0] };

static void read_config(const kn_cuda_api *api, const kn_cublasLtMatmulAlgo *algo, uint32_t *config)
{
    for (int i = 0; i < N_CONFIG; i++) {
        size_t written = 0;
        config[i] = 0;
        /* every one of these is 32 bits wide; one the library does not
         * know reads as 0 on both sides of a comparison */
        if (api->cublasLtMatmulAlgoConfigGetAttribute(algo, config_attrs[i], &config[i],
                                                      sizeof config[i],
                                                      &written) != KN_CUBLAS_STATUS_SUCCESS)
            config[i] = 0;
    }
}

void kn_lt_algo_word(const kn_cuda_api *api, const kn_cublasLtMatmulHeuristicResult *r, int index,
                     char *buf, size_t cap)
{
    uint32_t c[N_CONFIG];
    read_config(api, &r->algo, c);
    snprintf(buf, cap, "lt:%d:%u.%u.%u.%u.%u.%u.%u", index, c[0], c[1], c[2], c[3], c[4], c[5],
             c[6]);
}

static int parse_word(const char *word, int *index, uint32_t *c)
{
    int used = 0;
    return sscanf(word, "lt:%d:%u.%u.%u.%u.%u.%u.%u%n", index, &c[0], &c[1], &c[2], &c[3], &c[4],
                  &c[5], &c[6], &used) == 8 &&
           word[used] == '\0';
}

/* Whether cuBLASLt accepts found's algorithm for this product, with its
 * workspace within the limit (kept in found). */
static int check(kn_kctx *k, const kn_lt_problem *p, kn_cublasLtMatmulHeuristicResult *found)
{
    const kn_cuda_device *dev = kn_cuda_dev(k);
    kn_cublasLtMatmulHeuristicResult checked;
    memset(&checked, 0, sizeof checked);
    if (dev->api->cublasLtMatmulAlgoCheck(dev->blaslt, p->desc, p->lay[0], p->lay[1], p->lay[2],
                                          p->lay[3], &found->algo,
                                          &checked) != KN_CUBLAS_STATUS_SUCCESS ||
        checked.workspaceSize > KN_LT_MAX_WORKSPACE)
        return 0;
    if (checked.workspaceSize > found->workspaceSize)
        found->workspaceSize = checked.workspaceSize;
    return 1;
}

int kn_lt_algo_refind(kn_kctx *k, const kn_lt_problem *p, kn_cublasLtMatmulHeuristicResult *found,
                      int n, const char *word)
{
    const kn_cuda_api *api = kn_cuda_dev(k)->api;
    int index = -1;
    uint32_t want[N_CONFIG], have[N_CONFIG];
    if (!parse_word(word, &index, want))
        return -1;
    /* its own place first: the heuristic lists the same way for the same
     * shapes, library and GPU, which the cache's key holds fixed */
    int at = -1;
    if (index >= 0 && index < n) {
        read_config(api, &found[index].algo, have);
        if (memcmp(want, have, sizeof want) == 0)
            at = index;
    }
    for (int i = 0; at < 0 && i < n; i++) {
        read_config(api, &found[i].algo, have);
        if (memcmp(want, have, sizeof want) == 0)
            at = i;
    }
    return at >= 0 && check(k, p, &found[at]) ? at : -1;
}
