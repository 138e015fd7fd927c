import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * The browser tests drive Debian's Chromium. On a fresh Debian machine where the tests run as root,
 * install it from Debian's packages (like poppler-utils for the report tests); elsewhere say what is missing.
 */
export function ensureChromium(log: (line: string) => void): void {
  if (fs.existsSync(CHROMIUM_PATH)) return;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (root && spawnSync('apt-get', ['--version']).error === undefined) {
    log('installing chromium from Debian packages…');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    let install = spawnSync('apt-get', ['install', '-y', '-q', 'chromium'], { env, encoding: 'utf8' });
    if (install.status !== 0) {
      spawnSync('apt-get', ['update', '-q'], { env });
      install = spawnSync('apt-get', ['install', '-y', '-q', 'chromium'], { env, encoding: 'utf8' });
    }
    if (install.status === 0) return;
    log(`could not install chromium: ${install.stderr.trim().split('\n').pop()}`);
  }
  log(`${CHROMIUM_PATH} not found: install chromium (the browser tests will fail without it)`);
}
