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

/** Starts the engine; resolves to { mod: the Emscripten module, memory }. */
export async function loadEngine(options, threads) {
  const mt = threads > 1;
  const factory = mt
    ? (await import('./kiln-core-mt.mjs')).default
    : (await import('./kiln-core.mjs')).default;
  const url = mt
    ? new URL(options.wasmThreadsUrl ?? new URL('./kiln-core-mt.wasm', import.meta.url), globalThis.location?.href)
    : new URL(options.wasmUrl ?? new URL('./kiln-core.wasm', import.meta.url), globalThis.location?.href);
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
    settings.mainScriptUrlOrBlob = new URL('./kiln-core-mt.mjs', import.meta.url).href;
  }
  const ready = factory(settings);
  // The factory's promise never settles when instantiation fails, so a
  // failure is raced against it.
  const [mod, { instance }] = await Promise.all([ready, instantiated]);
  // Export names are minified: find the memory by its type.
  const exported = Object.values(instance.exports).find((e) => e instanceof WebAssembly.Memory);
  return { mod, memory: exported ?? importedMemory };
}
