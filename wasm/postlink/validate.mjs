// Fails (exit 1) unless V8 validates each .wasm given: the relaxed engine
// after its opcodes were rewritten (run under
// node --experimental-wasm-relaxed-simd, which Node 20 needs for it).
import { readFileSync } from 'node:fs';

let bad = 0;
for (const file of process.argv.slice(2)) {
  if (!WebAssembly.validate(readFileSync(file))) {
    console.error(`${file}: not a valid WebAssembly module`);
    bad++;
  }
}
process.exit(bad ? 1 : 0);
