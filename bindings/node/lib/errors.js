'use strict';
// KilnError: what every failing Kiln call throws (or rejects with). `code` is
// the C status (KILN_ERR_*), `status` its short name from kiln_status_name().

class KilnError extends Error {
  constructor(message, code, status) {
    // A few library messages lead with a C function's name
    // ("kiln_tensor_string: ..."); JS callers know which method they called.
    super(String(message).replace(/^kiln_[a-z0-9_]+: /, ''));
    this.name = 'KilnError';
    this.code = code;
    this.status = status;
  }
}

// A KilnError for a failure found in JavaScript, named like C's own.
function kilnError(code, message) {
  const { native } = require('./native.js'); // (lazily: native.js needs this file)
  return new KilnError(message, code, native.kiln_status_name(code));
}

module.exports = { KilnError, kilnError };
