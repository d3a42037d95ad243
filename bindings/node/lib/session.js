'use strict';
// Session: runs a model. run() binds the feeds (borrowed, not copied: the
// feeds stay referenced until the run ends), runs on the libuv thread pool so
// the event loop keeps going, and copies each output into a new TypedArray.
// Runs of one session are queued: C allows one run at a time per session.
//
// Tiny runs: a round trip through the thread pool costs tens of
// microseconds, far more than a run of a small model. When the last run with
// the same input shapes took under `inlineBelowUs` of C time (default 20),
// run() calls C on the JS thread instead; the event loop then waits no
// longer than that. A run over the limit sends the next one back to the
// pool. createSession({ inlineBelowUs: 0 }) always uses the pool.

const { native } = require('./native.js');
const { STATUS } = require('./constants_gen.js');
const { kilnError } = require('./errors.js');
const { Owner, collected } = require('./owner.js');
const { typeName, allocate, checkFeed } = require('./tensor.js');

const DEFAULT_INLINE_BELOW_US = 20;

/** Runs a model. Runs of one session happen one after another. */
class Session {
  #owner;
  #model;
  #busy = false;
  #waiting = [];
  #disposed = false;
  #inlineNs;
  #fastShapes = null; // [name, dtype, dims] of each feed of the last run short enough to inline

  // Private: use model.createSession().
  constructor(handle, modelOwner, model, inlineBelowUs = DEFAULT_INLINE_BELOW_US) {
    this.#owner = new Owner(handle, native.kiln_session_destroy, modelOwner);
    this.#model = model;
    this.#inlineNs = inlineBelowUs * 1000;
    collected.register(this, this.#owner, this);
  }

  get inputs() { return this.#model.inputs; }
  get outputs() { return this.#model.outputs; }

  // feeds: {inputName: {type, dims, data}}. Resolves to {outputName: {type,
  // dims, data}} with fresh arrays the caller owns.
  async run(feeds) {
    if (this.#busy) await new Promise((resolve) => this.#waiting.push(resolve));
    this.#busy = true;
    try {
      const bound = this.#bind(feeds, this.#inlineNs > 0);
      const handle = this.#owner.handle;
      if (this.#fastShapes !== null && sameShapes(bound.shapes, this.#fastShapes)) {
        const start = process.hrtime.bigint();
        native.kiln_session_run(handle);
        if (Number(process.hrtime.bigint() - start) > this.#inlineNs) this.#fastShapes = null;
      } else {
        await native.kiln_session_run_async(handle);
        keepAlive(bound); // the run borrowed the feeds' memory until here
        const fast = this.#inlineNs > 0 && native._last_async_ns() <= this.#inlineNs;
        this.#fastShapes = fast ? bound.shapes : null;
      }
      return this.#results(handle);
    } finally {
      const next = this.#waiting.shift();
      if (next) {
        next(); // hand the session over; #busy stays true
      } else {
        this.#busy = false;
        if (this.#disposed) this.#owner.release();
      }
    }
  }

  // run() on the calling thread: blocks the event loop until it is done.
  runSync(feeds) {
    if (this.#busy) throw kilnError(STATUS.STATE, 'Session.runSync: a run is in flight');
    this.#bind(feeds, false);
    native.kiln_session_run(this.#owner.handle);
    return this.#results(this.#owner.handle);
  }

  // Binds every feed; returns the arrays C now borrows and, when asked,
  // the feeds' shapes.
  #bind(feeds, withShapes) {
    if (this.#disposed) throw kilnError(STATUS.STATE, 'Session.run: the session was disposed');
    if (feeds === null || typeof feeds !== 'object') {
      throw kilnError(STATUS.INVALID_ARGUMENT, 'Session.run: feeds must be an object of tensors');
    }
    const handle = this.#owner.handle;
    checkFeedNames(feeds, this.#model.inputs);
    const arrays = [];
    const shapes = withShapes ? [] : null;
    for (const name of Object.keys(feeds)) {
      const { dtype, dims, data } = checkFeed(name, feeds[name]);
      native.kiln_session_set_input(handle, name, dtype, dims, data, 0);
      arrays.push(data); // (a converted array exists only here)
      if (shapes !== null) shapes.push(name, dtype, dims.slice());
    }
    return { arrays, shapes };
  }

  #results(handle) {
    const results = {};
    const outputs = this.#model.outputs;
    for (let i = 0; i < outputs.length; i++) {
      const { dtype, dims } = native.kiln_session_output_info(handle, i);
      const data = allocate(dtype, dims);
      native.kiln_session_output_copy(handle, i, data);
      results[outputs[i].name] = { type: typeName(dtype), dims, data };
    }
    return results;
  }

  // The plan cache (createSession's planCache): plans kept now, plans built
  // so far, and the bytes of the arena the kept plans share.
  cacheInfo() {
    const info = native.kiln_session_cache_info(this.#idle('cacheInfo'));
    return { plansKept: info.plans_kept, plansBuilt: info.plans_built, arenaBytes: info.arena_bytes };
  }

  // Gives back every kept plan and their arena; the next run plans again.
  releaseMemory() {
    native.kiln_session_release_memory(this.#idle('releaseMemory'));
    this.#fastShapes = null; // the next run plans: not on the JS thread
  }

  // The handle, for a call that must not overlap a run.
  #idle(what) {
    if (this.#disposed) throw kilnError(STATUS.STATE, `Session.${what}: the session was disposed`);
    if (this.#busy) throw kilnError(STATUS.STATE, `Session.${what}: a run is in flight`);
    return this.#owner.handle;
  }

  // A run in flight finishes first; runs queued behind it then reject.
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    collected.unregister(this);
    if (!this.#busy) this.#owner.release();
  }
}

// Whether two [name, dtype, dims, ...] lists describe the same feeds.
// A misspelled key is named as such (before any input is reported missing,
// since the misspelling is the cause); then every input must be fed: a
// binding left from an earlier run would point at memory that may be gone.
// The texts are the C library's, so every binding reads the same.
function checkFeedNames(feeds, inputs) {
  const quoted = inputs.map((input) => `'${input.name}'`).join(', ');
  for (const name of Object.keys(feeds)) {
    if (!inputs.some((input) => input.name === name)) {
      throw kilnError(STATUS.NOT_FOUND, `Session.run: unknown input '${name}'; ` +
        `the model's inputs are: ${quoted}`);
    }
  }
  for (const input of inputs) {
    if (!Object.prototype.hasOwnProperty.call(feeds, input.name)) {
      const shape = input.dims === null ? 'unknown'
        : input.dims.length === 0 ? 'scalar' : input.dims.map((d) => (d === null ? '?' : d)).join('x');
      throw kilnError(STATUS.INVALID_ARGUMENT, `Session.run: input '${input.name}' ` +
        `(${input.type}, shape ${shape}) is missing from the feeds`);
    }
  }
}

function sameShapes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 3) {
    if (a[i] !== b[i] || a[i + 1] !== b[i + 1]) return false;
    const x = a[i + 2];
    const y = b[i + 2];
    if (x.length !== y.length) return false;
    for (let k = 0; k < x.length; k++) if (x[k] !== y[k]) return false;
  }
  return true;
}

// Referenced after the await so the feeds outlive the native run.
function keepAlive(value) {
  return value;
}

module.exports = { Session };
