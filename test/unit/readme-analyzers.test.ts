import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { renderAnalyzerDoc, withAnalyzerDoc } from '../../src/analyzers/catalog-doc';
import { CATALOG } from '../../src/analyzers/catalog';

describe('README analyzer section', () => {
  it('is exactly what the code renders (run `npm run docs` after changing the catalog)', () => {
    const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
    assert.ok(readme.includes(renderAnalyzerDoc()), 'README.md is out of date: run `npm run docs`');
    assert.equal(withAnalyzerDoc(readme), readme);
  });

  it('lists every analyzer of the catalog once', () => {
    const doc = renderAnalyzerDoc();
    for (const entry of CATALOG) assert.equal(doc.split(`| \`${entry.code}\` |`).length, 2, entry.code);
  });
});
