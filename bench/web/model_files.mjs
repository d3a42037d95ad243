// A model's files next to the page, for the bench's modules (bench.mjs on
// the page, profile.mjs on the page or in a worker): no DOM.

export async function fetchBytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

// input_0.pb, input_1.pb ... next to the model, decoded by Kiln.
export async function readInputs(kiln, base) {
  const tensors = [];
  for (let i = 0; ; i++) {
    const r = await fetch(`${base}input_${i}.pb`);
    if (!r.ok) break;
    tensors.push(kiln.decodeTensor(new Uint8Array(await r.arrayBuffer())));
  }
  if (!tensors.length) throw new Error(`${base}input_0.pb is missing`);
  return tensors;
}
