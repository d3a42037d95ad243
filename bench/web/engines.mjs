// The two engines behind one interface for the side-by-side benchmark:
// Kiln (wasm/js/kiln.mjs, single-threaded engine) and onnxruntime-web
// (its WebAssembly backend, 1 thread, SIMD). Each adapter turns a decoded
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

export async function importOrt() {
  const ort = await import(ORT_URL);
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;          // the only build 1.30 ships; stated for the record
  ort.env.wasm.proxy = false;
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
    run: () => session.run(feeds),
    output: (result) => result[model.outputs[0].name].data,
    dispose: () => model.dispose(),
  };
}

export async function ortSession(ort, bytes, tensors) {
  const session = await ort.InferenceSession.create(bytes, {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
  });
  const feeds = {};
  session.inputNames.forEach((name, i) => {
    const t = tensors[i];
    feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
  });
  return {
    name: 'ort',
    run: () => session.run(feeds),
    output: (result) => result[session.outputNames[0]].data,
    dispose: () => session.release(),
  };
}
