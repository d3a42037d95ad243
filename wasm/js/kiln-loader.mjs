// Loading the engine: picks the Emscripten glue (single-threaded or
// threads), fetches and compiles the .wasm itself and says why threads are
// unavailable where they are. Also reads model files (fetch, or the file
// system under Node).
import { KilnError } from './kiln-errors.mjs';

export const isNode = typeof process === 'object' && typeof process.versions?.node === 'string' &&
  typeof window === 'undefined';

export function threadsUnavailableReason() {
  if (isNode) return 'the threads build runs in browsers only (in Node, use the kiln Node package)';
  if (typeof SharedArrayBuffer !== 'function' || globalThis.crossOriginIsolated === false)
    return 'SharedArrayBuffer is unavailable: the page is not cross-origin isolated (serve it ' +
      'with "Cross-Origin-Opener-Policy: same-origin" and "Cross-Origin-Embedder-Policy: ' +
      'require-corp")';
  return '';
}

const ioError = (message) => new KilnError(message, 3, 'i/o error');

// The OS's reason as the C library words it ("No such file or directory"):
// Node's message is "ENOENT: no such file or directory, open '/x'".
function osReason(e) {
  const m = /^E[A-Z]+: ([^,]+)/.exec(e.message);
  return m ? m[1][0].toUpperCase() + m[1].slice(1) : e.message;
}

export async function readUrl(url) {
  if (isNode && url.protocol === 'file:') {
    const fs = await import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:fs/promises');
    try {
      return await fs.readFile(url);
    } catch (e) {
      throw ioError(`cannot open '${decodeURIComponent(url.pathname)}': ${osReason(e)}`);
    }
  }
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw ioError(`cannot fetch ${url}: ${e.message}`);
  }
  if (!response.ok) throw ioError(`cannot fetch ${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// Compiles the engine: streaming from a URL when the browser can, else
// from bytes. Returns { instance, module }.
async function instantiate(imports, options, url) {
  if (options.wasmBinary) return WebAssembly.instantiate(options.wasmBinary, imports);
  if (!(isNode && url.protocol === 'file:') && typeof WebAssembly.instantiateStreaming === 'function') {
    try {
      return await WebAssembly.instantiateStreaming(fetch(url), imports);
    } catch (e) {
      // A server that sends the wrong MIME type breaks streaming only.
      if (!(e instanceof TypeError)) throw e;
    }
  }
  return WebAssembly.instantiate(await readUrl(url), imports);
}

// A function returning f32x4.relaxed_madd of three zero vectors: valid
// only where the browser implements Relaxed SIMD with the standard opcodes.
const RELAXED_SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, // type: () -> v128
  0x03, 0x02, 0x01, 0x00, // one function of that type
  0x0a, 0x3d, 0x01, 0x3b, 0x00, // code: one body of 59 bytes, no locals
  0xfd, 0x0c, ...new Array(16).fill(0), // v128.const 0
  0xfd, 0x0c, ...new Array(16).fill(0),
  0xfd, 0x0c, ...new Array(16).fill(0),
  0xfd, 0x85, 0x02, // f32x4.relaxed_madd
  0x0b, // end
]);

/** Whether this engine runs Relaxed SIMD (fused multiply-add). */
export function relaxedSimdSupported() {
  try {
    return WebAssembly.validate(RELAXED_SIMD_PROBE);
  } catch {
    return false;
  }
}

// Which of the two builds of an engine to load: the relaxed-SIMD one
// (kiln-core-relaxed.wasm, a fused multiply-add where SIMD128 has a
// multiply and an add) when the browser validates the probe, else the
// plain SIMD128 one. options.relaxedSimd: undefined (detect), true (the
// relaxed build, an error where it cannot run), false (plain). Given
// wasmBinary bytes, those run whatever they are.
function chooseSimd(options, mt) {
  const supported = relaxedSimdSupported();
  if (options.wasmBinary) return { relaxed: false, supported };
  if (options.relaxedSimd === true && !supported)
    throw new KilnError('init: relaxedSimd is true but this browser does not validate Relaxed SIMD ' +
      '(f32x4.relaxed_madd)', 2, 'invalid argument');
  const relaxed = options.relaxedSimd ?? supported;
  const explicit = mt ? options.wasmThreadsUrl : options.wasmUrl;
  const relaxedUrl = mt ? options.wasmThreadsRelaxedUrl : options.wasmRelaxedUrl;
  // A page that names its own plain .wasm and no relaxed one gets its own.
  return { relaxed: Boolean(relaxed) && !(explicit && !relaxedUrl), supported };
}

/** Starts the engine; resolves to { mod: the Emscripten module, memory,
 * simd: 'relaxed' | 'simd128' }. A relaxed build that fails to load (not
 * deployed next to the plain one) falls back to the plain build. */
export async function loadEngine(options, threads) {
  const mt = threads > 1;
  const { relaxed } = chooseSimd(options, mt);
  if (relaxed) {
    try {
      return await loadBuild(options, threads, true);
    } catch (e) {
      if (options.relaxedSimd === true) throw e;
      console.warn(`kiln: the relaxed-SIMD engine did not load (${e?.message ?? e}); using SIMD128`);
    }
  }
  return loadBuild(options, threads, false);
}

async function loadBuild(options, threads, relaxed) {
  const mt = threads > 1;
  // Literal specifiers, so bundlers see every engine's glue.
  const glue = mt
    ? (relaxed ? await import('./kiln-core-mt-relaxed.mjs') : await import('./kiln-core-mt.mjs'))
    : (relaxed ? await import('./kiln-core-relaxed.mjs') : await import('./kiln-core.mjs'));
  const factory = glue.default;
  const base = mt ? 'kiln-core-mt' : 'kiln-core';
  const given = relaxed
    ? (mt ? options.wasmThreadsRelaxedUrl : options.wasmRelaxedUrl)
    : (mt ? options.wasmThreadsUrl : options.wasmUrl);
  const url = new URL(given ?? new URL(`./${base}${relaxed ? '-relaxed' : ''}.wasm`, import.meta.url),
    globalThis.location?.href);
  let instantiated = null;
  let importedMemory = null;
  const settings = {
    // Emscripten calls this instead of fetching the .wasm itself (its own
    // loader cannot read files under Node's ES modules).
    instantiateWasm(imports, receive) {
      // The threads build imports a shared memory (under minified names).
      importedMemory = Object.values(imports).flatMap((m) => Object.values(m))
        .find((v) => v instanceof WebAssembly.Memory) ?? null;
      instantiated = instantiate(imports, options, url).then((r) => {
        receive(r.instance, r.module);
        return r;
      });
      return {};
    },
    print: (s) => console.log(s),
    printErr: (s) => console.warn(s),
  };
  if (mt) {
    // Web workers for threads - 1 (the caller is the other); each imports
    // the glue script from this URL.
    settings.kilnWorkers = threads - 1;
    settings.mainScriptUrlOrBlob = relaxed
      ? new URL('./kiln-core-mt-relaxed.mjs', import.meta.url).href
      : new URL('./kiln-core-mt.mjs', import.meta.url).href;
  }
  const ready = factory(settings);
  // The factory's promise never settles when instantiation fails, so a
  // failure is raced against it.
  const [mod, { instance }] = await Promise.all([ready, instantiated]);
  // Export names are minified: find the memory by its type.
  const exported = Object.values(instance.exports).find((e) => e instanceof WebAssembly.Memory);
  return { mod, memory: exported ?? importedMemory, simd: relaxed ? 'relaxed' : 'simd128' };
}
