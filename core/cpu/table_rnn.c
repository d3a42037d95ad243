/* CPU kernels: recurrent layers and signal processing (RNN, GRU, LSTM, DFT, STFT, windows). One row per kn_op_def. */
#include <stddef.h>

#include "core/op.h"

extern const kn_op_def kn_op_rnn_1, kn_op_rnn_14, kn_op_gru_1, kn_op_gru_14, kn_op_lstm_1,
    kn_op_lstm_14;
extern const kn_op_def kn_op_dft_17, kn_op_dft_20, kn_op_stft, kn_op_hannwindow,
    kn_op_hammingwindow, kn_op_blackmanwindow, kn_op_melweightmatrix;

const kn_op_def *const kn_cpu_rnn_ops[] = {
    /* rnn_simple.c, rnn_gru.c, rnn_lstm.c (driver: rnn.c) */
    &kn_op_rnn_1,
    &kn_op_rnn_14,
    &kn_op_gru_1,
    &kn_op_gru_14,
    &kn_op_lstm_1,
    &kn_op_lstm_14,
    /* dft.c (with the FFT engine of signal_fft.h) */
    &kn_op_dft_17,
    &kn_op_dft_20,
    /* stft.c */
    &kn_op_stft,
    /* window.c */
    &kn_op_hannwindow,
    &kn_op_hammingwindow,
    &kn_op_blackmanwindow,
    /* mel.c */
    &kn_op_melweightmatrix,
    NULL,
};
