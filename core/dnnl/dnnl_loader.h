/* oneDNN is loaded at run time (dlopen), on first use, not linked:
 *  - libkiln then starts and runs where oneDNN is not installed (every
 *    oneDNN kernel declines and Kiln's own serve);
 *  - oneDNN's OpenMP runtime (libgomp) reads its wait policy once, when it
 *    is loaded. Left alone it spins for milliseconds after each parallel
 *    region, which on a busy machine (or with several sessions) burns the
 *    cores the other threads need: a 2-thread resnet50 took 2.9 s instead
 *    of 0.4 s here. Loading it ourselves lets Kiln ask for a short spin
 *    first (dnnl_loader.c), unless the user chose a policy (OMP_WAIT_POLICY
 *    or GOMP_SPINCOUNT set) or the program already runs libgomp.
 *
 * The kernels call the oneDNN C API by its usual names; this header maps
 * each name onto the table the loader fills. Include it (through
 * dnnl_common.h) after <oneapi/dnnl/dnnl.h> in every file of core/dnnl/. */
#ifndef KN_DNNL_LOADER_H
#define KN_DNNL_LOADER_H

#include <oneapi/dnnl/dnnl.h>

#define KN_DNNL_FUNCTIONS(X)                                                                       \
    X(dnnl_engine_create) X(dnnl_engine_destroy) X(dnnl_stream_create) X(dnnl_stream_destroy)     \
    X(dnnl_stream_wait) X(dnnl_primitive_attr_create) X(dnnl_primitive_attr_destroy)              \
    X(dnnl_primitive_attr_set_scratchpad_mode) X(dnnl_primitive_attr_set_post_ops)                \
    X(dnnl_post_ops_create) X(dnnl_post_ops_destroy) X(dnnl_post_ops_append_sum)                  \
    X(dnnl_post_ops_append_sum_v3) X(dnnl_post_ops_append_binary)                                  \
    X(dnnl_post_ops_append_eltwise) X(dnnl_primitive_desc_create) X(dnnl_primitive_desc_destroy) \
    X(dnnl_primitive_desc_query) X(dnnl_primitive_desc_query_md) X(dnnl_primitive_create)         \
    X(dnnl_primitive_destroy) X(dnnl_primitive_execute) X(dnnl_memory_create)                     \
    X(dnnl_memory_destroy) X(dnnl_memory_set_data_handle) X(dnnl_memory_desc_init_by_tag)         \
    X(dnnl_memory_desc_init_by_strides) X(dnnl_memory_desc_get_size) X(dnnl_memory_desc_equal)    \
    X(dnnl_reorder_primitive_desc_create) X(dnnl_concat_primitive_desc_create)                    \
    X(dnnl_dilated_convolution_forward_desc_init) X(dnnl_matmul_desc_init)                        \
    X(dnnl_pooling_v2_forward_desc_init) X(dnnl_binary_desc_init)                               \
    X(dnnl_primitive_desc_iterator_create) X(dnnl_primitive_desc_iterator_next)                   \
    X(dnnl_primitive_desc_iterator_fetch) X(dnnl_primitive_desc_iterator_destroy)              \
    X(dnnl_primitive_attr_set_output_scales) X(dnnl_primitive_attr_set_zero_points)              \
    X(dnnl_primitive_attr_set_fpmath_mode)

typedef struct kn_dnnl_functions {
#define KN_DNNL_MEMBER(name) __typeof__(name) *name;
    KN_DNNL_FUNCTIONS(KN_DNNL_MEMBER)
#undef KN_DNNL_MEMBER
    void (*omp_set_num_threads)(int);
} kn_dnnl_functions;

/* Filled once by kn_dnnl_load; read-only afterwards. */
extern kn_dnnl_functions kn_dnnl_fn;

/* Loads oneDNN once per process (thread-safe); 1 when it is usable. */
int kn_dnnl_load(void);

#ifndef KN_DNNL_LOADER_IMPL
#define dnnl_engine_create kn_dnnl_fn.dnnl_engine_create
#define dnnl_engine_destroy kn_dnnl_fn.dnnl_engine_destroy
#define dnnl_stream_create kn_dnnl_fn.dnnl_stream_create
#define dnnl_stream_destroy kn_dnnl_fn.dnnl_stream_destroy
#define dnnl_stream_wait kn_dnnl_fn.dnnl_stream_wait
#define dnnl_primitive_attr_create kn_dnnl_fn.dnnl_primitive_attr_create
#define dnnl_primitive_attr_destroy kn_dnnl_fn.dnnl_primitive_attr_destroy
#define dnnl_primitive_attr_set_scratchpad_mode kn_dnnl_fn.dnnl_primitive_attr_set_scratchpad_mode
#define dnnl_primitive_attr_set_post_ops kn_dnnl_fn.dnnl_primitive_attr_set_post_ops
#define dnnl_post_ops_create kn_dnnl_fn.dnnl_post_ops_create
#define dnnl_post_ops_destroy kn_dnnl_fn.dnnl_post_ops_destroy
#define dnnl_post_ops_append_sum kn_dnnl_fn.dnnl_post_ops_append_sum
#define dnnl_post_ops_append_sum_v3 kn_dnnl_fn.dnnl_post_ops_append_sum_v3
#define dnnl_post_ops_append_eltwise kn_dnnl_fn.dnnl_post_ops_append_eltwise
#define dnnl_post_ops_append_binary kn_dnnl_fn.dnnl_post_ops_append_binary
#define dnnl_primitive_desc_create kn_dnnl_fn.dnnl_primitive_desc_create
#define dnnl_primitive_desc_destroy kn_dnnl_fn.dnnl_primitive_desc_destroy
#define dnnl_primitive_desc_query kn_dnnl_fn.dnnl_primitive_desc_query
#define dnnl_primitive_desc_query_md kn_dnnl_fn.dnnl_primitive_desc_query_md
#define dnnl_primitive_create kn_dnnl_fn.dnnl_primitive_create
#define dnnl_primitive_destroy kn_dnnl_fn.dnnl_primitive_destroy
#define dnnl_primitive_execute kn_dnnl_fn.dnnl_primitive_execute
#define dnnl_memory_create kn_dnnl_fn.dnnl_memory_create
#define dnnl_memory_destroy kn_dnnl_fn.dnnl_memory_destroy
#define dnnl_memory_set_data_handle kn_dnnl_fn.dnnl_memory_set_data_handle
#define dnnl_memory_desc_init_by_tag kn_dnnl_fn.dnnl_memory_desc_init_by_tag
#define dnnl_memory_desc_init_by_strides kn_dnnl_fn.dnnl_memory_desc_init_by_strides
#define dnnl_memory_desc_get_size kn_dnnl_fn.dnnl_memory_desc_get_size
#define dnnl_memory_desc_equal kn_dnnl_fn.dnnl_memory_desc_equal
#define dnnl_reorder_primitive_desc_create kn_dnnl_fn.dnnl_reorder_primitive_desc_create
#define dnnl_concat_primitive_desc_create kn_dnnl_fn.dnnl_concat_primitive_desc_create
#define dnnl_dilated_convolution_forward_desc_init                                                 \
    kn_dnnl_fn.dnnl_dilated_convolution_forward_desc_init
#define dnnl_matmul_desc_init kn_dnnl_fn.dnnl_matmul_desc_init
#define dnnl_pooling_v2_forward_desc_init kn_dnnl_fn.dnnl_pooling_v2_forward_desc_init
#define dnnl_primitive_desc_iterator_create kn_dnnl_fn.dnnl_primitive_desc_iterator_create
#define dnnl_primitive_desc_iterator_next kn_dnnl_fn.dnnl_primitive_desc_iterator_next
#define dnnl_primitive_desc_iterator_fetch kn_dnnl_fn.dnnl_primitive_desc_iterator_fetch
#define dnnl_primitive_desc_iterator_destroy kn_dnnl_fn.dnnl_primitive_desc_iterator_destroy
#define dnnl_binary_desc_init kn_dnnl_fn.dnnl_binary_desc_init
#define dnnl_primitive_attr_set_output_scales kn_dnnl_fn.dnnl_primitive_attr_set_output_scales
#define dnnl_primitive_attr_set_zero_points kn_dnnl_fn.dnnl_primitive_attr_set_zero_points
#define dnnl_primitive_attr_set_fpmath_mode kn_dnnl_fn.dnnl_primitive_attr_set_fpmath_mode
#define omp_set_num_threads kn_dnnl_fn.omp_set_num_threads
#endif

#endif
