/* Complex FFT of any length, shared by DFT and STFT (implemented in dft.c).
 *
 * A plan is built once in a kernel's prepare(): radix-2 for powers of two,
 * a direct O(n^2) sum over a twiddle table for other short lengths, and
 * Bluestein's chirp-z convolution (three power-of-two FFTs) for other long
 * ones. Everything runs in double: the results are rounded to float only
 * at the end, which keeps values that should be zero within the absolute
 * tolerances the conformance data is checked with. */
#ifndef KN_CPU_SIGNAL_FFT_H
#define KN_CPU_SIGNAL_FFT_H

#include <stddef.h>
#include <stdint.h>

#include "core/kernel/op.h"

/* Longest transform a plan accepts (tables and work buffers stay < 8 GiB). */
#define SIGNAL_FFT_MAX_N ((int64_t)1 << 26)

typedef struct signal_fft {
    int64_t n;
    int32_t kind;
    int64_t m;          /* Bluestein: power-of-two convolution length */
    double *tw;         /* radix-2: n/2 twiddles; direct: n; Bluestein: chirp of n */
    double *tw_m;       /* Bluestein: m/2 twiddles of the length-m FFTs */
    double *chirp_fft;  /* Bluestein: spectrum of the conjugate chirp, m values */
} signal_fft;

/* Builds the plan (allocates its tables); KN_ERR_OUT_OF_MEMORY or
 * KN_ERR_UNSUPPORTED (n < 1 or n > SIGNAL_FFT_MAX_N) with op in the
 * message. */
int signal_fft_init(signal_fft *p, int64_t n, const char *op, kn_err *err);
void signal_fft_free(signal_fft *p); /* NULL-safe, leaves p zeroed */
/* Bytes of work memory one concurrent transform needs (may be 0). */
size_t signal_fft_work_bytes(const signal_fft *p);
/* Transforms n complex values (re, im interleaved) in place:
 * forward X[k] = sum_j x[j] e^(-2 pi i jk/n); inverse uses e^(+...) and
 * does not divide by n. work: signal_fft_work_bytes bytes, 8-aligned. */
void signal_fft_run(const signal_fft *p, double *data, int inverse, void *work);

/* Element i of a float/double/float16/bfloat16 buffer as double, and back. */
static inline double signal_ld(int32_t dtype, const void *p, int64_t i)
{
    switch (dtype) {
    case KN_DOUBLE: return ((const double *)p)[i];
    case KN_FLOAT16: return kn_f16_to_f32(((const uint16_t *)p)[i]);
    case KN_BFLOAT16: return kn_bf16_to_f32(((const uint16_t *)p)[i]);
    default: return ((const float *)p)[i];
    }
}
static inline void signal_st(int32_t dtype, void *p, int64_t i, double v)
{
    switch (dtype) {
    case KN_DOUBLE: ((double *)p)[i] = v; break;
    case KN_FLOAT16: ((uint16_t *)p)[i] = kn_f32_to_f16((float)v); break;
    case KN_BFLOAT16: ((uint16_t *)p)[i] = kn_f32_to_bf16((float)v); break;
    default: ((float *)p)[i] = (float)v; break;
    }
}

/* Reads the scalar (rank 0, or one element) input idx into *v. Fails with
 * KN_ERR_NEEDS_VALUE when its value is not known at prepare time (the
 * output shape depends on it), KN_ERR_INVALID_MODEL when it is missing,
 * KN_ERR_SHAPE when it is not a single value, KN_ERR_DTYPE when it is not
 * numeric. */
int signal_const_scalar(kn_kctx *k, int32_t idx, const char *name, double *v);

/* The output_datatype attribute of the window ops and MelWeightMatrix
 * (float by default); KN_ERR_UNSUPPORTED unless a numeric type. Defined in
 * window.c. */
int signal_output_dtype(kn_kctx *k, int32_t *dtype);

#define SIGNAL_FLOAT_TYPES                                                    \
    (KN_BIT(KN_FLOAT) | KN_BIT(KN_DOUBLE) | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16))

#endif
