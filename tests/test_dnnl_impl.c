/* Which oneDNN implementation serves a convolution
 * (core/dnnl/dnnl_impl_choice.c): the preference rules, that
 * kn_dnnl_pd_create takes the best-ranked implementation oneDNN offers,
 * and that the nodes the rules steer (depthwise, 1x1 with 24 or 40
 * outputs) still agree with Kiln's CPU kernels. */
#include "test_dnnl_util.h"

#ifdef KILN_WITH_DNNL

#include "core/kernel/fma_width.h"
#include "core/dnnl/dnnl_common.h"
#include "core/dnnl/dnnl_impl_choice.h"

Test(dnnl_impl, rules)
{
    /* cores that split 512-bit FMAs */
    const char *const *p = kn_dnnl_conv_prefer(144, 144, 144, 9, 1);
    cr_assert_eq(kn_dnnl_impl_rank(p, "jit_dw:avx512_core"), 0, "depthwise: jit_dw");
    cr_assert_eq(kn_dnnl_impl_rank(p, "jit_dw:avx2"), 0);
    cr_assert_eq(kn_dnnl_impl_rank(p, "brdgmm_dw:avx512_core"), -1);
    cr_assert_not_null(kn_dnnl_conv_prefer(32, 32, 32, 25, 1), "5x5 depthwise too");
    p = kn_dnnl_conv_prefer(1, 144, 24, 1, 1);
    cr_assert_eq(kn_dnnl_impl_rank(p, "jit_1x1:avx2"), 0, "1x1 to 24: the 256-bit kernel");
    cr_assert_eq(kn_dnnl_impl_rank(p, "jit_1x1:avx512_core"), -1);
    cr_assert_eq(kn_dnnl_impl_rank(p, "brgconv_1x1:avx512_core"), -1);
    cr_assert_not_null(kn_dnnl_conv_prefer(1, 240, 40, 1, 1), "1x1 to 40");
    cr_assert_null(kn_dnnl_conv_prefer(1, 144, 32, 1, 1), "whole 16-blocks: oneDNN's order");
    cr_assert_null(kn_dnnl_conv_prefer(1, 24, 24, 9, 1), "3x3 to 24: not measured better");
    cr_assert_null(kn_dnnl_conv_prefer(4, 16, 16, 9, 1), "grouped, not depthwise");
    cr_assert_null(kn_dnnl_conv_prefer(16, 16, 32, 9, 1), "channel multiplier 2");
    /* native 512-bit FMAs: oneDNN's order everywhere */
    cr_assert_null(kn_dnnl_conv_prefer(144, 144, 144, 9, 0));
    cr_assert_null(kn_dnnl_conv_prefer(1, 144, 24, 1, 0));
    cr_assert_eq(kn_dnnl_impl_rank(NULL, "jit_dw:avx2"), -1);
    cr_assert_eq(kn_dnnl_impl_rank(p, NULL), -1);
}

Test(dnnl_impl, fma_probe)
{
    int splits = kn_cpu_splits_512();
    cr_assert(splits == 0 || splits == 1);
    cr_assert_eq(kn_cpu_splits_512(), splits, "read once, then the same answer");
    if (!__builtin_cpu_supports("avx512f"))
        cr_assert_eq(splits, 0, "no AVX-512: nothing to split");
    cr_log_info("this CPU %s 512-bit FMAs", splits ? "splits" : "does not split");
}

/* A depthwise 3x3 convolution over C channels, NHWC, on p's engine. */
static int dw_pd(kn_dnnl_prim *p, const char *const *prefer, int64_t c, kn_err *err,
                 dnnl_primitive_desc_t *pd)
{
    dnnl_memory_desc_t x, y, w;
    dnnl_dims_t xd = {1, c, 20, 22}, wd = {c, 1, 1, 3, 3}, one = {1, 1}, pad = {1, 1};
    cr_assert_eq(dnnl_memory_desc_init_by_tag(&x, 4, xd, dnnl_f32, dnnl_nhwc), dnnl_success);
    cr_assert_eq(dnnl_memory_desc_init_by_tag(&y, 4, xd, dnnl_f32, dnnl_nhwc), dnnl_success);
    cr_assert_eq(dnnl_memory_desc_init_by_tag(&w, 5, wd, dnnl_f32, dnnl_format_tag_any),
                 dnnl_success);
    dnnl_convolution_desc_t cd;
    dnnl_dims_t no_dil = {0, 0};
    cr_assert_eq(dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference,
                                                            dnnl_convolution_direct, &x, &w, NULL,
                                                            &y, one, no_dil, pad, pad),
                 dnnl_success);
    return kn_dnnl_pd_create(&cd, NULL, 0, prefer, p, pd, err);
}

/* The implementation kn_dnnl_pd_create takes for a depthwise node under
 * `prefer`. */
static void taken(const char *const *prefer, char *impl, size_t cap)
{
    kn_err err = {0};
    kn_kctx k = {.err = &err};
    kn_dnnl_prim p;
    cr_assert_eq(kn_dnnl_prim_init(&p, &k), KN_OK, "%s", err.msg);
    dnnl_primitive_desc_t pd = NULL;
    cr_assert_eq(dw_pd(&p, prefer, 48, &err, &pd), KN_OK, "%s", err.msg);
    const char *name = NULL;
    cr_assert_eq(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name), dnnl_success);
    snprintf(impl, cap, "%s", name);
    dnnl_primitive_desc_destroy(pd);
    kn_dnnl_prim_destroy(&p);
}

Test(dnnl_impl, preferred_is_taken)
{
    if (!dt_onednn_may_use(0))
        cr_skip_test("oneDNN's jit_dw kernels need AVX2, which this CPU (or ONEDNN_MAX_CPU_ISA) "
                     "does not give it");
    char first[32], got[32];
    taken(NULL, first, sizeof first);
    cr_assert_neq(first[0], 0, "the implementation's name is kept");

    static const char *const dw[] = {"jit_dw:", NULL};
    taken(dw, got, sizeof got);
    cr_assert_eq(strncmp(got, "jit_dw:", 7), 0, "got %s", got);

    /* rank beats list order: oneDNN lists its AVX-512 jit_dw (when it has
     * one) before the AVX2 one */
    static const char *const avx2_first[] = {"jit_dw:avx2", "jit_dw:", NULL};
    taken(avx2_first, got, sizeof got);
    cr_assert_str_eq(got, "jit_dw:avx2");

    static const char *const none[] = {"no-such-implementation", NULL};
    taken(none, got, sizeof got);
    cr_assert_str_eq(got, first, "nothing matches: oneDNN's first");
}

/* kiln.NhwcConv on [1, h, w, ci], W [co, ci / group, k, k], pads k / 2,
 * bias, activation act; residual Z when n_in is 4. */
static void nhwc_case(kh_case *c, int64_t h, int64_t w, int64_t ci, int64_t co, int64_t k,
                      int64_t group, int n_in, const char *act)
{
    static const int64_t pads1[] = {1, 1, 1, 1}, pads0[] = {0, 0, 0, 0};
    kh_init(c, "NhwcConv", 1, n_in, 1);
    c->node.domain = "kiln";
    kh_attr_ints(c, "pads", k == 3 ? pads1 : pads0, 4);
    kh_attr_int(c, "group", group);
    kh_attr_string(c, "activation", act);
    dt_input(c, 0, (int64_t[]){1, h, w, ci}, 4, 71);
    dt_input(c, 1, (int64_t[]){co, ci / group, k, k}, 4, 72);
    dt_input(c, 2, (int64_t[]){co}, 1, 73);
    if (n_in == 4)
        dt_input(c, 3, (int64_t[]){1, h, w, co}, 4, 74);
}

Test(dnnl_impl, steered_nodes_agree)
{
    for (int threads = 1; threads <= 2; threads++) {
        kh_case c;
        nhwc_case(&c, 29, 31, 48, 48, 3, 48, 3, "Clip");
        static const float clip[] = {0.0f, 6.0f};
        kh_attr_floats(&c, "activation_params", clip, 2);
        dt_check(&c, 0x6, threads, "depthwise 3x3, Clip");
        dt_free_inputs(&c);
        nhwc_case(&c, 28, 28, 144, 24, 1, 1, 4, "");
        dt_check(&c, 0x6, threads, "1x1 144 -> 24, residual");
        dt_free_inputs(&c);
        nhwc_case(&c, 14, 15, 96, 40, 1, 1, 3, "Relu");
        dt_check(&c, 0x6, threads, "1x1 96 -> 40, Relu");
        dt_free_inputs(&c);
    }
}

/* Variant 1 (for the tuner) is oneDNN's own first direct implementation:
 * offered where Kiln's choice differs (Winograd, or a preferred
 * implementation), and correct too. */
Test(dnnl_impl, variants)
{
    kh_case c;
    nhwc_case(&c, 29, 31, 48, 48, 3, 48, 3, "Relu");
    cr_assert_eq(kh_prepare_kernel(&c, &kn_backend_dnnl, 0x6, NULL), KN_OK, "%s", c.err.msg);
    cr_assert_eq(c.n_variants, kn_cpu_splits_512() ? 2 : 1, "depthwise: a preference or none");
    c.variant = 1;
    dt_check(&c, 0x6, 2, "depthwise, variant 1");
    dt_free_inputs(&c);

    nhwc_case(&c, 19, 23, 32, 48, 3, 1, 3, "Relu");
    size_t staged = sizeof(float) * 19 * 23 * (32 + 48), scratch = 0;
    cr_assert_eq(kh_prepare_kernel(&c, &kn_backend_dnnl, 0x6, &scratch), KN_OK, "%s", c.err.msg);
    if (dt_winograd_available()) {
        cr_assert_geq(scratch, staged, "variant 0: Winograd, X and Y staged in scratch");
        cr_assert_eq(c.n_variants, 2);
    }
    c.variant = 1;
    cr_assert_eq(kh_prepare_kernel(&c, &kn_backend_dnnl, 0x6, &scratch), KN_OK, "%s", c.err.msg);
    cr_assert_lt(scratch, staged, "variant 1: the direct kernel");
    cr_assert_eq(c.n_variants, 2, "asked for variant 1: there are two");
    dt_check(&c, 0x6, 1, "3x3, variant 1");
    dt_free_inputs(&c);

    nhwc_case(&c, 14, 14, 64, 32, 1, 1, 3, "");
    cr_assert_eq(kh_prepare_kernel(&c, &kn_backend_dnnl, 0x6, NULL), KN_OK, "%s", c.err.msg);
    cr_assert_eq(c.n_variants, 1, "1x1 to whole 16-blocks: oneDNN's choice, nothing to time");
    dt_free_inputs(&c);
}

#else

Test(dnnl_impl, needs_onednn)
{
    cr_skip_test("Kiln was built without oneDNN (KILN_WITH_DNNL): no oneDNN kernels to test");
}

#endif
