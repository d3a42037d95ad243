/* The rnn family of CPU kernels: the recurrent layers: RNN, GRU, LSTM. One row
 * per kn_op_def, grouped by the file that defines it; several rows for one op
 * where opset ranges or dtypes differ. core/cpu/backend_cpu.c lists this
 * table. */
#include <stddef.h>

#include "core/kernel/op.h"

extern const kn_op_def kn_op_rnn_1, kn_op_rnn_14;
extern const kn_op_def kn_op_gru_1, kn_op_gru_14;
extern const kn_op_def kn_op_lstm_1, kn_op_lstm_14;

const kn_op_def *const kn_cpu_rnn_ops[] = {
    /* rnn_simple.c */
    &kn_op_rnn_1, &kn_op_rnn_14,
    /* rnn_gru.c */
    &kn_op_gru_1, &kn_op_gru_14,
    /* rnn_lstm.c */
    &kn_op_lstm_1, &kn_op_lstm_14,
    NULL,
};
