// A bar chart of class probabilities in plain SVG: one bar per class,
// the highest one highlighted, its percentage written above it.
const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 400, HEIGHT = 220, AXIS = 24, TOP = 22;

function el(name, attrs, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Draws `probs` (numbers in 0..1, one per class named by `labels`) into
 * the <svg> element `svg`, replacing what was there. */
export function drawBarChart(svg, probs, labels = probs.map((_, i) => String(i))) {
  svg.replaceChildren();
  svg.setAttribute('viewBox', `0 0 ${WIDTH} ${HEIGHT}`);
  svg.setAttribute('role', 'img');
  const best = probs.indexOf(Math.max(...probs));
  const slot = WIDTH / probs.length;
  const plot = HEIGHT - AXIS - TOP;
  svg.setAttribute('aria-label', `most likely ${labels[best]} (${(100 * probs[best]).toFixed(1)} %)`);
  svg.append(el('line', { x1: 0, y1: HEIGHT - AXIS, x2: WIDTH, y2: HEIGHT - AXIS, class: 'axis' }));
  probs.forEach((p, i) => {
    const h = Math.max(1, p * plot);
    const x = i * slot + slot * 0.15;
    const y = HEIGHT - AXIS - h;
    const bar = el('rect', {
      x, y, width: slot * 0.7, height: h,
      class: i === best ? 'bar best' : 'bar',
      'data-label': labels[i], 'data-prob': p.toFixed(6),
    });
    bar.append(el('title', {}, `${labels[i]}: ${(100 * p).toFixed(2)} %`));
    svg.append(bar);
    svg.append(el('text', { x: i * slot + slot / 2, y: HEIGHT - 6, class: 'label' }, labels[i]));
    if (p >= 0.01)
      svg.append(el('text', { x: i * slot + slot / 2, y: y - 5, class: 'value' }, `${Math.round(100 * p)}%`));
  });
}
