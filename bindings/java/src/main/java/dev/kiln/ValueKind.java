// Generated from capi/kiln_api.json by bindings/gen/emit_java.py; do not edit.
// Regenerate: /usr/bin/python3 bindings/gen/generate.py
package dev.kiln;

/** What a model input/output or a Tensor holds. */
public enum ValueKind {
    /** a tensor */
    TENSOR(0),
    /** an ordered list of tensors (ONNX sequence) */
    SEQUENCE(1),
    /** none, or one tensor or sequence (ONNX optional) */
    OPTIONAL(2);

    private final int code;

    ValueKind(int code) {
        this.code = code;
    }

    /** The number kiln.h gives this value. */
    public int code() {
        return code;
    }

    /** The value with this code, or null if this binding does not know it. */
    public static ValueKind fromCode(int code) {
        for (ValueKind value : values()) {
            if (value.code == code) {
                return value;
            }
        }
        return null;
    }
}
