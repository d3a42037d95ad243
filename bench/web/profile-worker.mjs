// A module worker that runs profile.mjs's profileModel for the page
// (bench.mjs profileKiln with { inWorker: true }).
import { profileModel } from './profile.mjs';

self.onmessage = async (e) => {
  try {
    self.postMessage({ result: await profileModel(e.data) });
  } catch (err) {
    self.postMessage({ error: String(err?.stack ?? err) });
  }
};
