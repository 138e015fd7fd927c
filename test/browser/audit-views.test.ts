import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { CATEGORY_LABELS, SEVERITY_LABELS } from '../../src/dashboard/pages/audits-labels';
import { CATEGORIES, SEVERITIES, type AuditJson, type Category } from '../../src/schemas/audit';
import { axe, newPage, screenshot, signUp } from '../support/browser';
import { generatedPages, storeCompletedAudit } from '../support/dashboard-audits';
import { serveSlowSite, type LocalSite } from '../support/sites';
import { getStack } from '../support/stack';

const HOSTILE = '`<img src=x onerror="window.pwned=1">` and `<script>window.pwned=2</script>`';

/** A signed-up user and a completed test audit of theirs, stored with the result and facts the test chooses. */
async function userWithAudit(
  page: Page,
  opts: Omit<Parameters<typeof storeCompletedAudit>[0], 'workspaceId' | 'accountId' | 'mode'>,
) {
  const { workspaceId } = await signUp(page);
  const { db } = await getStack();
  const { account_id } = await db('workspaces').where({ id: workspaceId }).first('account_id');
  return storeCompletedAudit({ ...opts, workspaceId, accountId: account_id, mode: 'test' });
}

/** The cells of one column of the pages table, as shown. */
async function column(page: Page, index: number): Promise<string[]> {
  return page
    .locator('table.pages tbody tr')
    .evaluateAll((rows, i) => rows.map((row) => (row.children[i] as HTMLElement).innerText.trim()), index);
}

describe('dashboard: an audit in the report’s visual language, its pages and its progress', function () {
  this.timeout(180_000);
  let site: LocalSite | undefined;
  after(async () => {
    await site?.close();
  });

  it('draws gauge, category bars and severity tiles named with their numbers, and code spans as escaped code', async () => {
    const page = await newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    let hostileId = '';
    const { auditId, audit } = await userWithAudit(page, {
      domain: 'https://visual.example.com',
      change: (a: AuditJson) => {
        const finding = a.findings.find((f) => f.severity !== 'info')!;
        hostileId = finding.id;
        finding.recommendation = `Never send ${HOSTILE}: escape them.`;
      },
    });
    await page.goto(`/test/audits/${auditId}`);

    await page.getByRole('img', { name: `Score ${audit.score} out of 100, grade ${audit.grade}` }).waitFor();
    for (const category of Object.keys(audit.categories) as Category[]) {
      const name = `${CATEGORY_LABELS[category]}: ${audit.categories[category]!.score} out of 100`;
      assert.equal(await page.getByRole('img', { name, exact: true }).count(), 1, name);
    }
    assert.equal(await page.locator('ul.bars li').count(), CATEGORIES.filter((c) => audit.categories[c]).length);
    for (const severity of SEVERITIES) {
      const n = audit.findings.filter((f) => f.severity === severity).length;
      const name = `${SEVERITY_LABELS[severity]}: ${n} ${n === 1 ? 'finding' : 'findings'}`;
      assert.equal(await page.getByRole('img', { name, exact: true }).count(), 1, name);
    }

    // Every finding open: code spans are code, with no backtick left, and markup in them is text.
    await page.locator('details').evaluateAll((all) => all.forEach((d) => ((d as HTMLDetailsElement).open = true)));
    const hostile = page.locator(`li#${hostileId}`);
    const howToFix = hostile.locator('p', { hasText: 'How to fix:' });
    assert.deepEqual(await howToFix.locator('code').allTextContents(), [
      '<img src=x onerror="window.pwned=1">',
      '<script>window.pwned=2</script>',
    ]);
    assert.equal(await howToFix.textContent(), `How to fix: Never send ${HOSTILE.replace(/`/g, '')}: escape them.`);
    assert.equal(await hostile.locator('img, script').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
    const recommendation = audit.findings.find((f) => /`[^`]+`/.test(f.recommendation) && f.id !== hostileId);
    if (recommendation) assert.ok((await page.locator(`li#${recommendation.id} code`).count()) > 0);
    const shown = await page.locator('main').innerText();
    assert.doesNotMatch(shown.replace(/Evidence:.*$/gm, ''), /`/, 'no raw backtick outside the evidence');

    // Nothing came from another origin: the figures are inline SVG.
    const { url } = await getStack();
    assert.deepEqual(
      requests.filter((r) => !r.startsWith(url)),
      [],
    );
    await screenshot(page, 'audit-summary');
    assert.deepEqual(await axe(page), []);

    await page.getByRole('link', { name: 'Pages', exact: true }).click();
    await page.waitForURL((u) => u.pathname === `/test/audits/${auditId}/pages`);
    assert.equal(await page.locator('table.pages tbody tr').count(), Math.min(50, audit.crawl.pages.length));
    assert.equal(await page.getByRole('link', { name: 'Download CSV' }).count(), 1);
  });

  it('lists the pages with the API’s filters, sortable columns, Next and Download CSV; bad input gets a message', async () => {
    const page = await newPage();
    const domain = 'https://pages-view.example.com';
    const pages = generatedPages(domain, 120);
    const { auditId } = await userWithAudit(page, { domain, pages });
    await page.goto(`/test/audits/${auditId}`);
    await page.getByRole('link', { name: 'Pages', exact: true }).click();
    await page.waitForURL((u) => u.pathname === `/test/audits/${auditId}/pages`);
    const rows = page.locator('table.pages tbody tr');
    assert.equal(await rows.count(), 50);
    assert.deepEqual(
      await column(page, 0).then((c) => c.map((t) => t.split('\n')[0])),
      pages.slice(0, 50).map((p) => p.url),
    );

    await page.getByLabel('Status').fill('404');
    await page.getByLabel('Minimum depth').fill('1');
    await page.getByLabel('Maximum depth').fill('3');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL((u) => u.searchParams.get('status') === '404');
    const expected = pages.filter((p) => p.status === 404 && p.depth !== null && p.depth >= 1 && p.depth <= 3);
    assert.deepEqual(
      await column(page, 1),
      expected.map(() => '404'),
    );
    assert.equal(await page.getByLabel('Status').inputValue(), '404');
    await screenshot(page, 'audit-pages-filtered');

    // Sorting: the heading's link, slowest first, then fastest; Next goes on in the same order.
    await page.goto(`/test/audits/${auditId}/pages`);
    await page.getByRole('link', { name: 'Response', exact: true }).click();
    await page.waitForURL((u) => u.searchParams.get('sort') === 'response_ms');
    assert.equal(await page.locator('th[aria-sort]').getAttribute('aria-sort'), 'descending');
    const ms = (cells: string[]) => cells.map((c) => Number.parseInt(c, 10));
    const firstPage = ms(await column(page, 4));
    assert.deepEqual(
      firstPage,
      [...firstPage].sort((a, b) => b - a),
    );
    await page.getByRole('link', { name: 'Next' }).click();
    await page.waitForURL((u) => u.searchParams.has('cursor'));
    const secondPage = ms(await column(page, 4));
    assert.ok(secondPage[0]! <= firstPage[firstPage.length - 1]!);
    assert.deepEqual(
      secondPage,
      [...secondPage].sort((a, b) => b - a),
    );
    await page.getByRole('link', { name: 'Response', exact: true }).click();
    await page.waitForURL((u) => u.searchParams.get('order') === 'asc');
    assert.equal(await page.locator('th[aria-sort]').getAttribute('aria-sort'), 'ascending');
    await screenshot(page, 'audit-pages');
    assert.deepEqual(await axe(page), []);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    const csv = fs.readFileSync((await download.path())!, 'utf8');
    assert.equal(csv.trimEnd().split('\r\n').length, pages.length + 1);
    assert.match(download.suggestedFilename(), /^aud_[0-9A-Za-z]+-pages\.csv$/);

    await page.getByLabel('Status').fill('abc');
    await page.getByLabel('Minimum depth').fill('5');
    await page.getByLabel('Maximum depth').fill('2');
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('/pages?')),
      page.getByRole('button', { name: 'Filter' }).click(),
    ]);
    assert.equal(answer.status(), 400);
    const alert = (await page.getByRole('alert').textContent()) ?? '';
    assert.match(alert, /Status must be a code from 100 to 599/);
    assert.match(alert, /Minimum depth \(5\) is greater than Maximum depth \(2\)/);
    assert.equal(await page.getByText('Something went wrong').count(), 0);
    assert.equal(await rows.count(), 50, 'the list is shown without the filters it could not use');
  });

  it('pages through a finding’s URLs with Next, from the audit page on', async () => {
    const page = await newPage();
    const domain = 'https://finding-urls.example.com';
    let findingId = '';
    const { auditId } = await userWithAudit(page, {
      domain,
      change: (a: AuditJson) => {
        const finding = a.findings[0]!;
        findingId = finding.id;
        finding.urls = Array.from({ length: 100 }, (_, k) => `${domain}/missing/${k}`);
        finding.count = 130;
      },
      findingUrls: [],
    });
    const { db } = await getStack();
    await db('audit_finding_urls').insert(
      Array.from({ length: 130 }, (_, position) => ({
        audit_id: auditId,
        finding_id: findingId,
        position,
        url: `${domain}/missing/${position}`,
        depth: 1,
        referrers: 2,
      })),
    );
    await page.goto(`/test/audits/${auditId}`);
    const finding = page.locator(`li#${findingId}`);
    await finding.locator('summary').click();
    assert.equal(await finding.locator('ul.urls li').count(), 10);
    await finding.getByRole('link', { name: 'Next' }).click();
    await page.waitForURL((u) => u.pathname === `/test/audits/${auditId}/findings/${findingId}`);
    for (const [range, first] of [
      ['URLs 11–60 of 130', 10],
      ['URLs 61–110 of 130', 60],
      ['URLs 111–130 of 130', 110],
    ] as const) {
      assert.equal(await page.locator('caption').textContent(), range);
      assert.equal(await page.locator('tbody tr code').first().textContent(), `${domain}/missing/${first}`);
      if (first === 60) {
        await screenshot(page, 'finding-urls');
        assert.deepEqual(await axe(page), []);
      }
      if (first < 110) await page.getByRole('link', { name: 'Next' }).click();
    }
    assert.equal(await page.getByRole('link', { name: 'Next' }).count(), 0);
  });

  it('shows a running live audit’s progress bar, follows it without a reload, then shows the result', async () => {
    site = await serveSlowSite(2000);
    const page = await newPage();
    await signUp(page);
    await page.goto('/audits');
    await page.getByLabel('Domain').fill(site.origin);
    await page.getByRole('button', { name: 'Run audit' }).click();
    await page.waitForURL((u) => /^\/audits\/aud_/.test(u.pathname));
    await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));

    const bar = page.getByRole('progressbar', { name: 'Audit progress' });
    await bar.waitFor();
    await page.locator('[role="progressbar"][aria-valuenow]').waitFor({ timeout: 60_000 });
    // Without a script, a reload shows the same bar: the page itself carries the figures (asked at once,
    // while the crawl surely still runs; the screenshot and axe below take seconds on a loaded machine).
    const html = await (await page.request.get(page.url(), { headers: { accept: 'text/html' } })).text();
    assert.match(html, /role="progressbar"/);
    const crawled = Number(await bar.getAttribute('aria-valuenow'));
    const discovered = Number(await bar.getAttribute('aria-valuemax'));
    assert.ok(crawled >= 0 && discovered >= crawled, `${crawled} of ${discovered}`);
    assert.match(
      (await bar.getAttribute('aria-valuetext')) ?? '',
      /\(phase \d of 4\): \d+ of \d+ discovered pages crawled$/,
    );
    assert.match((await page.locator('.progress-text').textContent()) ?? '', /of \d+ discovered pages crawled/);
    await screenshot(page, 'audit-progress');
    assert.deepEqual(await axe(page), []);

    // The figures move on in place, then the finished audit is swapped in, all in the same document.
    await page.waitForFunction(
      (before) => {
        const now = document.querySelector('[role="progressbar"]');
        return (
          !now || Number(now.getAttribute('aria-valuenow')) > before || now.getAttribute('data-phase') !== 'crawling'
        );
      },
      crawled,
      { timeout: 60_000 },
    );
    await page.getByRole('link', { name: 'Download JSON' }).waitFor({ timeout: 90_000 });
    assert.equal(await page.getByRole('progressbar').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument), true);
  });
});
