'use strict';
// Model: a loaded ONNX graph (with the runtime whose threads run it), its
// declared inputs and outputs, and the sessions made from it.

const { native } = require('./native.js');
const { STATUS, OPTION, KIND } = require('./constants_gen.js');
const { kilnError } = require('./errors.js');
const { Owner, collected } = require('./owner.js');
const { typeName } = require('./tensor.js');
const { Session } = require('./session.js');
const settings = require('./settings.js');

// Largest planCache the library takes (KILN_OPT_PLAN_CACHE: 1..1024).
const MAX_PLAN_CACHE = 1024;

const KIND_NAMES = { [KIND.TENSOR]: 'tensor', [KIND.SEQUENCE]: 'sequence', [KIND.OPTIONAL]: 'optional' };

// A kiln_options handle holding the given [key, value] settings (undefined
// values stay at their defaults); the caller destroys it.
function makeOptions(pairs) {
  const options = native.kiln_options_create();
  try {
    for (const [key, value] of pairs) {
      if (value !== undefined) native.kiln_options_set_int(options, key, value);
    }
  } catch (err) {
    native.kiln_options_destroy(options);
    throw err;
  }
  return options;
}

function flag(value) {
  return value === undefined ? undefined : +!!value;
}

function describe(handle, side) {
  const count = native[`kiln_model_${side}_count`](handle);
  const infos = [];
  for (let i = 0; i < count; i++) {
    const dims = native[`kiln_model_${side}_shape`](handle, i);
    const kind = native[`kiln_model_${side}_kind`](handle, i);
    const info = {
      name: native[`kiln_model_${side}_name`](handle, i),
      type: typeName(native[`kiln_model_${side}_dtype`](handle, i)),
      dims: dims === null ? null : Object.freeze(dims.map((d) => (d < 0 ? null : d))),
    };
    if (kind !== KIND.TENSOR) info.kind = KIND_NAMES[kind] || `kind${kind}`;
    infos.push(Object.freeze(info));
  }
  return Object.freeze(infos);
}

function sourceBytes(source) {
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) {
    return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  }
  throw kilnError(STATUS.INVALID_ARGUMENT,
    'Model.load: source must be a file path, an ArrayBuffer or a Uint8Array');
}

/** A loaded ONNX model. Create sessions from it to run it. */
class Model {
  #owner;
  #sessions = new Set(); // WeakRefs: a forgotten session may still be collected
  #disposed = false;

  // Private: use Model.load().
  constructor(owner, inputs, outputs) {
    this.#owner = owner;
    this.inputs = inputs;
    this.outputs = outputs;
    collected.register(this, owner, this);
  }

  // source: a file path, an ArrayBuffer or a Uint8Array. options: threads
  // (default: init()'s, else 1), optimize (0|1|2), allowUnsupported,
  // maxModelMB. Loading runs on the libuv thread pool.
  static async load(source, options = {}) {
    const threads = options.threads === undefined ? settings.threads : options.threads;
    if (!Number.isInteger(threads) || threads < 1 || threads > 1024) {
      throw kilnError(STATUS.INVALID_ARGUMENT, 'Model.load: threads must be an integer >= 1');
    }
    const bytes = typeof source === 'string' ? null : sourceBytes(source);
    const runtimeOptions = makeOptions([[OPTION.THREADS, threads]]);
    let runtime;
    try {
      runtime = new Owner(native.kiln_runtime_create(runtimeOptions), native.kiln_runtime_destroy);
    } finally {
      native.kiln_options_destroy(runtimeOptions);
    }
    let handle;
    let loadOptions;
    try {
      loadOptions = makeOptions([[OPTION.OPTIMIZE, options.optimize],
        [OPTION.ALLOW_UNSUPPORTED, flag(options.allowUnsupported)],
        [OPTION.MAX_MODEL_MB, options.maxModelMB]]);
      // The options must outlive the call, which runs on another thread.
      handle = bytes === null
        ? await native.kiln_model_load_file_async(runtime.handle, source, loadOptions)
        : await native.kiln_model_load_memory_async(runtime.handle, bytes, loadOptions);
    } catch (err) {
      runtime.release();
      throw err;
    } finally {
      if (loadOptions) native.kiln_options_destroy(loadOptions);
    }
    const owner = new Owner(handle, native.kiln_model_destroy, runtime);
    runtime.release(); // the model holds the runtime now
    try {
      return new Model(owner, describe(handle, 'input'), describe(handle, 'output'));
    } catch (err) {
      owner.release();
      throw err;
    }
  }

  // What the model holds for all its sessions, in bytes: its weights, the
  // prepared copies of them every session shares, and the raw weight bytes
  // given back to the system because only a shared copy is read.
  memoryInfo() {
    if (this.#disposed) throw kilnError(STATUS.STATE, 'Model.memoryInfo: the model was disposed');
    const info = native.kiln_model_memory_info(this.#owner.handle);
    return { weightBytes: info.weight_bytes, sharedPreparedBytes: info.shared_prepared_bytes,
      givenBackBytes: info.given_back_bytes };
  }

  // options: maxArenaMB, profile, planCache (plans kept, one per input
  // signature, 1..1024, default 8), inlineBelowUs (see session.js).
  createSession(options = {}) {
    if (this.#disposed) {
      throw kilnError(STATUS.STATE, 'Model.createSession: the model was disposed');
    }
    const plans = options.planCache;
    if (plans !== undefined && !(Number.isInteger(plans) && plans >= 1 && plans <= MAX_PLAN_CACHE)) {
      throw kilnError(STATUS.INVALID_ARGUMENT,
        `createSession: planCache must be an integer from 1 to ${MAX_PLAN_CACHE}, got ${plans}`);
    }
    const sessionOptions = makeOptions([[OPTION.MAX_ARENA_MB, options.maxArenaMB],
      [OPTION.PROFILE, flag(options.profile)], [OPTION.PLAN_CACHE, plans]]);
    let handle;
    try {
      handle = native.kiln_session_create(this.#owner.handle, sessionOptions);
    } finally {
      native.kiln_options_destroy(sessionOptions);
    }
    const inline = options.inlineBelowUs;
    if (inline !== undefined && !(typeof inline === 'number' && inline >= 0)) {
      native.kiln_session_destroy(handle);
      throw kilnError(STATUS.INVALID_ARGUMENT, 'createSession: inlineBelowUs must be a number >= 0');
    }
    const session = new Session(handle, this.#owner, this, inline);
    this.#sessions.add(new WeakRef(session));
    return session;
  }

  // Disposes the model and every session still open on it (a run in flight
  // finishes first).
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const ref of this.#sessions) ref.deref()?.dispose();
    this.#sessions.clear();
    collected.unregister(this);
    this.#owner.release();
  }
}

module.exports = { Model };
