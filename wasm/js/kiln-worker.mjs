// The worker side of createWorkerSession (kiln-worker-client.mjs): loads
// the engine and one model in a Web Worker (or a Node worker thread) and
// answers run requests, so inference never blocks the page.
//
// Messages in:  { id, op: 'load', source, init, model, session }
//               { id, op: 'run', feeds }   { id, op: 'dispose' }
// Messages out: { id, ok: true, value } or { id, ok: false, error }
import * as kiln from './kiln.mjs';

let model = null;
let session = null;

// Where messages come from: the worker global in browsers, parentPort in
// Node worker threads.
const inBrowser = typeof self === 'object' && typeof self.postMessage === 'function';
const port = inBrowser
  ? self
  : (await import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:worker_threads')).parentPort;

if (!port) throw new Error('kiln-worker.mjs runs inside a worker: use createWorkerSession() from kiln.mjs');

function reply(msg, transfer) {
  port.postMessage(msg, transfer);
}

const handlers = {
  async load({ source, init, model: modelOptions, session: sessionOptions }) {
    await kiln.init(init ?? {});
    model = await kiln.Model.load(source, modelOptions ?? {});
    session = model.createSession(sessionOptions ?? {});
    return { inputs: model.inputs, outputs: model.outputs, env: { ...kiln.env } };
  },
  async run({ feeds }) {
    if (!session) throw new kiln.KilnError('the worker has no model loaded', 9, 'wrong call order');
    return session.run(feeds);
  },
  async dispose() {
    model?.dispose();
    model = session = null;
    return null;
  },
};

async function onMessage(msg) {
  const handler = handlers[msg?.op];
  try {
    if (!handler) throw new Error(`kiln worker: unknown request '${msg?.op}'`);
    const value = await handler(msg);
    // Output arrays are fresh copies: hand their buffers over, no copy.
    const transfer = msg.op === 'run' ? Object.values(value).map((t) => t.data.buffer) : [];
    reply({ id: msg.id, ok: true, value }, transfer);
  } catch (e) {
    reply({ id: msg.id, ok: false,
      error: { message: e?.message ?? String(e), code: e?.code, status: e?.status, name: e?.name } });
  }
}

if (inBrowser) self.onmessage = (ev) => onMessage(ev.data);
else port.on('message', onMessage);
