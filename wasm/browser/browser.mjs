// Starting Debian's Chromium for the browser tests and bench/web: always
// /usr/bin/chromium (or $KILN_CHROMIUM), headless, never a downloaded one.
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.KILN_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Launches headless Chromium; extraArgs are appended to the flags above. */
export function launchChromium(extraArgs = []) {
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...extraArgs] });
}
