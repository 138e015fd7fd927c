import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createDb, migrateLatest } from '../../src/db/knex';
import { childProcesses } from '../support/processes';
import { completedAudit, startMainProcess, testAccount } from '../support/main-process';

const ROOT = path.join(__dirname, '..', '..');
const DIST = path.join(ROOT, 'dist');
// Plain Node (src/setup/build.cjs): what `npm start` and `npm run build` run.
const build = require('../../src/setup/build.cjs') as {
  ensureBuilt(log?: (message: string) => void): boolean;
  isFresh(): boolean;
};

/**
 * `npm start` runs compiled JavaScript: dist/ is built when missing or older than the sources (once
 * per run here, and only when a source changed), and the API and the worker processes it forks run it
 * without tsx — the workflow bundle made from the compiled workflows included.
 */
describe('npm start: compiled JavaScript', function () {
  this.timeout(240_000);
  before(function () {
    // A fresh clone compiles everything once (tsc, about 30 s on a small machine).
    this.timeout(600_000);
    build.ensureBuilt((message) => console.log(`  [build] ${message}`));
  });

  it('builds dist/ with the files the code reads beside itself, and then counts as fresh', () => {
    assert.ok(build.isFresh());
    for (const file of [
      'processes/main.js',
      'processes/worker-main.js',
      'processes/bundle-main.js',
      'workflows/index.js',
      'src/dashboard/assets/dashboard.css',
      'src/dashboard/assets/dashboard.js',
      'src/people/common-passwords.txt',
    ])
      assert.ok(fs.existsSync(path.join(DIST, file)), file);
    const migrations = fs.readdirSync(path.join(ROOT, 'migrations')).filter((f) => f.endsWith('.ts'));
    const compiled = fs.readdirSync(path.join(DIST, 'migrations')).filter((f) => f.endsWith('.js'));
    assert.deepEqual(
      compiled,
      migrations.map((f) => f.replace(/\.ts$/, '.js')),
    );
    assert.equal(build.ensureBuilt(), false, 'nothing to do when nothing changed');
  });

  it('starts the API and the worker from dist/ without tsx, and they complete an audit', async () => {
    const service = await startMainProcess('npm-start');
    try {
      const workers = childProcesses(service.pid).filter((child) => child.command.includes('worker-main'));
      assert.equal(workers.length, 1, JSON.stringify(childProcesses(service.pid)));
      assert.match(workers[0]!.command, /dist\/processes\/worker-main\.js$/);
      assert.doesNotMatch(workers[0]!.command, /tsx/);
      const main = fs.readFileSync(`/proc/${service.pid}/cmdline`, 'utf8').split('\0').join(' ');
      assert.doesNotMatch(main, /tsx/);
      const { testKey } = await testAccount();
      await completedAudit(service.url, testKey);
      // Migrations keep their source names, compiled or not: each way of running finds the other's applied.
      const db = createDb(process.env.TEST_DATABASE_URL!);
      try {
        assert.deepEqual(await migrateLatest(db), []);
        const applied = (await db('knex_migrations').select('name')).map((row: { name: string }) => row.name);
        assert.ok(applied.length > 0 && applied.every((name) => name.endsWith('.ts')), applied.join(', '));
      } finally {
        await db.destroy();
      }
      // The dashboard's assets are served from dist/ too.
      const page = await fetch(`${service.url}/login`).then((r) => r.text());
      const css = /\/assets\/dashboard\.[0-9a-f]+\.css/.exec(page)?.[0];
      assert.ok(css, 'the login page links its stylesheet');
      assert.equal((await fetch(`${service.url}${css}`)).status, 200);
    } finally {
      await service.stop();
    }
  });
});
