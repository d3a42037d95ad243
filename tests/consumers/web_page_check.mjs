// web_page_check.mjs PROJECT_DIR SAMPLES_DIR: the browser half of
// consumer_web. Serves PROJECT_DIR (the page and its node_modules/kiln-web)
// on 127.0.0.1 with SAMPLES_DIR under /samples/, opens index.html in Debian's
// headless Chromium (wasm/browser/browser.mjs: no sandbox, no GPU, no
// background networking) and prints the page's "FILE CLASS" lines.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { launchChromium } from '../../wasm/browser/browser.mjs';

const [projectDir, samplesDir] = process.argv.slice(2).map((p) => path.resolve(p));
// WebAssembly.instantiateStreaming requires application/wasm exactly.
const MIME = { '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript', '.js': 'text/javascript',
  '.wasm': 'application/wasm', '.onnx': 'application/octet-stream', '.pb': 'application/octet-stream' };

/** The file a URL path names under root, or null when it would leave root. */
function fileUnder(root, urlPath) {
  const file = path.join(root, decodeURIComponent(urlPath));
  return file === root || file.startsWith(root + path.sep) ? file : null;
}

const server = http.createServer((req, res) => {
  const urlPath = new URL(req.url, 'http://127.0.0.1').pathname;
  const file = urlPath.startsWith('/samples/')
    ? fileUnder(samplesDir, urlPath.slice('/samples'.length))
    : fileUnder(projectDir, urlPath === '/' ? '/index.html' : urlPath);
  if (!file || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(404).end('not found');
    return;
  }
  res.writeHead(200, { 'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream' });
  fs.createReadStream(file).pipe(res);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/index.html`;

const browser = await launchChromium();
let status = 0;
try {
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  await page.goto(url);
  await page.waitForFunction(() => window.kilnReady === true, null, { timeout: 60000 })
    .catch((error) => { throw new Error(`${error.message}\n${problems.join('\n')}`); });
  const names = fs.readdirSync(samplesDir).filter((name) => name.endsWith('.pb')).sort();
  const lines = await page.evaluate((sampleNames) => window.classify(sampleNames), names);
  console.log(lines.join('\n'));
} catch (error) {
  console.error(`web_page_check: ${error.message}`);
  status = 1;
} finally {
  await browser.close();
  server.close();
}
process.exit(status);
