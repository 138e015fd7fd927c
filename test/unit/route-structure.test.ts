import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { readSources, ROOT } from '../support/code-structure';

const ROUTES = 'src/api/routes/';

/** Route handlers stay thin: reads go through the read model or repositories, bodies through presenters. */
describe('route files', () => {
  const files = fs.readdirSync(path.join(ROOT, ROUTES)).map((name) => `${ROUTES}${name}`);

  it('query no table themselves', () => {
    for (const file of files)
      assert.doesNotMatch(fs.readFileSync(path.join(ROOT, file), 'utf8'), /\bdb\s*(<[^>]*>)?\(\s*['"`]/, file);
  });

  it('build no response objects themselves (the mock receiver, a stand-in for a customer endpoint, excepted)', () => {
    for (const file of files.filter((f) => !f.endsWith('/mock-receiver.ts'))) {
      assert.doesNotMatch(fs.readFileSync(path.join(ROOT, file), 'utf8'), /ctx\.body\s*=\s*[{[]/, file);
    }
  });

  it('have no function over 80 lines', () => {
    const long = readSources(80)
      .filter((s) => s.file.startsWith(ROUTES))
      .flatMap((s) => s.longFunctions.map((f) => `${s.file} ${f.name} (${f.lines} lines)`));
    assert.deepEqual(long, []);
  });
});
