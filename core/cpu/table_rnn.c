/* CPU kernels: recurrent layers and signal processing (RNN, GRU, LSTM, DFT, STFT, windows). One row per kn_op_def. */
#include <stddef.h>

#include "core/op.h"

const kn_op_def *const kn_cpu_rnn_ops[] = {
    NULL,
};
