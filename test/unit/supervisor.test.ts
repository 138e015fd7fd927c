import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { RestartBackoff } from '../../src/supervision/restart-backoff';
import { supervise, type Incarnation } from '../../src/supervision/supervisor';

/** A real child process that serves (prints "ready") after `readyAfterMs`, then exits with `code` after `exitAfterMs` (never if null). */
function nodeProcess(opts: { readyAfterMs?: number; exitAfterMs: number | null; code?: number }): Incarnation {
  const script = `setTimeout(() => console.log('ready'), ${opts.readyAfterMs ?? 0}); ${opts.exitAfterMs === null ? 'setInterval(() => {}, 1000)' : `setTimeout(() => process.exit(${opts.code ?? 1}), ${opts.exitAfterMs})`}`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(`exited (${signal ?? code})`)),
  );
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    void exited.then((ending) => reject(new Error(`${ending} before it was ready`)));
  });
  ready.catch(() => undefined);
  return {
    pid: child.pid,
    ready,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

const until = async (condition: () => boolean, what: string) => {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('restart back-off', () => {
  it('doubles from the initial delay up to the cap, and starts over after a stable run', () => {
    const backoff = new RestartBackoff({ initialMs: 1000, maxMs: 30_000, stableMs: 60_000 });
    assert.deepEqual(
      [0, 0, 0, 0, 0, 0, 0].map(() => backoff.next(500)),
      [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000],
    );
    assert.equal(backoff.next(59_999), 30_000, 'under a minute of uptime is still a crash loop');
    assert.equal(backoff.next(60_000), 1000, 'a minute of uptime resets it');
    assert.equal(backoff.next(10), 2000);
  });

  it('never overflows, however long the crash loop', () => {
    const backoff = new RestartBackoff({ initialMs: 1000, maxMs: 30_000, stableMs: 60_000 });
    for (let i = 0; i < 5000; i++) backoff.next(0);
    assert.equal(backoff.next(0), 30_000);
  });
});

describe('supervise (real child processes)', function () {
  this.timeout(30_000);
  const backoff = { initialMs: 40, maxMs: 160, stableMs: 60_000 };

  it('restarts a crash-looping process with growing, capped delays and never gives up', async () => {
    const log: string[] = [];
    const supervised = supervise({
      name: 'crasher',
      start: () => nodeProcess({ exitAfterMs: 150, code: 3 }),
      log: (m) => log.push(m),
      backoff,
    });
    try {
      const restarts = () => log.filter((line) => line.includes('restarting in'));
      await until(() => restarts().length >= 5, 'five restarts');
      assert.deepEqual(
        restarts()
          .slice(0, 5)
          .map((line) => /restarting in (.*)$/.exec(line)?.[1]),
        ['40 ms', '80 ms', '160 ms', '160 ms', '160 ms'],
      );
      assert.match(log[0], /^crasher exited \(3\); restarting in 40 ms$/);
      assert.equal(log[1], 'crasher is back');
      assert.ok(['up', 'restarting'].includes(supervised.state()));
    } finally {
      await supervised.stop();
    }
    assert.equal(supervised.state(), 'stopped');
    const after = log.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(log.length, after, 'nothing restarted after stop()');
  });

  it('reports starting, up and restarting, and ready() settles when a restarted process serves again', async () => {
    const log: string[] = [];
    let starts = 0;
    const supervised = supervise({
      name: 'server',
      // The first incarnation serves until it is killed; later ones need 100 ms to get ready.
      start: () => nodeProcess({ readyAfterMs: starts++ === 0 ? 0 : 100, exitAfterMs: null }),
      log: (m) => log.push(m),
      backoff,
    });
    try {
      assert.equal(supervised.state(), 'starting');
      await supervised.ready();
      assert.equal(supervised.state(), 'up');
      const firstPid = supervised.pid()!;
      process.kill(firstPid, 'SIGKILL');
      await until(() => supervised.state() === 'restarting', 'the crash to be seen');
      await supervised.ready();
      assert.equal(supervised.state(), 'up');
      assert.notEqual(supervised.pid(), firstPid);
      assert.deepEqual(log, ['server exited (SIGKILL); restarting in 40 ms', 'server is back']);
    } finally {
      await supervised.stop();
    }
  });

  it('retries a start that throws like a crash', async () => {
    const log: string[] = [];
    let attempts = 0;
    const supervised = supervise({
      name: 'flaky',
      start: () => {
        if (++attempts < 3) throw new Error('port in use');
        return nodeProcess({ exitAfterMs: null });
      },
      log: (m) => log.push(m),
      backoff,
    });
    try {
      await supervised.ready();
      assert.equal(attempts, 3);
      assert.match(log[0], /^flaky failed to start: port in use; restarting in/);
    } finally {
      await supervised.stop();
    }
  });

  it('stops restarting once the shutdown signal is aborted, and stop() still ends the process', async () => {
    const shuttingDown = new AbortController();
    const log: string[] = [];
    const supervised = supervise({
      name: 'worker',
      start: () => nodeProcess({ exitAfterMs: null }),
      log: (m) => log.push(m),
      backoff,
      signal: shuttingDown.signal,
    });
    await supervised.ready();
    const pid = supervised.pid()!;
    shuttingDown.abort();
    process.kill(pid, 'SIGTERM'); // as the terminal's Ctrl-C reaches the whole process group
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(log, [], 'not restarted during the shutdown');
    assert.equal(supervised.pid(), pid);
    await supervised.stop();
    assert.equal(supervised.state(), 'stopped');
  });
});
