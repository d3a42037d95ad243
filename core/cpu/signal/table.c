/* The signal family of CPU kernels: signal processing: DFT, STFT, windows, mel
 * filter banks. One row per kn_op_def, grouped by the file that defines it;
 * several rows for one op where opset ranges or dtypes differ.
 * core/cpu/backend_cpu.c lists this table. */
#include <stddef.h>

#include "core/kernel/op.h"

extern const kn_op_def kn_op_dft_17, kn_op_dft_20;
extern const kn_op_def kn_op_stft;
extern const kn_op_def kn_op_hannwindow, kn_op_hammingwindow, kn_op_blackmanwindow;
extern const kn_op_def kn_op_melweightmatrix;

const kn_op_def *const kn_cpu_signal_ops[] = {
    /* dft.c */
    &kn_op_dft_17, &kn_op_dft_20,
    /* stft.c */
    &kn_op_stft,
    /* window.c */
    &kn_op_hannwindow, &kn_op_hammingwindow, &kn_op_blackmanwindow,
    /* mel.c */
    &kn_op_melweightmatrix,
    NULL,
};
