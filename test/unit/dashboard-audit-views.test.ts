import assert from 'node:assert/strict';
import { h } from 'preact';
import { render } from 'preact-render-to-string';
import { syntheticAudit } from '../../src/audits/synthetic';
import { AuditDetailPage } from '../../src/dashboard/pages/audit-detail';
import { decodePagesCursor, encodePagesCursor, pagesQuery } from '../../src/dashboard/pages/audit-pages-query';
import { compareAudits, findingChanges } from '../../src/monitoring/comparison';
import { syntheticInput } from '../support/synthetic-input';

const audit = syntheticAudit(syntheticInput('https://views.example.com'));
const completed = { audit_id: audit.audit_id, domain: audit.domain, status: 'completed', estimated_completion: null };
const page = (props: Partial<Parameters<typeof AuditDetailPage>[0]>) =>
  render(
    h(AuditDetailPage, {
      basePath: '/test',
      plansHref: '/plan',
      status: completed,
      result: null,
      pdfAllowed: false,
      ...props,
    }),
  );

describe('dashboard audit views (rendered to HTML)', () => {
  it('draws the score gauge, a bar per category and a tile per severity, each an image named by its numbers', () => {
    const html = page({ result: audit });
    assert.match(
      html,
      new RegExp(
        `<svg class="gauge"[^>]*role="img" aria-label="Score ${audit.score} out of 100, grade ${audit.grade}"`,
      ),
    );
    const bars = [...html.matchAll(/<svg class="bar"[^>]*aria-label="([^"]+)"/g)].map((m) => m[1]);
    assert.equal(bars.length, Object.keys(audit.categories).length);
    assert.ok(bars.every((name) => /^.+: \d+ out of 100$/.test(name!)));
    const tiles = [...html.matchAll(/aria-label="((?:Critical|High|Medium|Low|Information): \d+ findings?)"/g)];
    assert.equal(tiles.length, 5);
    assert.doesNotMatch(html, /(?:src|href)="(?:https?:)?\/\//, 'nothing from another origin');
    assert.match(html, new RegExp(`<a href="/test/audits/${audit.audit_id}/pages">Pages</a>`));
  });

  it('sets code spans as <code> without backticks, their markup escaped', () => {
    const hostile = structuredClone(audit);
    hostile.findings[0]!.recommendation = 'Use `<script>alert(1)</script>` and `a & b`, not an unpaired ` tick.';
    const html = page({ result: hostile });
    assert.ok(
      html.includes(
        'Use <code>&lt;script>alert(1)&lt;/script></code> and <code>a &amp; b</code>, not an unpaired ` tick.',
      ),
    );
    assert.doesNotMatch(html, /<script>alert/);
  });

  it('shows a running audit as a progress bar of pages crawled of discovered, and a queued one as busy', () => {
    const running = page({
      status: {
        audit_id: 'aud_2',
        domain: 'https://b.example',
        status: 'running',
        estimated_completion: '2026-11-21T10:20:00.000Z',
        progress: { phase: 'crawling', pages_crawled: 12, pages_discovered: 40 },
      },
    });
    assert.match(
      running,
      /id="audit-state" data-poll="\/test\/audits\/aud_2" data-status="\/test\/audits\/aud_2\/status"/,
    );
    assert.match(
      running,
      /role="progressbar" aria-label="Audit progress" aria-valuemin="0" aria-valuemax="40" aria-valuenow="12" aria-valuetext="Crawling the site \(phase 1 of 4\): 12 of 40 discovered pages crawled" data-phase="crawling"/,
    );
    assert.match(running, /<rect class="progress-fill" width="30" height="10"/);
    assert.match(
      running,
      /Expected to finish around <time datetime="2026-11-21T10:20:00.000Z">2026-11-21 10:20 UTC<\/time>/,
    );
    // Past the crawl no share done is reported: a busy bar, not one full of crawled pages.
    const analyzing = page({
      status: {
        audit_id: 'aud_4',
        domain: 'https://d.example',
        status: 'running',
        estimated_completion: null,
        progress: { phase: 'analyzing', pages_crawled: 40, pages_discovered: 40 },
      },
    });
    assert.match(
      analyzing,
      /class="progress indeterminate" role="progressbar" aria-label="Audit progress" aria-valuetext="Running the checks on the pages \(phase 3 of 4\): 40 of 40 discovered pages crawled" data-phase="analyzing"/,
    );
    assert.doesNotMatch(analyzing, /aria-valuenow/);
    const queued = page({
      status: { audit_id: 'aud_3', domain: 'https://c.example', status: 'queued', estimated_completion: null },
    });
    assert.match(
      queued,
      /class="progress indeterminate" role="progressbar" aria-label="Audit progress" aria-valuetext="Waiting for a worker/,
    );
    assert.doesNotMatch(queued, /aria-valuenow/);
  });
});

describe('pages view query', () => {
  it('reads the filters and the order, largest first for the columns where that is what is looked for', () => {
    const q = pagesQuery({ status: '4xx', min_depth: '1', max_depth: '3', indexable: 'false', sort: 'bytes' });
    assert.deepEqual(q.filter, { status: { class: 4 }, minDepth: 1, maxDepth: 3, indexable: false });
    assert.deepEqual(q.order, { column: 'bytes', descending: true });
    assert.deepEqual(q.invalid, []);
    assert.deepEqual(pagesQuery({ status: '404', sort: 'url' }).filter, { status: { code: 404 } });
    assert.deepEqual(pagesQuery({ sort: 'url' }).order, { column: 'url', descending: false });
    assert.deepEqual(pagesQuery({}).order, { column: 'crawl', descending: false });
  });

  it('names each value it cannot use and lists without it', () => {
    const q = pagesQuery({
      status: 'abc',
      min_depth: '-1',
      max_depth: '1e3',
      indexable: 'maybe',
      sort: 'x',
      order: 'up',
    });
    assert.deepEqual(q.filter, {});
    assert.equal(q.invalid.length, 6);
    assert.match(
      q.invalid.join(' '),
      /Status must be.*Minimum depth must.*Maximum depth must.*Indexable must.*cannot be sorted.*asc or desc/,
    );
    const crossed = pagesQuery({ min_depth: '4', max_depth: '2' });
    assert.deepEqual(crossed.filter, {});
    assert.match(crossed.invalid[0]!, /Minimum depth \(4\) is greater than Maximum depth \(2\)/);
  });

  it('binds a cursor to its audit and order, and refuses keys the column cannot hold', () => {
    const order = { column: 'url' as const, descending: true };
    const cursor = encodePagesCursor('aud_1', order, { key: 'https://a.example/x', seq: 7 });
    assert.deepEqual(decodePagesCursor(cursor, 'aud_1', order), { key: 'https://a.example/x', seq: 7 });
    assert.equal(decodePagesCursor(cursor, 'aud_2', order), null);
    assert.equal(decodePagesCursor(cursor, 'aud_1', { column: 'url', descending: false }), null);
    const forged = (parts: unknown[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');
    assert.equal(
      decodePagesCursor(forged(['aud_1', 'bytes', true, 'text', 1]), 'aud_1', { column: 'bytes', descending: true }),
      null,
    );
    assert.equal(
      decodePagesCursor(forged(['aud_1', 'bytes', true, 2 ** 40, 1]), 'aud_1', { column: 'bytes', descending: true }),
      null,
    );
    assert.equal(decodePagesCursor(forged(['aud_1', 'url', true, 'a\u0000', 1]), 'aud_1', order), null);
    assert.equal(decodePagesCursor('!!', 'aud_1', order), null);
  });
});

describe('finding changes between two audits', () => {
  it('splits the fingerprints into new, fixed, unchanged and known, as the comparison counts them', () => {
    const categories = {};
    const of = (...fps: string[]) => fps.map((fingerprint) => ({ analyzer: 'X', fingerprint }));
    const before = { audit_id: 'aud_a', score: 50, categories, findings: of('a', 'b', 'c') };
    const now = { audit_id: 'aud_b', score: 60, categories, findings: of('b', 'c', 'd', 'e') };
    const triage = new Map([['e', { status: 'accepted' as const, note: null }]]);
    const changes = findingChanges(now, before, triage);
    assert.deepEqual(changes, { new: ['d'], fixed: ['a'], unchanged: ['b', 'c'], known: ['e'] });
    const comparison = compareAudits(now, before, triage);
    assert.deepEqual([comparison.new, comparison.fixed, comparison.unchanged], [changes.new, changes.fixed, 2]);
  });
});
