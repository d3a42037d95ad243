// Generated from capi/kiln_api.json by bindings/gen/emit_java.py; do not edit.
// Regenerate: /usr/bin/python3 bindings/gen/generate.py
package dev.kiln;

/** Status codes of the C API; KilnException carries one. */
public enum Status {
    /** success */
    OK(0),
    /** NULL handle, bad index, bad value */
    INVALID_ARGUMENT(1),
    /** an allocation failed */
    OUT_OF_MEMORY(2),
    /** model or data file cannot be read */
    IO(3),
    /** corrupt, truncated or inconsistent model */
    INVALID_MODEL(4),
    /** op, opset, dtype or feature not supported */
    UNSUPPORTED(5),
    /** wrong shape (input or inferred) */
    SHAPE(6),
    /** wrong element type */
    DTYPE(7),
    /** no input/output with that name */
    NOT_FOUND(8),
    /** call made in the wrong order */
    STATE(9),
    /** run stopped by kiln_session_cancel() */
    CANCELLED(10),
    /** internal error */
    INTERNAL(11),
    /** caller buffer too small; see *needed */
    BUFFER_TOO_SMALL(12),
    /** a configured resource limit was exceeded */
    LIMIT(13);

    private final int code;

    Status(int code) {
        this.code = code;
    }

    /** The number kiln.h gives this value. */
    public int code() {
        return code;
    }

    /** The value with this code, or null if this binding does not know it. */
    public static Status fromCode(int code) {
        for (Status value : values()) {
            if (value.code == code) {
                return value;
            }
        }
        return null;
    }
}
