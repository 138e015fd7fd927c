import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { cachedTemporalCliPath, ensureTemporalCli, TEMPORAL_CLI_VERSION } from '../../src/setup/temporal-cli';

// Every test runs with its own PATH / XDG_CACHE_HOME / TEMPORAL_CLI_PATH so that a real
// `temporal` on the machine (or the real cache) never leaks into the result.
const ENV_KEYS = ['PATH', 'XDG_CACHE_HOME', 'TEMPORAL_CLI_PATH', 'FAKE_GO_COUNT'] as const;

async function writeExecutable(file: string, body: string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

describe('src/setup/temporal-cli ensureTemporalCli', function () {
  this.timeout(20000); // the build tests wait on a lock polled once a second
  let tmp: string;
  let saved: Record<string, string | undefined>;
  const logs: string[] = [];
  const log = (m: string) => logs.push(m);

  beforeEach(async function () {
    saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
    tmp = await mkdtemp(path.join(os.tmpdir(), 'temporal-cli-test-'));
    // An empty bin dir on PATH plus /bin for `sh` (fake scripts need it; /bin has no temporal or go here).
    await mkdir(path.join(tmp, 'empty-bin'));
    process.env.PATH = [path.join(tmp, 'empty-bin'), '/bin'].join(path.delimiter);
    process.env.XDG_CACHE_HOME = path.join(tmp, 'cache');
    delete process.env.TEMPORAL_CLI_PATH;
    logs.length = 0;
  });

  afterEach(async function () {
    for (const k of ENV_KEYS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    await rm(tmp, { recursive: true, force: true });
  });

  it('exports the pinned version', function () {
    assert.equal(TEMPORAL_CLI_VERSION, '1.5.1');
  });

  it('honours TEMPORAL_CLI_PATH before anything else', async function () {
    const explicit = await writeExecutable(path.join(tmp, 'custom', 'my-temporal'), 'echo explicit');
    await writeExecutable(path.join(tmp, 'pathbin', 'temporal'), 'echo path');
    process.env.PATH = `${path.join(tmp, 'pathbin')}${path.delimiter}${process.env.PATH}`;
    process.env.TEMPORAL_CLI_PATH = explicit;
    assert.equal(await ensureTemporalCli(log), explicit);
  });

  it('rejects a TEMPORAL_CLI_PATH that is not an executable file', async function () {
    process.env.TEMPORAL_CLI_PATH = path.join(tmp, 'nope', 'temporal');
    await assert.rejects(ensureTemporalCli(log), /TEMPORAL_CLI_PATH=.*not an executable file/);
    const notExec = path.join(tmp, 'plain');
    await writeFile(notExec, 'x');
    process.env.TEMPORAL_CLI_PATH = notExec;
    await assert.rejects(ensureTemporalCli(log), /not an executable file/);
  });

  it('uses a temporal on PATH, skipping non-executable ones, before the cache', async function () {
    const first = path.join(tmp, 'bin1');
    await mkdir(first);
    await writeFile(path.join(first, 'temporal'), 'not executable'); // must be skipped
    const onPath = await writeExecutable(path.join(tmp, 'bin2', 'temporal'), 'echo path');
    await writeExecutable(cachedTemporalCliPath(), 'echo cached');
    process.env.PATH = [first, path.join(tmp, 'bin2'), process.env.PATH].join(path.delimiter);
    assert.equal(await ensureTemporalCli(log), onPath);
  });

  it('finds the cached build under XDG_CACHE_HOME', async function () {
    const expected = path.join(tmp, 'cache', 'audit-service', 'temporal-cli', 'v1.5.1', 'temporal');
    assert.equal(cachedTemporalCliPath(), expected);
    await writeExecutable(expected, 'echo cached');
    assert.equal(await ensureTemporalCli(log), expected);
  });

  it('defaults the cache to ~/.cache when XDG_CACHE_HOME is unset', function () {
    delete process.env.XDG_CACHE_HOME;
    assert.equal(
      cachedTemporalCliPath(),
      path.join(os.homedir(), '.cache', 'audit-service', 'temporal-cli', 'v1.5.1', 'temporal'),
    );
  });

  it('explains what to install when there is no CLI and no Go', async function () {
    await assert.rejects(ensureTemporalCli(log), (err: Error) => {
      assert.match(err.message, /Go is not installed/);
      assert.match(err.message, /go\.dev\/dl/);
      assert.match(err.message, /TEMPORAL_CLI_PATH/);
      return true;
    });
  });

  it('builds once with go install into the cache, even when two callers race', async function () {
    // A fake `go`: records each install, "downloads" slowly, then writes the binary into $GOBIN.
    const counter = path.join(tmp, 'go-installs');
    process.env.FAKE_GO_COUNT = counter;
    await writeExecutable(
      path.join(tmp, 'gobin', 'go'),
      [
        'if [ "$1" = version ]; then echo "go version go1.99 fake"; exit 0; fi',
        'echo "$@" >> "$FAKE_GO_COUNT"',
        'echo "go: downloading github.com/temporalio/cli v1.5.1" >&2',
        'sleep 1',
        'printf "#!/bin/sh\\necho built\\n" > "$GOBIN/temporal"',
        'chmod +x "$GOBIN/temporal"',
      ].join('\n'),
    );
    process.env.PATH = [path.join(tmp, 'gobin'), process.env.PATH].join(path.delimiter);

    const [a, b] = await Promise.all([ensureTemporalCli(log), ensureTemporalCli(log)]);
    const expected = cachedTemporalCliPath();
    assert.equal(a, expected);
    assert.equal(b, expected);

    const installs = (await readFile(counter, 'utf8')).trim().split('\n');
    assert.equal(installs.length, 1, 'go install ran more than once');
    assert.match(installs[0], /^install .*github\.com\/temporalio\/cli\/cmd\/temporal@v1\.5\.1$/);
    assert.ok(
      logs.some((l) => l.includes('go: downloading')),
      'go output is streamed to log',
    );

    // No lock or temp build folder is left behind.
    const leftovers = await readdir(path.join(tmp, 'cache', 'audit-service', 'temporal-cli'));
    assert.deepEqual(leftovers, ['v1.5.1']);
  });

  it('takes over a stale lock left by a dead process', async function () {
    const root = path.join(tmp, 'cache', 'audit-service', 'temporal-cli');
    await mkdir(root, { recursive: true });
    // pid 2^22 + 1 is above Linux's pid_max limit, so it can never be alive.
    await writeFile(
      path.join(root, 'v1.5.1.lock'),
      JSON.stringify({ pid: 4194305, hostname: os.hostname(), startedAt: new Date().toISOString() }),
    );
    await writeExecutable(
      path.join(tmp, 'gobin', 'go'),
      'if [ "$1" = version ]; then exit 0; fi\nprintf "#!/bin/sh\\n" > "$GOBIN/temporal"; chmod +x "$GOBIN/temporal"',
    );
    process.env.PATH = [path.join(tmp, 'gobin'), process.env.PATH].join(path.delimiter);
    assert.equal(await ensureTemporalCli(log), cachedTemporalCliPath());
    assert.ok(logs.some((l) => /stale lock/.test(l)));
  });

  it('reports a failed go install with its output', async function () {
    await writeExecutable(
      path.join(tmp, 'gobin', 'go'),
      'if [ "$1" = version ]; then exit 0; fi\necho "go: module lookup disabled" >&2; exit 1',
    );
    process.env.PATH = [path.join(tmp, 'gobin'), process.env.PATH].join(path.delimiter);
    await assert.rejects(ensureTemporalCli(log), /go install .* failed \(exit 1\):\ngo: module lookup disabled/);
  });
});
