/* Generated from capi/kiln_api.json by bindings/gen/emit_java.py; do not edit.
 * Regenerate: /usr/bin/python3 bindings/gen/generate.py */
#include "kiln_jni_results.h"

jclass kj_result_class[KJ_RESULT_CLASSES];
jmethodID kj_result_init[KJ_RESULT_CLASSES];
static const char *const kj_result_names[][2] = {
    {"dev/kiln/KilnNative$ModelOpset", "(Ljava/lang/String;I)V"},
    {"dev/kiln/KilnNative$ModelNodeOp", "(Ljava/lang/String;Ljava/lang/String;)V"},
    {"dev/kiln/KilnNative$ModelMemoryInfo", "(JJJ)V"},
    {"dev/kiln/KilnNative$ModelNodeIoCount", "(II)V"},
    {"dev/kiln/KilnNative$SessionOutputInfo", "(I[J)V"},
    {"dev/kiln/KilnNative$SessionPlanBytes", "(JJ)V"},
    {"dev/kiln/KilnNative$SessionCacheInfo", "(IJJ)V"},
    {"dev/kiln/KilnNative$SessionValueInfo", "(I[J)V"},
    {"dev/kiln/KilnNative$SessionProfileTime", "(JJ)V"},
    {"dev/kiln/KilnNative$ImageDecode", "(JII)V"},
    {"dev/kiln/KilnNative$TensorInfo", "(I[J)V"},
    {"dev/kiln/KilnNative$CalibratorReportStats", "(IIJ)V"},
};

int kj_generated_init(JNIEnv *env) {
    for (int i = 0; i < 12; i++) {
        jclass local = (*env)->FindClass(env, kj_result_names[i][0]);
        if (!local) return -1;
        kj_result_class[i] = (jclass)(*env)->NewGlobalRef(env, local);
        (*env)->DeleteLocalRef(env, local);
        if (!kj_result_class[i]) return -1;
        kj_result_init[i] = (*env)->GetMethodID(env, kj_result_class[i], "<init>",
                                                kj_result_names[i][1]);
        if (!kj_result_init[i]) return -1;
    }
    return 0;
}

void kj_generated_unload(JNIEnv *env) {
    for (int i = 0; i < KJ_RESULT_CLASSES; i++)
        if (kj_result_class[i]) (*env)->DeleteGlobalRef(env, kj_result_class[i]);
}
