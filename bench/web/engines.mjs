// The two engines behind one interface for the side-by-side benchmark:
// Kiln (wasm/js/kiln.mjs, single-threaded engine) and onnxruntime-web
// (its WebAssembly backend, SIMD; 1 thread unless the page is cross-origin
// isolated and more are asked for). Each adapter turns a decoded
// TensorProto { type, dims, data } into its own tensor type once, so the
// timed part is run() alone, as an application would call it.
const KILN_URL = new URL('../../kiln/kiln.mjs', import.meta.url).href;
const ORT_URL = new URL('../../ort/ort.wasm.min.mjs', import.meta.url).href;

// initOptions: kiln.init()'s, e.g. { gemmTile: '4x8' } to force a tile.
export async function importKiln(initOptions = {}) {
  const kiln = await import(KILN_URL);
  await kiln.init(initOptions);
  return kiln;
}

// threads > 1 needs a cross-origin isolated page (run.mjs --threads).
export async function importOrt(threads = 1) {
  const ort = await import(ORT_URL);
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.simd = true;          // the only build 1.30 ships; stated for the record
  // With threads both engines run in a worker (Kiln: createWorkerSession;
  // ORT: its proxy worker): on a page's own thread the engines' waits
  // for their thread pools spin, since browsers forbid blocking there.
  ort.env.wasm.proxy = threads > 1;
  ort.env.wasm.wasmPaths = new URL('../../ort/', import.meta.url).href;
  return ort;
}

/** Kiln: { name, inputs, run(), output(result), dispose() } for model bytes. */
export async function kilnSession(kiln, bytes, tensors) {
  const model = await kiln.Model.load(bytes);
  const session = model.createSession();
  const feeds = {};
  model.inputs.forEach((info, i) => { feeds[info.name] = tensors[i]; });
  return {
    name: 'kiln',
    env: kiln.env,
    run: () => session.run(feeds),
    output: (result) => result[model.outputs[0].name].data,
    dispose: () => model.dispose(),
  };
}

/** Kiln in a worker on `threads` threads (the threads engine). */
export async function kilnWorkerSession(kiln, bytes, tensors, initOptions) {
  const remote = await kiln.createWorkerSession(bytes, { init: initOptions });
  const feeds = {};
  remote.inputs.forEach((info, i) => { feeds[info.name] = tensors[i]; });
  return {
    name: 'kiln',
    env: remote.env,
    run: () => remote.run(feeds),
    output: (result) => result[remote.outputs[0].name].data,
    dispose: () => remote.dispose(),
  };
}

export async function ortSession(ort, bytes, tensors, threads = 1) {
  const session = await ort.InferenceSession.create(bytes, {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
  });
  const makeFeeds = () => {
    const feeds = {};
    session.inputNames.forEach((name, i) => {
      const t = tensors[i];
      feeds[name] = new ort.Tensor(t.type, ort.env.wasm.proxy ? t.data.slice() : t.data, t.dims);
    });
    return feeds;
  };
  // ORT's proxy worker takes (detaches) the input buffers on every run, so
  // with threads each run gets fresh copies (a few hundred KB: noise next
  // to a model run).
  const feeds = makeFeeds();
  return {
    name: 'ort',
    run: () => session.run(ort.env.wasm.proxy ? makeFeeds() : feeds),
    output: (result) => result[session.outputNames[0]].data,
    dispose: () => session.release(),
  };
}
