import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

/** A program the service or its tests run, and the Debian package that ships it. */
export interface DebianProgram {
  /** How to tell it is installed: an absolute path that must exist, or a command answering `args`. */
  present: { path: string } | { command: string; args: string[] };
  pkg: string;
  /** What goes wrong without it, for the message when it cannot be installed. */
  without: string;
  extraArgs?: string[];
}

function isPresent(program: DebianProgram): boolean {
  const present = program.present;
  if ('path' in present) return fs.existsSync(present.path);
  return spawnSync(present.command, present.args).error === undefined;
}

/**
 * The project's set-up installs what it needs from Debian's packages when it is missing (on a Debian
 * machine, as root); elsewhere it says what to install. Returns whether the program is there.
 */
export function ensureDebianProgram(program: DebianProgram, log: (line: string) => void): boolean {
  if (isPresent(program)) return true;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (root && spawnSync('apt-get', ['--version']).error === undefined) {
    log(`installing ${program.pkg} from Debian packages…`);
    const args = ['install', '-y', '-q', ...(program.extraArgs ?? []), program.pkg];
    let install = aptGet(args);
    if (install.status !== 0) {
      aptGet(['update', '-q']);
      install = aptGet(args);
    }
    if (install.status === 0 && isPresent(program)) return true;
    log(`could not install ${program.pkg}: ${(install.stderr ?? '').trim().split('\n').pop()}`);
  }
  log(`${program.pkg} is not installed: install it (${program.without})`);
  return false;
}

/** apt-get without questions (the environment is otherwise this process's own). */
function aptGet(args: string[]) {
  return spawnSync('env', ['DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args], { encoding: 'utf8' });
}

/** Debian's Chromium, which the browser stage renders pages in. */
export function ensureChromium(chromiumPath: string, log: (line: string) => void): boolean {
  return ensureDebianProgram(
    { present: { path: chromiumPath }, pkg: 'chromium', without: 'every sampled page is reported unrenderable' },
    log,
  );
}
