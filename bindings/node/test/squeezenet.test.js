'use strict';
// A real torchvision CNN (squeezenet1_1, exported by tools/export_models.py)
// through Node equals kiln run bit for bit.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { kiln, locateModel, cliRun, firstBitDifference } = require('./helpers.js');

const found = locateModel('squeezenet1_1');

test('squeezenet1_1: Node output equals kiln run bit for bit', { skip: found.skip }, async () => {
  const model = await kiln.Model.load(found.model);
  assert.equal(model.inputs.length, 1);
  assert.deepEqual(model.inputs[0].dims, [1, 3, 224, 224]);
  const input = kiln.decodeTensor(fs.readFileSync(found.inputs[0]));
  const session = model.createSession();
  const out = await session.run({ [model.inputs[0].name]: input });
  const got = out[model.outputs[0].name];
  assert.deepEqual(got.dims, [1, 1000]);
  const [reference] = cliRun(found.model, [found.inputs[0]]);
  assert.equal(firstBitDifference(got.data, reference.data), -1, 'Node and C outputs differ');
  let sum = 0;
  for (const v of got.data) sum += Math.abs(v);
  assert.ok(sum > 0 && Number.isFinite(sum), 'the output is not trivial');
  console.log(`squeezenet1_1: 1000 logits bit-identical to kiln run (sum |x| = ${sum.toFixed(3)})`);
  // A second run on the same session gives the same bits.
  const again = await session.run({ [model.inputs[0].name]: input });
  assert.equal(firstBitDifference(again[model.outputs[0].name].data, got.data), -1);
  model.dispose();
});
