// The machine a benchmark ran on, so figures from different CPUs are
// never mixed up: the host's CPU from /proc/cpuinfo (model name, family /
// model numbers, the vector extensions that matter to the engines), and
// what the browser page itself reports.
import fs from 'node:fs';
import os from 'node:os';

const FLAGS_OF_INTEREST = ['avx2', 'fma', 'avx512f', 'avx512_vnni', 'avx512_bf16', 'avx512_fp16', 'amx_tile', 'asimd', 'sve'];

export function hostCpu() {
  const cpus = os.cpus();
  const info = { model: cpus[0]?.model?.trim() ?? 'unknown', logicalCpus: cpus.length, arch: os.arch() };
  try {
    const text = fs.readFileSync('/proc/cpuinfo', 'utf8');
    const field = (name) => text.match(new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm'))?.[1]?.trim();
    const flags = new Set((field('flags') ?? field('Features') ?? '').split(/\s+/));
    Object.assign(info, {
      vendor: field('vendor_id') ?? field('CPU implementer'),
      family: field('cpu family'),
      modelNumber: field('model') ?? field('CPU part'),
      flags: FLAGS_OF_INTEREST.filter((f) => flags.has(f)),
    });
  } catch {
    // not Linux: os.cpus() is what there is
  }
  return info;
}

export function describeCpu(c, page) {
  const ids = c.family ? ` (${c.vendor ?? ''} family ${c.family} model ${c.modelNumber})` : '';
  const flags = c.flags?.length ? `; ${c.flags.join(' ')}` : '';
  const seen = page ? `; the page sees navigator.hardwareConcurrency = ${page.hardwareConcurrency}` : '';
  return `CPU: ${c.model}${ids}, ${c.logicalCpus} logical CPUs, ${c.arch}${flags}${seen}`;
}
