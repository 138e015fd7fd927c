/**
 * A finding's URLs as the audit JSON names them (the first 100, shallowest first) and as rows for the
 * URL listing: made lazily, a finding at a time, and the same every time they are gone over (a write
 * retried after a database outage goes over them again).
 */
import assert from 'node:assert/strict';
import { capFindingUrls, JSON_LIST_CAP } from '../../src/audits/exact-lists';
import type { Finding } from '../../src/schemas/audit';

const finding = (id: string, urls: string[]) => ({ id, analyzer: 'SEO_TITLE_MISSING', urls }) as unknown as Finding;

describe('exact finding URL lists', () => {
  const many = Array.from({ length: 250 }, (_, i) => `https://e.com/p/${i}`);
  const index = new Map(many.map((url, i) => [url, { depth: i % 2 === 0 ? 3 : 1, referrers: i }]));
  index.set('https://e.com/p/7', { depth: 0, referrers: 9 });
  const findings = [finding('fnd_1', many), finding('fnd_2', ['https://e.com/style.css', 'https://e.com/p/1'])];

  it('counts every URL and names the first 100, shallowest first, ties in the analyzer order', () => {
    const { findings: capped } = capFindingUrls(findings, index);
    assert.equal(capped[0]!.count, 250);
    assert.equal(capped[0]!.urls.length, JSON_LIST_CAP);
    assert.equal(capped[0]!.urls[0], 'https://e.com/p/7');
    assert.deepEqual(capped[0]!.urls.slice(1, 4), ['https://e.com/p/1', 'https://e.com/p/3', 'https://e.com/p/5']);
    assert.deepEqual(capped[1]!.urls, ['https://e.com/p/1', 'https://e.com/style.css'], 'unknown depth last');
  });

  it('makes a row per URL with its position, depth and referrers, the same on every pass', () => {
    const { findingUrls } = capFindingUrls(findings, index);
    const first = [...findingUrls];
    assert.equal(first.length, 252);
    assert.deepEqual(first[0], { finding_id: 'fnd_1', position: 0, url: 'https://e.com/p/7', depth: 0, referrers: 9 });
    assert.deepEqual(first[250], {
      finding_id: 'fnd_2',
      position: 0,
      url: 'https://e.com/p/1',
      depth: 1,
      referrers: 1,
    });
    assert.deepEqual(first[251], {
      finding_id: 'fnd_2',
      position: 1,
      url: 'https://e.com/style.css',
      depth: null,
      referrers: null,
    });
    assert.deepEqual([...findingUrls], first);
  });
});
