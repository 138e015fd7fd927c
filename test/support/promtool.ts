import { ensureDebianProgram } from '../../src/setup/debian-package';
import { spawnSync } from 'node:child_process';

/** Prometheus's own parser checks the /metrics output: promtool, from Debian's prometheus package. */
export function ensurePromtool(log: (line: string) => void): boolean {
  return ensureDebianProgram(
    {
      present: { command: 'promtool', args: ['--version'] },
      pkg: 'prometheus',
      extraArgs: ['--no-install-recommends'],
      without: 'the metrics format checks fail without it',
    },
    log,
  );
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
