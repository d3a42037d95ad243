// KilnError, shared by the main API and the worker client.

/** An error reported by the engine: `code` is the KILN_ERR_* number,
 * `status` its name ("shape mismatch"), `message` the engine's message. */
export class KilnError extends Error {
  constructor(message, code, status) {
    super(message);
    this.name = 'KilnError';
    this.code = code;
    this.status = status;
  }
}
