import { spawnSync } from 'node:child_process';

/**
 * The report tests render pages with poppler's pdftoppm. On a fresh Debian machine where the tests
 * run as root, install poppler-utils from Debian's packages; elsewhere say what is missing.
 */
export function ensurePdftoppm(log: (line: string) => void): void {
  if (spawnSync('pdftoppm', ['-v']).error === undefined) return;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (root && spawnSync('apt-get', ['--version']).error === undefined) {
    log('installing poppler-utils (pdftoppm) from Debian packages…');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    let install = spawnSync('apt-get', ['install', '-y', '-q', 'poppler-utils'], { env, encoding: 'utf8' });
    if (install.status !== 0) {
      spawnSync('apt-get', ['update', '-q'], { env });
      install = spawnSync('apt-get', ['install', '-y', '-q', 'poppler-utils'], { env, encoding: 'utf8' });
    }
    if (install.status === 0) return;
    log(`could not install poppler-utils: ${install.stderr.trim().split('\n').pop()}`);
  }
  log('pdftoppm not found: install poppler-utils (the PNG rendering test will fail without it)');
}
