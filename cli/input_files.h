/* Model inputs from TensorProto files given as -i [NAME=]FILE.pb (kiln run,
 * kiln diff), and the message naming the inputs no option gave. */
#ifndef KILN_CLI_INPUT_FILES_H
#define KILN_CLI_INPUT_FILES_H

#include "kiln.h"

/* Reads, decodes and binds each of the count specs ([NAME=]FILE.pb; see
 * resolve_input for which input a file feeds), marking bound[index] for
 * each input it binds. tensors[k] receives spec k's tensor, which must stay
 * alive until the session's run returns (the session borrows its bytes);
 * the caller destroys them. Returns 0, or -1 after printing why. */
int bind_tensor_files(const kiln_model *model, kiln_session *session, const char *const *specs,
                      int count, kiln_tensor **tensors, char *bound);

/* Names each input not marked in bound, with its dtype and shape and the
 * option that gives it; returns how many are missing. */
int report_missing_inputs(const kiln_model *model, const char *bound);

#endif
