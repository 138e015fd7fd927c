import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { accessSync, constants as fsConstants } from 'node:fs';

/**
 * Spawns a long-running helper (Temporal dev server, embedded Postgres, Chromium) that must not
 * outlive us. On Linux, `setpriv --pdeathsig TERM` (util-linux) execs it with a parent-death signal,
 * which covers our process being SIGKILLed; it then gets its own process group, so Ctrl-C on
 * `npm start` does not stop it before the worker and API that use it (its owner stops it last).
 * Without setpriv it stays in our process group, so Ctrl-C / a group SIGTERM reaches it directly.
 * `deathSignal` KILL is for a helper with nothing to save once we are gone (Chromium).
 */
export function spawnTiedToParent(
  command: string,
  args: string[],
  options: SpawnOptions & { deathSignal?: 'TERM' | 'KILL' } = {},
): ChildProcess {
  const { deathSignal = 'TERM', ...spawnOptions } = options;
  const setpriv = process.platform === 'linux' ? findSetpriv() : null;
  const [cmd, argv] = setpriv ? [setpriv, ['--pdeathsig', deathSignal, '--', command, ...args]] : [command, args];
  return spawn(cmd, argv, { ...spawnOptions, detached: setpriv !== null });
}

function findSetpriv(): string | null {
  for (const candidate of ['/usr/bin/setpriv', '/bin/setpriv']) {
    try {
      accessSync(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      // try the next one
    }
  }
  return null;
}
