import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnTiedToParent } from '../supervision/tied-child';

/** Debian's Chromium, installed by the project's setup; never a browser download. */
export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/** Headless, no first-run or background traffic of its own: every request it makes is the page's. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * The proxy only sees what Chromium sends through it: these close the paths around it. WebRTC
 * sends STUN and TURN over UDP, and announces host candidates by multicast DNS, straight from the
 * browser; with this policy it only uses TCP through the proxy (TURN over TCP, CONNECT). QUIC
 * (HTTP/3, WebTransport) is UDP as well. Names are resolved by the proxy, after the policy's
 * check, never by Chromium itself: no DNS query leaves it (the proxy's own address stays reachable).
 */
export const PROXY_ONLY_FLAGS = [
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--disable-quic',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
];

const START_TIMEOUT_MS = 30_000;
const PROFILE_PREFIX = 'audit-chromium-';

/**
 * One headless Chromium, driven over the DevTools protocol on a loopback port it picks itself.
 * Every request goes through `proxyUrl` (the outbound policy), loopback too: Chromium bypasses
 * proxies for localhost unless told `<-loopback>`.
 */
export class ChromiumProcess {
  private constructor(
    private readonly child: ChildProcess,
    private readonly profileDir: string,
    /** The DevTools port (Lighthouse connects to it). */
    readonly port: number,
  ) {
    // Chromium runs in its own process group: it must not outlive this process, however that ends
    // (a SIGKILL, where no handler runs, is covered by its parent-death signal).
    const killOnExit = () => {
      killGroup(child);
      removeProfile(profileDir);
    };
    process.once('exit', killOnExit);
    child.once('exit', () => {
      process.off('exit', killOnExit);
      removeProfile(profileDir);
    });
  }

  static async launch(opts: { executablePath: string; proxyUrl: string }): Promise<ChromiumProcess> {
    removeOrphanedProfiles();
    const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), `${PROFILE_PREFIX}${process.pid}-`));
    const args = [
      ...CHROMIUM_FLAGS,
      `--proxy-server=${opts.proxyUrl}`,
      '--proxy-bypass-list=<-loopback>',
      ...PROXY_ONLY_FLAGS,
      '--remote-debugging-address=127.0.0.1',
      '--remote-debugging-port=0',
      `--user-data-dir=${profileDir}`,
      'about:blank',
    ];
    // Its own process group, so that stopping it also stops its renderer and GPU processes; killed
    // when this process dies, however (its helpers end with it: they lose their channel to it).
    const child = spawnTiedToParent(opts.executablePath, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      deathSignal: 'KILL',
    });
    try {
      const port = await devToolsPort(child);
      return new ChromiumProcess(child, profileDir, port);
    } catch (err) {
      killGroup(child);
      removeProfile(profileDir);
      throw err;
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** False once the browser has exited (crashed or was killed): the pool then starts another. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  async close(): Promise<void> {
    if (!this.running) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    killGroup(this.child, 'SIGTERM');
    const timer = setTimeout(() => killGroup(this.child, 'SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
    removeProfile(this.profileDir);
  }
}

/** Reads the port from the "DevTools listening on ws://127.0.0.1:PORT/…" line Chromium prints. */
function devToolsPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    const fail = (reason: string) => {
      clearTimeout(timer);
      reject(new Error(`Chromium did not start: ${reason}${output ? ` (${output.trim().slice(-300)})` : ''}`));
    };
    const timer = setTimeout(() => fail(`no DevTools port after ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    child.once('error', (err) => fail(err.message));
    child.once('exit', (code, signal) => fail(`exited with ${signal ?? code}`));
    child.stderr!.setEncoding('utf8');
    const onData = (chunk: string) => {
      output = (output + chunk).slice(-4000);
      const match = /DevTools listening on ws:\/\/[^\s/]+:(\d+)\//.exec(output);
      if (!match) return;
      clearTimeout(timer);
      // Keep draining stderr so Chromium never blocks on a full pipe.
      child.stderr!.off('data', onData);
      child.stderr!.resume();
      resolve(Number(match[1]));
    };
    child.stderr!.on('data', onData);
  });
}

/**
 * Profiles left by a worker that was SIGKILLed (no handler of it ran): its Chromium died with it, its
 * profile, named after its pid, did not. A profile of a live process is left alone.
 */
function removeOrphanedProfiles(): void {
  for (const name of fs.readdirSync(os.tmpdir())) {
    const owner = Number(new RegExp(`^${PROFILE_PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (!owner || owner === process.pid || processExists(owner)) continue;
    removeProfile(path.join(os.tmpdir(), name));
  }
}

/** A helper of the killed browser may still be writing into it: retried, and at worst left for the next sweep. */
function removeProfile(dir: string): void {
  try {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // removeOrphanedProfiles takes it once this process is gone
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}
