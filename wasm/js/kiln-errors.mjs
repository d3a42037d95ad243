// KilnError, shared by the main API and the worker client.

/** An error reported by the engine: `code` is the KILN_ERR_* number,
 * `status` its name ("shape mismatch"), `message` the engine's message. */
export class KilnError extends Error {
  constructor(message, code, status) {
    // A few library messages lead with a C function's name
    // ("kiln_tensor_string: ..."); JS callers know which method they called.
    super(String(message).replace(/^kiln_[a-z0-9_]+: /, ''));
    this.name = 'KilnError';
    this.code = code;
    this.status = status;
  }
}
