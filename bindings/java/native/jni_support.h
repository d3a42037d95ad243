/* Conversions shared by the generated JNI glue (native/generated/,
 * written by bindings/gen/emit_java.py) and by JNI_OnLoad. They convert Java
 * values to C arguments and back, and turn a failing status into a
 * dev.kiln.KilnException that carries the message of kiln_last_error() read
 * on the same thread, in the same native call.
 *
 * Convention: a function here returning int returns 0 on success and -1
 * with a Java exception pending; the glue then cleans up and returns to Java
 * at once.
 */
#ifndef KILN_JNI_SUPPORT_H
#define KILN_JNI_SUPPORT_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

#include "kiln.h"

/* First attempt sizes for the two-call pattern: most names and shapes fit,
 * so the usual call needs no heap allocation. */
#define KJ_STRBUF_STACK 256
#define KJ_DIMS_STACK 8

/* ---- exceptions ---- */

/* Throws dev.kiln.KilnException(status, message of kiln_last_error()). */
void kj_throw_status(JNIEnv *env, int32_t status);
/* Throws IllegalArgumentException("<arg>: <why>"). */
void kj_throw_illegal_argument(JNIEnv *env, const char *arg, const char *why);
/* Throws NullPointerException("<arg> must not be null"). */
void kj_throw_null(JNIEnv *env, const char *arg);
/* Throws OutOfMemoryError. */
void kj_throw_out_of_memory(JNIEnv *env, const char *what);

/* ---- Java -> C ---- */

/* A size_t argument given as a Java long (negative values refused). */
int kj_size_arg(JNIEnv *env, jlong value, const char *arg, size_t *out);

/* A Java String as NUL-terminated UTF-8 (real UTF-8, not JNI's modified
 * form). A null string gives NULL when nullable, else NullPointerException.
 * Release with kj_utf8_release whatever the outcome. */
typedef struct {
    const char *chars; /* what the C call reads */
    jstring source;    /* non-NULL while chars come from GetStringUTFChars */
    char *owned;       /* non-NULL when chars were converted on the heap */
} kj_utf8;
int kj_utf8_get(JNIEnv *env, jstring text, const char *arg, int nullable, kj_utf8 *out);
void kj_utf8_release(JNIEnv *env, kj_utf8 *text);

/* A long[] shape as int64 dims. A null array is a rank-0 shape (NULL dims).
 * stack holds KJ_DIMS_STACK entries; longer shapes go to the heap. */
typedef struct {
    int64_t *dims;
    int32_t rank;
    int64_t stack[KJ_DIMS_STACK];
} kj_dims_in;
int kj_dims_in_get(JNIEnv *env, jlongArray array, const char *arg, kj_dims_in *out);
void kj_dims_in_release(kj_dims_in *dims);

/* The whole capacity of a direct ByteBuffer: address and byte count. A null
 * buffer gives NULL and 0 (the C call decides whether that is allowed); a
 * heap buffer is refused, since its bytes can move. */
int kj_direct_buffer(JNIEnv *env, jobject buffer, const char *arg, void **data, size_t *size);

/* A primitive array pinned or copied for one call (GetPrimitiveArrayCritical
 * is not used: some calls take long enough to matter to the collector). */
typedef struct {
    jarray array;
    void *elements;
    jsize length;
    char kind; /* 'F' float[], 'B' byte[] */
} kj_array;
int kj_float_array_get(JNIEnv *env, jfloatArray array, const char *arg, int nullable,
                       kj_array *out);
int kj_byte_array_get(JNIEnv *env, jbyteArray array, const char *arg, kj_array *out);
/* commit: copy the elements back (an output array the call filled). */
void kj_array_release(JNIEnv *env, kj_array *array, int commit);

/* ---- C -> Java: the two-call pattern and results ---- */

/* A string buffer that starts on the stack and grows to `needed`. */
typedef struct {
    char *data;
    int32_t cap;
    char stack[KJ_STRBUF_STACK];
} kj_strbuf;
void kj_strbuf_init(kj_strbuf *buf);
int kj_strbuf_grow(JNIEnv *env, kj_strbuf *buf, int32_t needed);
void kj_strbuf_release(kj_strbuf *buf);
/* Text up to the first NUL, as a Java String. */
jstring kj_strbuf_string(JNIEnv *env, const kj_strbuf *buf);
/* The first length bytes (binary strings may hold NULs), as a byte[]. */
jbyteArray kj_strbuf_bytes(JNIEnv *env, const kj_strbuf *buf, int32_t length);

/* A dims array that starts on the stack and grows to `rank`. */
typedef struct {
    int64_t *dims;
    int32_t cap;
    int64_t stack[KJ_DIMS_STACK];
} kj_dims_out;
void kj_dims_out_init(kj_dims_out *dims);
int kj_dims_out_grow(JNIEnv *env, kj_dims_out *dims, int32_t rank);
void kj_dims_out_release(kj_dims_out *dims);
/* The first rank dims as a long[]; rank -1 (unknown) gives null. */
jlongArray kj_dims_out_array(JNIEnv *env, const kj_dims_out *dims, int32_t rank);

/* A library-owned string (kiln_version, kiln_status_name) as a String. */
jstring kj_static_string(JNIEnv *env, const char *text);
/* Library-owned bytes wrapped, not copied, in a direct ByteBuffer; the
 * Java side copies them before the library may free them. */
jobject kj_view_buffer(JNIEnv *env, const void *data, size_t size);

/* ---- generated part ---- */

/* Caches the result classes of the generated glue; called from JNI_OnLoad.
 * Defined in generated/kiln_jni_results.c. */
int kj_generated_init(JNIEnv *env);
void kj_generated_unload(JNIEnv *env);

#endif
