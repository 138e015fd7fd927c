import { ensureChromium as ensureChromiumAt } from '../../src/setup/debian-package';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** The browser tests and the browser stage drive Debian's Chromium, installed by the set-up when missing. */
export function ensureChromium(log: (line: string) => void): void {
  ensureChromiumAt(CHROMIUM_PATH, log);
}
