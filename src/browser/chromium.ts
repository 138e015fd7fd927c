import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

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

const START_TIMEOUT_MS = 30_000;

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
    // Chromium runs in its own process group: it must not outlive this process, however that ends.
    const killOnExit = () => killGroup(child);
    process.once('exit', killOnExit);
    child.once('exit', () => {
      process.off('exit', killOnExit);
      fs.rmSync(profileDir, { recursive: true, force: true });
    });
  }

  static async launch(opts: { executablePath: string; proxyUrl: string }): Promise<ChromiumProcess> {
    const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-chromium-'));
    const args = [
      ...CHROMIUM_FLAGS,
      `--proxy-server=${opts.proxyUrl}`,
      '--proxy-bypass-list=<-loopback>',
      '--remote-debugging-address=127.0.0.1',
      '--remote-debugging-port=0',
      `--user-data-dir=${profileDir}`,
      'about:blank',
    ];
    // Its own process group, so that stopping it also stops its renderer and GPU processes.
    const child = spawn(opts.executablePath, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    try {
      const port = await devToolsPort(child);
      return new ChromiumProcess(child, profileDir, port);
    } catch (err) {
      killGroup(child);
      fs.rmSync(profileDir, { recursive: true, force: true });
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
    fs.rmSync(this.profileDir, { recursive: true, force: true });
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

function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}
