/* Hand-written half of the JNI library: JNI_OnLoad, exceptions, and the
 * conversions the generated glue uses (see jni_support.h). */
#include "jni_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Classes and methods looked up once at load and kept as global refs. */
static jclass g_kiln_exception;         /* dev.kiln.KilnException */
static jmethodID g_kiln_exception_init; /* (int code, String message) */
static jclass g_string;                 /* java.lang.String */
static jmethodID g_string_from_bytes;   /* String(byte[], Charset) */
static jmethodID g_string_get_bytes;    /* byte[] getBytes(Charset) */
static jobject g_utf8;                  /* StandardCharsets.UTF_8 */

static jclass global_class(JNIEnv *env, const char *name) {
    jclass local = (*env)->FindClass(env, name);
    if (!local) return NULL;
    jclass global = (jclass)(*env)->NewGlobalRef(env, local);
    (*env)->DeleteLocalRef(env, local);
    return global;
}

static int cache_classes(JNIEnv *env) {
    if (!(g_kiln_exception = global_class(env, "dev/kiln/KilnException"))) return -1;
    g_kiln_exception_init =
        (*env)->GetMethodID(env, g_kiln_exception, "<init>", "(ILjava/lang/String;)V");
    if (!g_kiln_exception_init) return -1;
    if (!(g_string = global_class(env, "java/lang/String"))) return -1;
    g_string_from_bytes =
        (*env)->GetMethodID(env, g_string, "<init>", "([BLjava/nio/charset/Charset;)V");
    g_string_get_bytes =
        (*env)->GetMethodID(env, g_string, "getBytes", "(Ljava/nio/charset/Charset;)[B");
    if (!g_string_from_bytes || !g_string_get_bytes) return -1;
    jclass charsets = (*env)->FindClass(env, "java/nio/charset/StandardCharsets");
    if (!charsets) return -1;
    jfieldID utf8_field =
        (*env)->GetStaticFieldID(env, charsets, "UTF_8", "Ljava/nio/charset/Charset;");
    if (!utf8_field) return -1;
    jobject utf8 = (*env)->GetStaticObjectField(env, charsets, utf8_field);
    (*env)->DeleteLocalRef(env, charsets);
    if (!utf8 || !(g_utf8 = (*env)->NewGlobalRef(env, utf8))) return -1;
    (*env)->DeleteLocalRef(env, utf8);
    return kj_generated_init(env);
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    (void)reserved;
    JNIEnv *env = NULL;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
    if (cache_classes(env) != 0) return JNI_ERR; /* the pending exception says why */
    return JNI_VERSION_1_8;
}

JNIEXPORT void JNICALL JNI_OnUnload(JavaVM *vm, void *reserved) {
    (void)reserved;
    JNIEnv *env = NULL;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return;
    kj_generated_unload(env);
    jobject refs[] = {g_kiln_exception, g_string, g_utf8};
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
        if (refs[i]) (*env)->DeleteGlobalRef(env, refs[i]);
}

/* ---- exceptions ---- */

static void throw_class(JNIEnv *env, const char *class_name, const char *message) {
    jclass cls = (*env)->FindClass(env, class_name);
    if (cls) (*env)->ThrowNew(env, cls, message);
}

void kj_throw_out_of_memory(JNIEnv *env, const char *what) {
    throw_class(env, "java/lang/OutOfMemoryError", what);
}

void kj_throw_illegal_argument(JNIEnv *env, const char *arg, const char *why) {
    char message[256];
    snprintf(message, sizeof message, "%s: %s", arg, why);
    throw_class(env, "java/lang/IllegalArgumentException", message);
}

void kj_throw_null(JNIEnv *env, const char *arg) {
    char message[256];
    snprintf(message, sizeof message, "%s must not be null", arg);
    throw_class(env, "java/lang/NullPointerException", message);
}

void kj_throw_status(JNIEnv *env, int32_t status) {
    /* Read the message first: any later library call could replace it. */
    kj_strbuf message;
    kj_strbuf_init(&message);
    int32_t length = kiln_last_error(message.data, message.cap);
    if (length >= message.cap && kj_strbuf_grow(env, &message, length + 1) == 0)
        kiln_last_error(message.data, message.cap);
    if ((*env)->ExceptionCheck(env)) { /* the grow failed and threw */
        kj_strbuf_release(&message);
        return;
    }
    jstring text = kj_strbuf_string(env, &message);
    kj_strbuf_release(&message);
    if (!text) return;
    jobject exception =
        (*env)->NewObject(env, g_kiln_exception, g_kiln_exception_init, (jint)status, text);
    if (exception) (*env)->Throw(env, (jthrowable)exception);
}

/* ---- Java -> C ---- */

int kj_size_arg(JNIEnv *env, jlong value, const char *arg, size_t *out) {
    if (value < 0) {
        kj_throw_illegal_argument(env, arg, "must not be negative");
        return -1;
    }
    *out = (size_t)value;
    return 0;
}

/* True when JNI's modified UTF-8 differs from real UTF-8 for this text:
 * characters outside the BMP (surrogate pairs) or an embedded NUL. */
static int needs_real_utf8(const char *chars) {
    for (const unsigned char *p = (const unsigned char *)chars; *p; p++) {
        if (p[0] == 0xED && p[1] >= 0xA0 && p[1] <= 0xBF) return 1;
        if (p[0] == 0xC0 && p[1] == 0x80) return 1;
    }
    return 0;
}

int kj_utf8_get(JNIEnv *env, jstring text, const char *arg, int nullable, kj_utf8 *out) {
    out->chars = NULL;
    out->source = NULL;
    out->owned = NULL;
    if (!text) {
        if (nullable) return 0;
        kj_throw_null(env, arg);
        return -1;
    }
    const char *chars = (*env)->GetStringUTFChars(env, text, NULL);
    if (!chars) return -1;
    if (!needs_real_utf8(chars)) {
        out->chars = chars;
        out->source = text;
        return 0;
    }
    (*env)->ReleaseStringUTFChars(env, text, chars);
    jbyteArray bytes = (jbyteArray)(*env)->CallObjectMethod(env, text, g_string_get_bytes, g_utf8);
    if (!bytes) return -1;
    jsize length = (*env)->GetArrayLength(env, bytes);
    char *owned = malloc((size_t)length + 1);
    if (!owned) {
        kj_throw_out_of_memory(env, arg);
        return -1;
    }
    (*env)->GetByteArrayRegion(env, bytes, 0, length, (jbyte *)owned);
    (*env)->DeleteLocalRef(env, bytes);
    owned[length] = '\0';
    if (memchr(owned, '\0', (size_t)length)) {
        free(owned);
        kj_throw_illegal_argument(env, arg, "contains a NUL character");
        return -1;
    }
    out->chars = owned;
    out->owned = owned;
    return 0;
}

void kj_utf8_release(JNIEnv *env, kj_utf8 *text) {
    if (text->source) (*env)->ReleaseStringUTFChars(env, text->source, text->chars);
    free(text->owned);
    text->chars = NULL;
    text->source = NULL;
    text->owned = NULL;
}

int kj_dims_in_get(JNIEnv *env, jlongArray array, const char *arg, kj_dims_in *out) {
    out->dims = NULL;
    out->rank = 0;
    if (!array) return 0;
    jsize rank = (*env)->GetArrayLength(env, array);
    if (rank == 0) return 0;
    out->dims = rank <= KJ_DIMS_STACK ? out->stack : malloc((size_t)rank * sizeof(int64_t));
    if (!out->dims) {
        kj_throw_out_of_memory(env, arg);
        return -1;
    }
    out->rank = (int32_t)rank;
    (*env)->GetLongArrayRegion(env, array, 0, rank, (jlong *)out->dims);
    return 0;
}

void kj_dims_in_release(kj_dims_in *dims) {
    if (dims->dims != dims->stack) free(dims->dims);
    dims->dims = NULL;
}

int kj_direct_buffer(JNIEnv *env, jobject buffer, const char *arg, void **data, size_t *size) {
    *data = NULL;
    *size = 0;
    if (!buffer) return 0;
    void *address = (*env)->GetDirectBufferAddress(env, buffer);
    jlong capacity = (*env)->GetDirectBufferCapacity(env, buffer);
    if (!address || capacity < 0) {
        if (capacity == 0) return 0; /* an empty direct buffer may have no address */
        kj_throw_illegal_argument(env, arg, "needs a direct ByteBuffer (ByteBuffer.allocateDirect)");
        return -1;
    }
    *data = address;
    *size = (size_t)capacity;
    return 0;
}

static int array_get(JNIEnv *env, jarray array, const char *arg, int nullable, char kind,
                     kj_array *out) {
    out->array = NULL;
    out->elements = NULL;
    out->length = 0;
    out->kind = kind;
    if (!array) {
        if (nullable) return 0;
        kj_throw_null(env, arg);
        return -1;
    }
    out->length = (*env)->GetArrayLength(env, array);
    out->elements = kind == 'F' ? (void *)(*env)->GetFloatArrayElements(env, (jfloatArray)array, NULL)
                                : (void *)(*env)->GetByteArrayElements(env, (jbyteArray)array, NULL);
    if (!out->elements) return -1;
    out->array = array;
    return 0;
}

int kj_float_array_get(JNIEnv *env, jfloatArray array, const char *arg, int nullable,
                       kj_array *out) {
    return array_get(env, array, arg, nullable, 'F', out);
}

int kj_byte_array_get(JNIEnv *env, jbyteArray array, const char *arg, kj_array *out) {
    return array_get(env, array, arg, 0, 'B', out);
}

void kj_array_release(JNIEnv *env, kj_array *array, int commit) {
    if (!array->elements) return;
    jint mode = commit ? 0 : JNI_ABORT;
    if (array->kind == 'F')
        (*env)->ReleaseFloatArrayElements(env, (jfloatArray)array->array, array->elements, mode);
    else
        (*env)->ReleaseByteArrayElements(env, (jbyteArray)array->array, array->elements, mode);
    array->elements = NULL;
}

/* ---- C -> Java ---- */

void kj_strbuf_init(kj_strbuf *buf) {
    buf->data = buf->stack;
    buf->cap = KJ_STRBUF_STACK;
    buf->stack[0] = '\0';
}

int kj_strbuf_grow(JNIEnv *env, kj_strbuf *buf, int32_t needed) {
    if (needed <= buf->cap) return 0;
    char *grown = malloc((size_t)needed);
    if (!grown) {
        kj_throw_out_of_memory(env, "string buffer");
        return -1;
    }
    grown[0] = '\0';
    kj_strbuf_release(buf);
    buf->data = grown;
    buf->cap = needed;
    return 0;
}

void kj_strbuf_release(kj_strbuf *buf) {
    if (buf->data != buf->stack) free(buf->data);
    buf->data = buf->stack;
    buf->cap = KJ_STRBUF_STACK;
}

/* UTF-8 bytes as a String. Library strings come from model files, so they
 * may be any bytes: only plain ASCII takes NewStringUTF; everything else
 * goes through String(byte[], UTF_8), which replaces invalid sequences. */
static jstring string_from_utf8(JNIEnv *env, const char *text, size_t length) {
    int ascii = 1;
    for (size_t i = 0; i < length && ascii; i++) ascii = (unsigned char)text[i] < 0x80;
    if (ascii) return (*env)->NewStringUTF(env, text);
    jbyteArray bytes = (*env)->NewByteArray(env, (jsize)length);
    if (!bytes) return NULL;
    (*env)->SetByteArrayRegion(env, bytes, 0, (jsize)length, (const jbyte *)text);
    jstring result = (jstring)(*env)->NewObject(env, g_string, g_string_from_bytes, bytes, g_utf8);
    (*env)->DeleteLocalRef(env, bytes);
    return result;
}

jstring kj_strbuf_string(JNIEnv *env, const kj_strbuf *buf) {
    const char *end = memchr(buf->data, '\0', (size_t)buf->cap);
    size_t length = end ? (size_t)(end - buf->data) : 0; /* no NUL: nothing written */
    return string_from_utf8(env, buf->data, length);
}

jbyteArray kj_strbuf_bytes(JNIEnv *env, const kj_strbuf *buf, int32_t length) {
    if (length < 0) length = 0;
    if (length > buf->cap) length = buf->cap;
    jbyteArray bytes = (*env)->NewByteArray(env, (jsize)length);
    if (bytes) (*env)->SetByteArrayRegion(env, bytes, 0, (jsize)length, (const jbyte *)buf->data);
    return bytes;
}

void kj_dims_out_init(kj_dims_out *dims) {
    dims->dims = dims->stack;
    dims->cap = KJ_DIMS_STACK;
}

int kj_dims_out_grow(JNIEnv *env, kj_dims_out *dims, int32_t rank) {
    if (rank <= dims->cap) return 0;
    int64_t *grown = malloc((size_t)rank * sizeof(int64_t));
    if (!grown) {
        kj_throw_out_of_memory(env, "dims");
        return -1;
    }
    kj_dims_out_release(dims);
    dims->dims = grown;
    dims->cap = rank;
    return 0;
}

void kj_dims_out_release(kj_dims_out *dims) {
    if (dims->dims != dims->stack) free(dims->dims);
    dims->dims = dims->stack;
    dims->cap = KJ_DIMS_STACK;
}

jlongArray kj_dims_out_array(JNIEnv *env, const kj_dims_out *dims, int32_t rank) {
    if (rank < 0) return NULL;
    if (rank > dims->cap) rank = dims->cap;
    jlongArray array = (*env)->NewLongArray(env, (jsize)rank);
    if (array && rank > 0)
        (*env)->SetLongArrayRegion(env, array, 0, (jsize)rank, (const jlong *)dims->dims);
    return array;
}

jstring kj_static_string(JNIEnv *env, const char *text) {
    if (!text) return NULL;
    return string_from_utf8(env, text, strlen(text));
}

jobject kj_view_buffer(JNIEnv *env, const void *data, size_t size) {
    /* JNI wants a non-NULL address even for an empty buffer. */
    static char empty;
    if (!data || size == 0) return (*env)->NewDirectByteBuffer(env, &empty, 0);
    return (*env)->NewDirectByteBuffer(env, (void *)data, (jlong)size);
}
