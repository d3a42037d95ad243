"""Java binding glue: writes the JNI C file and the Java classes that mirror
capi/kiln_api.json.

bindings/java/native/generated/ (the JNI glue: kiln_jni_results.{c,h} and one
kiln_jni_<section>.c per section of the spec)
    one JNIEXPORT function per C function. It converts the Java arguments
    (by role), calls the function, and on a failing status throws
    dev.kiln.KilnException(code, message) with the message of
    kiln_last_error() read right away on the same thread, in the same native
    call. Two-call strings and shapes are completed inside the call.
bindings/java/src/main/java/dev/kiln/KilnNative.java
    the matching `static native` methods (handles travel as long) and one
    small result class per function that returns several values.
bindings/java/src/main/java/dev/kiln/{KilnConstants,DType,Status,ValueKind}.java
    every constant, and enums for the element types, status codes and kinds.

How each role crosses (bindings/gen/README.md defines the roles):

    handle            long (0 = NULL)              handle_out   returned long
    scalar            int (size_t: long, >= 0)     scalar_out   returned int/long/boolean
    cstring           String (UTF-8)               strbuf       returned String (binary: byte[])
    dims_in           long[] (null = rank 0)       dims_out     returned long[] (rank -1: null)
    bytes_in          direct ByteBuffer (all of its capacity; null = NULL)
    bytes_out         direct ByteBuffer or null; returns the byte size needed
                      (null buffer: a size query, no exception)
    view_out          returned ByteBuffer wrapping library memory (copy it
                      before the library may free it)
    floats_in/out     float[]                      pixels_in    byte[] (length checked)

Companions (capacities, sizes, counts) never appear in Java. A function with
one result returns it; several results come back in a KilnNative.<Name>
object with one final field per result.
"""
import re

import spec as kspec

JAVA_DIR = "bindings/java/src/main/java/dev/kiln"
JNI_DIR = "bindings/java/native/generated"
JAVA_CLASS = "KilnNative"
JNI_CLASS_PATH = "dev/kiln/" + JAVA_CLASS
HEADER_NOTE = ("Generated from capi/kiln_api.json by bindings/gen/emit_java.py; do not edit.\n"
               "Regenerate: /usr/bin/python3 bindings/gen/generate.py")

JAVA_KEYWORDS = {"abstract", "boolean", "byte", "char", "class", "default", "double", "final",
                 "float", "int", "long", "native", "new", "package", "private", "public",
                 "return", "short", "static", "switch", "this", "throw", "void", "volatile"}


# ---- names and text ----

def java_method(fn):
    """kiln_model_input_name -> modelInputName (kiln_version -> version)."""
    name = kspec.lower_camel(fn["name"][len("kiln_"):])
    if not re.match(r"^[A-Za-z][A-Za-z0-9]*$", name):  # JNI short names need no escapes
        raise ValueError("%s: cannot form a Java method name" % fn["name"])
    return name


def java_param(arg):
    name = kspec.lower_camel(arg["name"])
    return name + "_" if name in JAVA_KEYWORDS else name


def result_class(fn):
    return kspec.camel(fn["name"][len("kiln_"):])


def javadoc(text, indent):
    safe = (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("*/", "*&#47;").replace("@", "&#64;"))
    return "%s/** %s */" % (indent, safe)


def c_comment(text):
    return text.replace("*/", "* /")


# ---- roles ----

class JavaValue:
    """How one Java-visible value (parameter or result) is typed."""

    def __init__(self, java, jni, signature):
        self.java, self.jni, self.signature = java, jni, signature


LONG = JavaValue("long", "jlong", "J")
INT = JavaValue("int", "jint", "I")
BOOLEAN = JavaValue("boolean", "jboolean", "Z")
STRING = JavaValue("String", "jstring", "Ljava/lang/String;")
BYTES = JavaValue("byte[]", "jbyteArray", "[B")
LONGS = JavaValue("long[]", "jlongArray", "[J")
FLOATS = JavaValue("float[]", "jfloatArray", "[F")
BUFFER = JavaValue("java.nio.ByteBuffer", "jobject", "Ljava/nio/ByteBuffer;")

PARAM_TYPES = {"handle": LONG, "cstring": STRING, "dims_in": LONGS, "bytes_in": BUFFER,
               "bytes_out": BUFFER, "floats_in": FLOATS, "floats_out": FLOATS,
               "pixels_in": BYTES, "device_ptr": LONG}


def param_type(arg):
    if arg["role"] == "scalar":
        return LONG if arg["type"] == "size_t" else INT
    return PARAM_TYPES.get(arg["role"])


def result_type(arg):
    role = arg["role"]
    if role in ("handle_out", "device_ptr_out"):  # device addresses travel as long
        return LONG
    if role == "scalar_out":
        if arg.get("boolean"):
            return BOOLEAN
        return LONG if arg["type"] == "int64_t *" else INT
    if role == "strbuf":
        return BYTES if arg.get("binary") else STRING
    if role == "dims_out":
        return LONGS
    if role == "view_out":
        return BUFFER
    if role == "bytes_out":  # the size needed, from its bytes_needed companion
        return LONG
    return None


def results(fn):
    """The values a status function hands back, in argument order."""
    if fn["result"] != "status":
        return []
    return [a for a in fn["args"] if result_type(a) is not None]


def result_name(arg):
    if arg["role"] == "bytes_out":
        return java_param({"name": arg["needed"]})
    return java_param(arg)


# ---- the C side of one function ----

class Glue:
    """Collects the C text of one JNI function, section by section."""

    def __init__(self, fn):
        self.fn = fn
        self.by_name = {a["name"]: a for a in fn["args"]}
        self.locals, self.prepare, self.release = [], [], []
        self.call_args, self.grow = [], []
        self.uses_done = False

    def fail(self):
        self.uses_done = True
        return "goto done;"

    def local(self, arg):
        return "c_" + arg["name"]

    def j(self, arg):
        return "j_" + arg["name"]

    def companion_expr(self, arg):
        """The C expression for a companion argument, from its primary."""
        role = arg["role"]
        primary = self.by_name[arg["of"][0]]
        p = self.local(primary)
        if role == "strcap":
            return "%s.cap" % p
        if role == "needed":
            return "&c_" + arg["name"]
        if role == "rank":
            return "%s.rank" % p
        if role == "dims_cap":
            return "%s.cap" % p
        if role in ("rank_out", "bytes_needed", "nbytes_out"):
            return "&c_" + arg["name"]
        if role == "bytes_cap":
            return "%s_size" % p
        if role == "nbytes":
            if primary["role"] == "floats_out":
                return "(size_t)%s.length * sizeof(float)" % p
            return "%s_size" % p
        raise ValueError("%s: companion role %s" % (self.fn["name"], role))

    def add_arg(self, arg):
        role, name, c, j = arg["role"], arg["name"], self.local(arg), self.j(arg)
        nullable = 1 if arg.get("nullable") else 0
        if kspec.is_companion(arg):
            if role == "needed":
                self.locals.append("int32_t c_%s = 0;" % name)
            elif role == "rank_out":
                self.locals.append("int32_t c_%s = 0;" % name)
            elif role in ("bytes_needed", "nbytes_out"):
                self.locals.append("size_t c_%s = 0;" % name)
            self.call_args.append(self.companion_expr(arg))
        elif role == "handle":
            self.call_args.append("(%s)(intptr_t)%s" % (arg["type"], j))
        elif role == "handle_out":
            self.locals.append("%s%s = NULL;" % (arg["type"][:-1], c))
            self.call_args.append("&" + c)
        elif role == "device_ptr":  # an address on the device, as a Java long
            self.call_args.append("(%s)(intptr_t)%s" % (arg["type"], j))
        elif role == "device_ptr_out":
            self.locals.append("void *%s = NULL;" % c)
            self.call_args.append("&" + c)
        elif role == "scalar":
            if arg["type"] == "size_t":
                self.locals.append("size_t %s = 0;" % c)
                self.prepare.append('if (kj_size_arg(env, %s, "%s", &%s)) %s'
                                    % (j, name, c, self.fail()))
                self.call_args.append(c)
            else:
                self.call_args.append("(int32_t)" + j)
        elif role == "scalar_out":
            self.locals.append("%s%s = 0;" % (arg["type"][:-1], c))
            self.call_args.append("&" + c)
        elif role == "cstring":
            self.locals.append("kj_utf8 %s = {0};" % c)
            self.prepare.append('if (kj_utf8_get(env, %s, "%s", %d, &%s)) %s'
                                % (j, name, nullable, c, self.fail()))
            self.release.append("kj_utf8_release(env, &%s);" % c)
            self.call_args.append("%s.chars" % c)
        elif role == "strbuf":
            self.locals.append("kj_strbuf %s;" % c)
            self.locals.append("kj_strbuf_init(&%s);" % c)
            self.release.append("kj_strbuf_release(&%s);" % c)
            if arg.get("needed"):
                self.grow.append("kj_strbuf_grow(env, &%s, c_%s)" % (c, arg["needed"]))
            self.call_args.append("%s.data" % c)
        elif role == "dims_in":
            self.locals.append("kj_dims_in %s = {0};" % c)
            self.prepare.append('if (kj_dims_in_get(env, %s, "%s", &%s)) %s'
                                % (j, name, c, self.fail()))
            self.release.append("kj_dims_in_release(&%s);" % c)
            self.call_args.append("%s.dims" % c)
        elif role == "dims_out":
            self.locals.append("kj_dims_out %s;" % c)
            self.locals.append("kj_dims_out_init(&%s);" % c)
            self.release.append("kj_dims_out_release(&%s);" % c)
            self.grow.append("kj_dims_out_grow(env, &%s, c_%s)" % (c, arg["count"]))
            self.call_args.append("%s.dims" % c)
        elif role in ("bytes_in", "bytes_out"):
            self.locals.append("void *%s = NULL;" % c)
            self.locals.append("size_t %s_size = 0;" % c)
            self.prepare.append('if (kj_direct_buffer(env, %s, "%s", &%s, &%s_size)) %s'
                                % (j, name, c, c, self.fail()))
            self.call_args.append(c)
        elif role == "view_out":
            self.locals.append("const void *%s = NULL;" % c)
            self.call_args.append("&" + c)
        elif role in ("floats_in", "floats_out"):
            self.locals.append("kj_array %s = {0};" % c)
            self.prepare.append('if (kj_float_array_get(env, %s, "%s", %d, &%s)) %s'
                                % (j, name, nullable, c, self.fail()))
            if role == "floats_in":
                count = "j_" + arg["count"]
                self.prepare.append(
                    'if (%s.elements && %s > 0 && %s.length < %s) {' % (c, count, c, count))
                self.prepare.append('    kj_throw_illegal_argument(env, "%s", "needs %s elements");'
                                    % (name, arg["count"]))
                self.prepare.append("    %s" % self.fail())
                self.prepare.append("}")
                self.release.append("kj_array_release(env, &%s, 0);" % c)
                self.call_args.append("(const float *)%s.elements" % c)
            else:
                self.release.append("kj_array_release(env, &%s, status == KILN_OK);" % c)
                self.call_args.append("(float *)%s.elements" % c)
        elif role == "pixels_in":
            w, h, s, ch = ("(int64_t)j_" + arg[k] for k in ("width", "height", "stride", "channels"))
            self.locals.append("kj_array %s = {0};" % c)
            self.prepare.append('if (kj_byte_array_get(env, %s, "%s", &%s)) %s'
                                % (j, name, c, self.fail()))
            # C cannot check the pixel buffer's length; the binding does.
            self.prepare.append("if (%s > 0 && %s > 0 && %s > 0 && %s > 0 &&" % (w, h, s, ch))
            self.prepare.append("    (int64_t)%s.length < (%s - 1) * %s + %s * %s) {"
                                % (c, h, s, w, ch))
            self.prepare.append('    kj_throw_illegal_argument(env, "%s", "shorter than '
                                '(height - 1) * stride + width * channels bytes");' % name)
            self.prepare.append("    %s" % self.fail())
            self.prepare.append("}")
            self.release.append("kj_array_release(env, &%s, 0);" % c)
            self.call_args.append("(const uint8_t *)%s.elements" % c)
        else:
            raise ValueError("%s(%s): role %s has no Java mapping" % (self.fn["name"], name, role))

    def result_expr(self, arg):
        role, c = arg["role"], self.local(arg)
        if role in ("handle_out", "device_ptr_out"):
            return "(jlong)(intptr_t)%s" % c
        if role == "scalar_out":
            if arg.get("boolean"):
                return "(jboolean)(%s ? JNI_TRUE : JNI_FALSE)" % c
            return "(%s)%s" % (result_type(arg).jni, c)
        if role == "strbuf":
            if arg.get("binary"):
                return "kj_strbuf_bytes(env, &%s, c_%s - 1)" % (c, arg["needed"])
            return "kj_strbuf_string(env, &%s)" % c
        if role == "dims_out":
            return "kj_dims_out_array(env, &%s, c_%s)" % (c, arg["count"])
        if role == "view_out":
            return "kj_view_buffer(env, %s, c_%s)" % (c, arg["size"])
        if role == "bytes_out":
            return "(jlong)c_%s" % arg["needed"]
        raise ValueError(role)


def c_function(fn, result_index):
    """The JNIEXPORT function for fn; result_index: its result class slot."""
    glue = Glue(fn)
    for arg in fn["args"]:
        glue.add_arg(arg)
    outs = results(fn)
    params = ["JNIEnv *env", "jclass cls"] + [
        "%s j_%s" % (param_type(a).jni, a["name"]) for a in fn["args"] if param_type(a)]
    if fn["result"] == "status":
        jret = "void" if not outs else (result_type(outs[0]).jni if len(outs) == 1 else "jobject")
    else:
        jret = {"value": "jint", "static_string": "jstring", "length": "jstring",
                "none": "void"}[fn["result"]]
    call = "%s(%s)" % (fn["name"], ", ".join(glue.call_args))
    body = ["(void)cls;"]
    if fn["result"] in ("none", "value") and not glue.prepare and not glue.release:
        body.insert(0, "(void)env;")
    if jret != "void":
        body.append("%s result = %s;" % (jret, "0" if jret in ("jint", "jlong", "jboolean")
                                        else "NULL"))
    if fn["result"] == "status":
        body.append("int32_t status = KILN_OK;")
    body += glue.locals + glue.prepare
    if fn["result"] == "none":
        body.append(call + ";")
    elif fn["result"] == "value":
        body.append("result = (jint)%s;" % call)
    elif fn["result"] == "static_string":
        body.append("result = kj_static_string(env, %s);" % call)
    elif fn["result"] == "length":
        # kiln_last_error: the return value is the full length without the NUL.
        buf = glue.local(kspec.args_with_role(fn, "strbuf")[0])
        body.append("int32_t length = %s;" % call)
        body.append("if (length >= %s.cap) {" % buf)
        body.append("    if (kj_strbuf_grow(env, &%s, length + 1)) %s" % (buf, glue.fail()))
        body.append("    %s;" % call)
        body.append("}")
        body.append("result = kj_strbuf_string(env, &%s);" % buf)
    else:
        if glue.grow:
            # Two-call pattern: the stack buffers fit most answers; when one
            # is too small the call said how much it needs, so one retry.
            body.append("for (int attempt = 0;; attempt++) {")
            body.append("    status = %s;" % call)
            body.append("    if (status != KILN_ERR_BUFFER_TOO_SMALL || attempt > 0) break;")
            body.append("    if (%s) %s" % (" || ".join(glue.grow), glue.fail()))
            body.append("}")
        else:
            body.append("status = %s;" % call)
        for arg in kspec.args_with_role(fn, "bytes_out"):
            body.append("if (status == KILN_ERR_BUFFER_TOO_SMALL && !%s) status = KILN_OK; "
                        "/* a size query */" % glue.local(arg))
        if outs:
            body.append("if (status != KILN_OK) {")
            body.append("    kj_throw_status(env, status);")
            body.append("    %s" % glue.fail())
            body.append("}")
        else:
            body.append("if (status != KILN_OK) kj_throw_status(env, status);")
        if len(outs) == 1:
            body.append("result = %s;" % glue.result_expr(outs[0]))
        elif outs:
            names = []
            for arg in outs:
                value = result_type(arg)
                r = "r_" + arg["name"]
                names.append(r)
                body.append("%s %s = %s;" % (value.jni, r, glue.result_expr(arg)))
                if value.jni not in ("jint", "jlong", "jboolean"):
                    body.append("if ((*env)->ExceptionCheck(env)) %s" % glue.fail())
            body.append("result = (*env)->NewObject(env, kj_result_class[%d], kj_result_init[%d], %s);"
                        % (result_index, result_index, ", ".join(names)))
    if glue.uses_done:
        body.append("done:")
    body += list(reversed(glue.release))
    body.append("return result;" if jret != "void" else "return;")
    lines = ["/* %s: %s */" % (fn["name"], c_comment(fn["doc"])),
             "JNIEXPORT %s JNICALL Java_%s_%s(%s) {" % (
                 jret, JNI_CLASS_PATH.replace("/", "_"), java_method(fn), ", ".join(params))]
    lines += [("" if line == "done:" else "    ") + line for line in body]
    lines.append("}")
    return "\n".join(lines)


def result_signature(fn):
    return "(%s)V" % "".join(result_type(a).signature for a in results(fn))


def multi_result_functions(spec):
    return [fn for fn in spec["functions"] if len(results(fn)) > 1]


def c_preamble(includes):
    return ["/* " + HEADER_NOTE.replace("\n", "\n * ") + " */"] + includes + [""]


def c_results_header(spec):
    """The result classes every section's functions construct: declared
    here, defined (and cached at JNI_OnLoad) in kiln_jni_results.c."""
    multi = multi_result_functions(spec)
    return "\n".join(c_preamble(["#ifndef KJ_RESULTS_H", "#define KJ_RESULTS_H", "",
                                  '#include "jni_support.h"']) + [
        "/* Classes of the functions that return several values. */",
        "#define KJ_RESULT_CLASSES %d" % max(len(multi), 1),
        "extern jclass kj_result_class[KJ_RESULT_CLASSES];",
        "extern jmethodID kj_result_init[KJ_RESULT_CLASSES];",
        "",
        "#endif",
        ""])


def c_results_file(spec):
    multi = multi_result_functions(spec)
    lines = c_preamble(['#include "kiln_jni_results.h"']) + [
        "jclass kj_result_class[KJ_RESULT_CLASSES];",
        "jmethodID kj_result_init[KJ_RESULT_CLASSES];",
        "static const char *const kj_result_names[][2] = {"]
    for fn in multi:
        lines.append('    {"%s$%s", "%s"},' % (JNI_CLASS_PATH, result_class(fn), result_signature(fn)))
    if not multi:
        lines.append("    {NULL, NULL},")
    lines += ["};",
              "",
              "int kj_generated_init(JNIEnv *env) {",
              "    for (int i = 0; i < %d; i++) {" % len(multi),
              "        jclass local = (*env)->FindClass(env, kj_result_names[i][0]);",
              "        if (!local) return -1;",
              "        kj_result_class[i] = (jclass)(*env)->NewGlobalRef(env, local);",
              "        (*env)->DeleteLocalRef(env, local);",
              "        if (!kj_result_class[i]) return -1;",
              "        kj_result_init[i] = (*env)->GetMethodID(env, kj_result_class[i], \"<init>\",",
              "                                                kj_result_names[i][1]);",
              "        if (!kj_result_init[i]) return -1;",
              "    }",
              "    return 0;",
              "}",
              "",
              "void kj_generated_unload(JNIEnv *env) {",
              "    for (int i = 0; i < KJ_RESULT_CLASSES; i++)",
              "        if (kj_result_class[i]) (*env)->DeleteGlobalRef(env, kj_result_class[i]);",
              "}",
              ""]
    return "\n".join(lines)


def c_section_files(spec):
    """One file of JNIEXPORT functions per section of the spec (model,
    session, tensor, ...), in the spec's order."""
    multi = multi_result_functions(spec)
    sections = {}
    for fn in spec["functions"]:
        sections.setdefault(fn["section"], []).append(fn)
    files = {}
    for section, fns in sections.items():
        lines = c_preamble(["#include <stdint.h>", "#include <stdlib.h>", "",
                            '#include "kiln_jni_results.h"'])
        for fn in fns:
            index = multi.index(fn) if fn in multi else -1
            lines += [c_function(fn, index), ""]
        files["%s/kiln_jni_%s.c" % (JNI_DIR, section)] = "\n".join(lines)
    return files


# ---- the Java side ----

def java_header():
    return ["// " + line for line in HEADER_NOTE.split("\n")] + ["package dev.kiln;", ""]


def java_native_class(spec):
    abi = kspec.constants(spec, "abi")[0]["value"]
    lines = java_header() + [
        "/**",
        " * The Kiln C API one to one: one {@code static native} method per function",
        " * of {@code kiln.h}. Handles are {@code long} values (0 is NULL); a failing",
        " * status throws {@link KilnException}. Most code wants the classes built",
        " * on top ({@link KilnRuntime}, {@link Model}, {@link Session}, {@link Tensor});",
        " * this layer gives every C function, including ones those classes do not",
        " * use yet. Buffers are direct ByteBuffers, used over their whole capacity.",
        " */",
        "public final class %s {" % JAVA_CLASS,
        "    private %s() {}" % JAVA_CLASS,
        "",
        "    static {",
        "        NativeLibrary.ensureLoaded();",
        "    }",
        "",
        javadoc("KILN_ABI_VERSION of the spec these methods were generated from.", "    "),
        "    public static final int ABI_VERSION = %d;" % abi,
    ]
    for fn in spec["functions"]:
        outs = results(fn)
        if fn["result"] == "status":
            jret = "void" if not outs else (result_type(outs[0]).java if len(outs) == 1
                                           else result_class(fn))
        else:
            jret = {"value": "int", "static_string": "String", "length": "String",
                    "none": "void"}[fn["result"]]
        params = ["%s %s" % (param_type(a).java, java_param(a)) for a in fn["args"] if param_type(a)]
        lines += ["", javadoc("%s: %s" % (fn["name"], fn["doc"]), "    "),
                  "    public static native %s %s(%s);" % (jret, java_method(fn), ", ".join(params))]
    for fn in spec["functions"]:
        outs = results(fn)
        if len(outs) < 2:
            continue
        name = result_class(fn)
        fields = [(result_type(a).java, result_name(a)) for a in outs]
        lines += ["", javadoc("Results of %s." % fn["name"], "    "),
                  "    public static final class %s {" % name]
        lines += ["        public final %s %s;" % f for f in fields]
        lines += ["",
                  "        %s(%s) {" % (name, ", ".join("%s %s" % f for f in fields))]
        lines += ["            this.%s = %s;" % (f[1], f[1]) for f in fields]
        lines += ["        }", "    }"]
    lines += ["}", ""]
    return "\n".join(lines)


def java_constants(spec):
    lines = java_header() + [
        javadoc("Every constant of kiln.h, named without the KILN_ prefix.", ""),
        "public final class KilnConstants {",
        "    private KilnConstants() {}"]
    for const in spec["constants"]:
        lines += ["", javadoc(const["doc"], "    "),
                  "    public static final int %s = %d;" % (const["name"][len("KILN_"):],
                                                           const["value"])]
    lines += ["}", ""]
    return "\n".join(lines)


def dtype_bits(short):
    """Bits per element, read from the type's name (FLOAT8E4M3FN -> 8);
    0 for strings, whose elements have no fixed size."""
    fixed = {"FLOAT": 32, "DOUBLE": 64, "BOOL": 8, "STRING": 0}
    if short in fixed:
        return fixed[short]
    match = re.search(r"\d+", short)
    if not match:
        raise ValueError("cannot tell the element size of dtype %s" % short)
    return int(match.group(0))


def java_enum(spec, group, name, doc, extra_fields=None):
    """An enum over one constant group: code(), fromCode(int) and, for
    dtypes, bits()."""
    consts = sorted(kspec.constants(spec, group), key=lambda c: c["value"])
    lines = java_header() + [javadoc(doc, ""), "public enum %s {" % name]
    for i, const in enumerate(consts):
        args = [str(const["value"])] + ([str(extra_fields(const))] if extra_fields else [])
        lines += [javadoc(const["doc"], "    "),
                  "    %s(%s)%s" % (const["short"], ", ".join(args),
                                    ";" if i == len(consts) - 1 else ",")]
    lines += ["",
              "    private final int code;"]
    if extra_fields:
        lines.append("    private final int bits;")
    lines += ["",
              "    %s(int code%s) {" % (name, ", int bits" if extra_fields else ""),
              "        this.code = code;"]
    if extra_fields:
        lines.append("        this.bits = bits;")
    lines += ["    }",
              "",
              javadoc("The number kiln.h gives this value.", "    "),
              "    public int code() {",
              "        return code;",
              "    }"]
    if extra_fields:
        lines += ["",
                  javadoc("Bits per element (0 for STRING).", "    "),
                  "    public int bits() {",
                  "        return bits;",
                  "    }"]
    lines += ["",
              javadoc("The value with this code, or null if this binding does not know it.", "    "),
              "    public static %s fromCode(int code) {" % name,
              "        for (%s value : values()) {" % name,
              "            if (value.code == code) {",
              "                return value;",
              "            }",
              "        }",
              "        return null;",
              "    }",
              "}",
              ""]
    return "\n".join(lines)


def outputs(spec):
    return {
        JNI_DIR + "/kiln_jni_results.h": c_results_header(spec),
        JNI_DIR + "/kiln_jni_results.c": c_results_file(spec),
        **c_section_files(spec),
        JAVA_DIR + "/KilnNative.java": java_native_class(spec),
        JAVA_DIR + "/KilnConstants.java": java_constants(spec),
        JAVA_DIR + "/DType.java": java_enum(
            spec, "dtype", "DType", "Element types (ONNX TensorProto.DataType numbers).",
            lambda c: dtype_bits(c["short"])),
        JAVA_DIR + "/Status.java": java_enum(
            spec, "status", "Status", "Status codes of the C API; KilnException carries one."),
        JAVA_DIR + "/ValueKind.java": java_enum(
            spec, "kind", "ValueKind", "What a model input/output or a Tensor holds."),
    }
