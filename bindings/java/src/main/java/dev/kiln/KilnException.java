package dev.kiln;

/**
 * A Kiln call failed. Carries the C API's status code and the library's own
 * message, which names the problem (the op and node, the input, the file
 * offset...). Thrown by the generated glue in the same native call that
 * failed, so the message is always the one for this failure.
 */
public class KilnException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int code;

    /** code: one of the KILN_ERR_* values (see {@link Status}). */
    public KilnException(int code, String message) {
        super(withoutCFunctionName(message));
        this.code = code;
    }

    /* A few library messages lead with the C function's name
     * ("kiln_tensor_string: ..."); Java callers know which method they
     * called, and C's names are not this binding's. */
    private static String withoutCFunctionName(String message) {
        return message == null ? null : message.replaceFirst("^kiln_[a-z0-9_]+: ", "");
    }

    /** The status code, a KILN_ERR_* value. */
    public int getCode() {
        return code;
    }

    /** The status as an enum, or null for a code newer than this binding. */
    public Status getStatus() {
        return Status.fromCode(code);
    }

    /** The status's short name, e.g. "SHAPE" (the C constant without KILN_ERR_). */
    public String getStatusName() {
        Status status = getStatus();
        return status != null ? status.name() : "status " + code;
    }

    @Override
    public String toString() {
        return "KilnException[" + getStatusName() + "]: " + getMessage();
    }
}
