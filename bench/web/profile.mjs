// Kiln alone with { profile: true }: time per op type and per step. No DOM,
// so that it runs on a page's own thread or in a worker (profile-worker.mjs):
// with threads, the page's own thread may not block, so the engine's waits
// for its pool spin there and the profile would not be the one a worker
// session (how an application runs threads) sees.
import { importKiln } from './engines.mjs';
import { fetchBytes, readInputs } from './model_files.mjs';

const now = () => performance.now();

/** `runs` runs after a warm-up; ms per run for the whole run, per op type
 * and for the `top` slowest steps (top 0: every step, in plan order). */
export async function profileModel({ model, runs = 10, top = 12, kilnInit = {} }) {
  const kiln = await importKiln(kilnInit);
  const base = new URL(`../../models/${model}/`, import.meta.url).href;
  const m = await kiln.Model.load(await fetchBytes(`${base}model.onnx`));
  const tensors = await readInputs(kiln, base);
  const session = m.createSession({ profile: true });
  const feeds = {};
  m.inputs.forEach((info, i) => { feeds[info.name] = tensors[i]; });
  session.runSync(feeds);
  session.runSync(feeds);
  session.resetProfile();
  const t0 = now();
  for (let i = 0; i < runs; i++) session.runSync(feeds);
  const wallMs = (now() - t0) / runs;
  const steps = session.profile().map((s) => ({ name: s.name, op: s.op, ms: s.totalMs / Math.max(1, s.runs) }));
  m.dispose();
  const byOp = {};
  for (const s of steps) byOp[s.op] = (byOp[s.op] ?? 0) + s.ms;
  return {
    model, wallMs, threads: kiln.env.threads, fallbackReason: kiln.env.fallbackReason,
    byOp: Object.entries(byOp).sort((a, b) => b[1] - a[1]),
    slowest: top > 0 ? [...steps].sort((a, b) => b.ms - a.ms).slice(0, top) : steps,
  };
}
