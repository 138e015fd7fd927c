import { spawnSync } from 'node:child_process';

/**
 * Prometheus's own parser checks the /metrics output. On a Debian machine where the tests run as
 * root, installs the `prometheus` package (it ships promtool) when promtool is missing.
 */
export function ensurePromtool(log: (line: string) => void): boolean {
  if (spawnSync('promtool', ['--version']).error === undefined) return true;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (root && spawnSync('apt-get', ['--version']).error === undefined) {
    log('installing prometheus (promtool) from Debian packages…');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const args = ['install', '-y', '-q', '--no-install-recommends', 'prometheus'];
    let install = spawnSync('apt-get', args, { env, encoding: 'utf8' });
    if (install.status !== 0) {
      spawnSync('apt-get', ['update', '-q'], { env });
      install = spawnSync('apt-get', args, { env, encoding: 'utf8' });
    }
    if (install.status === 0) return true;
    log(`could not install prometheus: ${install.stderr.trim().split('\n').pop()}`);
  }
  log('promtool not found: install the prometheus package (the metrics format checks fail without it)');
  return false;
}

/**
 * `promtool check metrics` on an exposition: its complaints, parse errors and lint findings, empty
 * when clean. `tolerated` names metrics whose lint findings are not ours to fix (prom-client's
 * default gauges named *_total).
 */
export function promtoolProblems(exposition: string, tolerated: RegExp = /^nodejs_active_\w+_total /): string {
  const check = spawnSync('promtool', ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
  if (check.error) throw check.error;
  if (check.status === 0) return '';
  const problems = `${check.stdout}${check.stderr}`
    .split('\n')
    .filter((line) => line.trim() !== '' && !tolerated.test(line));
  return problems.length ? problems.join('\n') : '';
}

/** The samples of one metric family: labels (as an object) and value of each line. */
export function samples(exposition: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const found: Array<{ labels: Record<string, string>; value: number }> = [];
  for (const line of exposition.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    found.push({ labels, value: Number(match[3]) });
  }
  return found;
}
