/* Generated from capi/kiln_api.json by bindings/gen/emit_java.py; do not edit.
 * Regenerate: /usr/bin/python3 bindings/gen/generate.py */
#ifndef KJ_RESULTS_H
#define KJ_RESULTS_H

#include "jni_support.h"

/* Classes of the functions that return several values. */
#define KJ_RESULT_CLASSES 12
extern jclass kj_result_class[KJ_RESULT_CLASSES];
extern jmethodID kj_result_init[KJ_RESULT_CLASSES];

#endif
