// One build's profiled session for ab.mjs --profile, in a module worker:
// { cmd: 'load', kilnUrl, modelUrl, inputUrls, threads, gemmTile } loads
// the build's engine and the model; 'run' runs it once and answers the
// time; 'profile' answers the session's profile (ms per step and run).
let session = null;
let feeds = null;

async function load({ kilnUrl, modelUrl, inputUrls, threads, gemmTile }) {
  const kiln = await import(kilnUrl);
  await kiln.init({ threads, gemmTile });
  const model = await kiln.Model.load(new Uint8Array(await (await fetch(modelUrl)).arrayBuffer()));
  session = model.createSession({ profile: true });
  feeds = {};
  for (const [n, info] of model.inputs.entries()) {
    const file = n < inputUrls.length ? await fetch(inputUrls[n]) : null;
    if (file?.ok) {
      feeds[info.name] = kiln.decodeTensor(new Uint8Array(await file.arrayBuffer()));
      continue;
    }
    const dims = info.dims.map((d) => (typeof d === 'number' && d > 0 ? d : 1));
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; i++) data[i] = Math.sin(i * 0.37); // any fixed input
    feeds[info.name] = { type: 'float32', dims, data };
  }
  session.runSync(feeds);
  session.runSync(feeds);
  session.resetProfile();
  return { threads: kiln.env.threads };
}

self.onmessage = async ({ data }) => {
  try {
    if (data.cmd === 'load') {
      self.postMessage(await load(data));
    } else if (data.cmd === 'run') {
      const t0 = performance.now();
      session.runSync(feeds);
      self.postMessage({ ms: performance.now() - t0 });
    } else {
      self.postMessage({ steps: session.profile().map((s) => ({ name: s.name, op: s.op, ms: s.totalMs / Math.max(1, s.runs) })) });
    }
  } catch (e) {
    self.postMessage({ error: String(e?.stack ?? e) });
  }
};
