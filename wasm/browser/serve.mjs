#!/usr/bin/env node
// A small static file server for Kiln's web pages (examples/web, bench/web)
// and the browser tests, with no dependencies. It binds to 127.0.0.1 only.
//
//   node wasm/browser/serve.mjs [--port N] [--wasm DIR] [--wasm-mt DIR] [--models DIR]
//
// URL layout (pages use relative URLs, so any prefix works):
//   /...          the source tree (examples/web/, bench/web/, examples/digits/ ...)
//   /kiln/...     the WebAssembly module: DIR of --wasm (default build-wasm),
//                 then --wasm-mt (default build-wasm-mt) for the threads engine
//   /ort/...      onnxruntime-web's dist/ (wasm/browser/node_modules), for bench/web
//   /models/...   --models DIR (exported models: NAME/model.onnx, NAME/input_0.pb)
//   /coi/...      any of the above, sent with Cross-Origin-Opener-Policy and
//                 Cross-Origin-Embedder-Policy, so the page is cross-origin
//                 isolated and may use SharedArrayBuffer (the threads engine)
//
// Imported, startServer(options) returns { url, close() } (the tests do this).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const sourceDir = path.resolve(here, '../..');

// WebAssembly.instantiateStreaming requires application/wasm exactly.
const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.md': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.onnx': 'application/octet-stream',
  '.pb': 'application/octet-stream',
};

const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

// The file a URL path names inside one of roots (first one holding it
// wins), or null. Paths that climb out of a root are refused.
function resolveIn(roots, rel) {
  for (const root of roots) {
    if (!root) continue;
    const full = path.resolve(root, '.' + path.posix.normalize('/' + rel));
    if (full !== root && !full.startsWith(root + path.sep)) continue;
    let stat;
    try {
      stat = fs.statSync(full);
    } catch {
      continue;
    }
    if (stat.isDirectory()) {
      const index = path.join(full, 'index.html');
      if (fs.existsSync(index)) return { file: index, dir: true };
      continue;
    }
    if (stat.isFile()) return { file: full, size: stat.size };
  }
  return null;
}

/** Starts the server. options: { port (0 = any free one), wasmDir,
 * wasmMtDir, modelsDir, quiet }. Resolves to { url, port, close() }. */
export function startServer(options = {}) {
  const abs = (p) => (p ? path.resolve(p) : null);
  const mounts = [
    ['/kiln/', [abs(options.wasmDir ?? path.join(sourceDir, 'build-wasm')),
      abs(options.wasmMtDir ?? path.join(sourceDir, 'build-wasm-mt'))]],
    ['/ort/', [path.join(here, 'node_modules/onnxruntime-web/dist')]],
    ['/models/', [abs(options.modelsDir)]],
    ['/', [sourceDir]],
  ];
  const log = options.quiet ? () => {} : (...a) => console.log(...a);

  const server = http.createServer((req, res) => {
    let urlPath;
    try {
      urlPath = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    } catch {
      res.writeHead(400).end('bad URL\n');
      return;
    }
    const headers = { 'Cache-Control': 'no-cache' };
    if (urlPath === '/coi' || urlPath.startsWith('/coi/')) {
      Object.assign(headers, ISOLATION_HEADERS);
      urlPath = urlPath.slice(4) || '/';
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...headers, Allow: 'GET, HEAD' }).end();
      return;
    }
    // Hidden files and folders (.git, .env) are never served.
    if (/\/\./.test(urlPath)) {
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    const [prefix, roots] = mounts.find(([p]) => urlPath.startsWith(p));
    const found = resolveIn(roots, urlPath.slice(prefix.length));
    if (!found) {
      log(`404 ${req.url}`);
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' }).end(`not found: ${urlPath}\n`);
      return;
    }
    // A folder without its trailing slash: redirect so relative URLs work.
    if (found.dir && !urlPath.endsWith('/')) {
      res.writeHead(301, { ...headers, Location: req.url.replace(/^([^?]*)/, '$1/') }).end();
      return;
    }
    const size = found.size ?? fs.statSync(found.file).size;
    res.writeHead(200, {
      ...headers,
      'Content-Type': MIME[path.extname(found.file).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': size,
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    fs.createReadStream(found.file).on('error', () => res.destroy()).pipe(res);
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, '127.0.0.1', () => {
      const { port } = server.address();
      const url = `http://127.0.0.1:${port}/`;
      resolve({
        url,
        port,
        close: () => new Promise((done) => {
          server.closeAllConnections();
          server.close(() => done());
        }),
      });
    });
  });
}

function parseArgs(argv) {
  const opts = {};
  const names = { '--port': 'port', '--wasm': 'wasmDir', '--wasm-mt': 'wasmMtDir', '--models': 'modelsDir' };
  for (let i = 0; i < argv.length; i++) {
    const key = names[argv[i]];
    if (!key || i + 1 >= argv.length) {
      console.error('usage: node wasm/browser/serve.mjs [--port N] [--wasm DIR] [--wasm-mt DIR] [--models DIR]');
      process.exit(2);
    }
    opts[key] = key === 'port' ? Number(argv[++i]) : argv[++i];
  }
  return opts;
}

/** The command line: parses argv (without node and the script), starts
 * the server and prints the pages' URLs. */
export async function main(argv) {
  const opts = parseArgs(argv);
  const wasm = path.resolve(opts.wasmDir ?? path.join(sourceDir, 'build-wasm'));
  if (!fs.existsSync(path.join(wasm, 'kiln.mjs')))
    console.warn(`warning: ${wasm}/kiln.mjs is missing; build it with wasm/build.sh (or pass --wasm DIR)`);
  try {
    const { url } = await startServer(opts);
    console.log(`Serving ${sourceDir} on ${url}`);
    console.log(`  digits example:               ${url}examples/web/`);
    console.log(`  same, cross-origin isolated:  ${url}coi/examples/web/`);
    console.log(`  benchmark (with --models):    ${url}coi/bench/web/`);
    console.log('Press Ctrl+C to stop.');
  } catch (e) {
    console.error(`serve: cannot listen: ${e.message}`);
    process.exit(1);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  await main(process.argv.slice(2));
