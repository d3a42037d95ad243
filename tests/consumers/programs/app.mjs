// The Node consumer (tests/consumers/run_consumer.sh node): a project outside
// the repository with kiln-runtime installed from its tarball; prints
// "FILE CLASS" for every *.pb digit sample in SAMPLES_DIR, in name order.
//   usage: node app.mjs MODEL SAMPLES_DIR
import fs from 'node:fs';
import path from 'node:path';
import { Model, decodeTensor } from 'kiln-runtime';

const [modelPath, dir] = process.argv.slice(2);
const model = await Model.load(modelPath);
const session = model.createSession();
for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.pb')).sort()) {
  const image = decodeTensor(fs.readFileSync(path.join(dir, name)));
  const { logits } = await session.run({ image });
  const values = Array.from(logits.data);
  console.log(name, values.indexOf(Math.max(...values)));
}
