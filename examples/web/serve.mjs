#!/usr/bin/env node
// Serves this example on http://127.0.0.1:8080/examples/web/ (the repository
// root, with the WebAssembly build mounted at /kiln/). Same options as
// wasm/browser/serve.mjs, which does the work:
//
//   node examples/web/serve.mjs [--port N] [--wasm DIR] [--wasm-mt DIR]
import { main } from '../../wasm/browser/serve.mjs';

await main(process.argv.slice(2));
