import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { setAccountTier } from '../../src/accounts/repository';
import { catalogEntry } from '../../src/analyzers/catalog';
import { findingFingerprint } from '../../src/monitoring/fingerprint';
import { axe, newPage, screenshot, signUp } from '../support/browser';
import { domainWithFindings, storeCompletedAudit } from '../support/dashboard-audits';
import { until } from '../support/receiver';
import { serveSite, type LocalSite } from '../support/sites';
import { getStack } from '../support/stack';

const HOME = (extra: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Acme widgets for every workshop</title>
<meta name="description" content="Acme sells widgets."></head><body><h1>Acme</h1>
<img src="/a.png" alt="logo" width="10" height="10">${extra}</body></html>`;

/** A signed-up user whose account an operator moved to the pro tier. */
async function proUser(page: Page): Promise<string> {
  const { workspaceId } = await signUp(page);
  const { db, clock } = await getStack();
  const { account_id } = await db('workspaces').where({ id: workspaceId }).first('account_id');
  await setAccountTier(db, { accountId: account_id, tier: 'pro', now: clock.now() });
  return workspaceId;
}

/** Runs a live audit from the audits page and waits until it is stored. */
async function runLiveAudit(page: Page, origin: string): Promise<string> {
  await page.goto('/audits');
  await page.getByLabel('Domain').fill(origin);
  await page.getByRole('button', { name: 'Run audit' }).click();
  await page.waitForURL((u) => /^\/audits\/aud_/.test(u.pathname));
  const auditId = new URL(page.url()).pathname.split('/').pop()!;
  const { db } = await getStack();
  await until(
    async () => (await db('audits').where({ id: auditId }).first('status'))?.status === 'completed',
    60_000,
    `audit ${auditId} to complete`,
  );
  return auditId;
}

describe('dashboard: monitored sites', function () {
  this.timeout(180_000);
  let site: LocalSite;
  const routes: Parameters<typeof serveSite>[0] = {
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n' },
    '/': { headers: { 'x-powered-by': 'Express 4.18.2' }, body: HOME('') },
  };
  before(async () => {
    site = await serveSite(routes);
  });
  after(() => site.close());

  it('adds a site, charts its audits, lists the latest changes and skipped runs, and saves a finding’s triage', async () => {
    const page = await newPage();
    await proUser(page);
    await page.goto('/sites');
    await page.getByLabel('Domain').fill(site.origin);
    await page.getByLabel('Schedule').selectOption('weekly');
    await page.getByRole('button', { name: 'Add site' }).click();
    const link = page.getByRole('link', { name: site.origin });
    await link.waitFor();
    const siteHref = (await link.getAttribute('href'))!;
    const siteId = siteHref.split('/').pop()!;
    assert.match(siteId, /^site_/);

    const first = await runLiveAudit(page, site.origin);
    // Between the runs the X-Powered-By header goes, and an image without alt text comes.
    routes['/'] = { body: HOME('<img src="/b.png" width="10" height="10">') };
    // The new image exists, so its missing alt is the one new problem (a 404 would be another).
    routes['/b.png'] = { headers: { 'content-type': 'image/png', 'cache-control': 'max-age=31536000' }, body: 'png' };
    const second = await runLiveAudit(page, site.origin);
    const { db, clock } = await getStack();
    await db('site_runs').insert({
      id: 'run_01jskippedbybrowsertest0000',
      site_id: siteId,
      scheduled_at: clock.now(),
      outcome: 'skipped',
      skip_reason: 'audit_quota_exceeded',
      skip_message: 'this account has used its 50 audits of the period',
      created_at: clock.now(),
    });

    await page.goto(siteHref);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), site.origin);
    // The chart: one point per audit, each a link to it named by its score.
    const points = page.locator('figure.score-chart svg a');
    assert.equal(await points.count(), 2);
    assert.equal(await points.nth(0).getAttribute('href'), `/audits/${first}`);
    assert.equal(await points.nth(1).getAttribute('href'), `/audits/${second}`);
    assert.match((await page.locator('figcaption').textContent()) ?? '', /Score over the last 2 audits/);
    const altTitle = catalogEntry('A11Y_IMG_ALT_MISSING').title;
    const changes = page.locator('section[aria-labelledby="changes-heading"]');
    await changes.getByRole('heading', { name: 'New issues (1)' }).waitFor();
    assert.equal(await changes.getByRole('link', { name: altTitle }).count(), 1);
    await changes.getByRole('heading', { name: 'Fixed issues (1)' }).waitFor();
    assert.equal(await changes.getByRole('link', { name: catalogEntry('SEC_VERSION_DISCLOSURE').title }).count(), 1);
    assert.ok(
      ((await page.locator('section[aria-labelledby="skipped-heading"]').textContent()) ?? '').includes(
        'audit_quota_exceeded',
      ),
    );
    await screenshot(page, 'site');
    assert.deepEqual(await axe(page), []);

    // The finding's own page: in which audits it appeared, and its triage.
    await changes.getByRole('link', { name: altTitle }).click();
    const fp = findingFingerprint('A11Y_IMG_ALT_MISSING', 'img src=/b.png');
    assert.ok(page.url().endsWith(`/sites/${siteId}/findings/${fp}`));
    const rows = page.locator('tbody tr');
    assert.equal(await rows.count(), 2);
    assert.equal(await rows.nth(0).locator('td').nth(1).textContent(), 'Found');
    assert.equal(await rows.nth(1).locator('td').nth(1).textContent(), 'Not found');
    await page.getByLabel('Status').selectOption('ignored');
    await page.getByLabel('Note').fill('Decorative image, tracked in our design backlog');
    await page.getByRole('button', { name: 'Save triage' }).click();
    await page.getByText('Triage saved.').waitFor();
    assert.equal(await page.getByLabel('Status').inputValue(), 'ignored');
    assert.deepEqual(await axe(page), []);
    const row = await db('site_finding_triage').where({ site_id: siteId, fingerprint: fp }).first();
    assert.equal(row.status, 'ignored');
    assert.equal(row.note, 'Decorative image, tracked in our design backlog');
    assert.match(row.set_by, /^user:/);

    // Ignored: the latest changes no longer count it as new; the history shows the triage.
    await page.goto(siteHref);
    await changes.getByRole('heading', { name: 'New issues (0)' }).waitFor();
    const historyRow = page.locator('section[aria-labelledby="findings-heading"] tr', { hasText: altTitle });
    assert.equal(await historyRow.locator('td').last().textContent(), 'ignored');
  });

  it('charts each category over time and compares any two audits with Compare: new, fixed, unchanged, with triage', async () => {
    const page = await newPage();
    const workspaceId = await proUser(page);
    const { db } = await getStack();
    const { account_id: accountId } = await db('workspaces').where({ id: workspaceId }).first('account_id');
    const domain = domainWithFindings(workspaceId, 'compare', 5);
    await page.goto('/test/sites');
    await page.getByLabel('Domain').fill(domain);
    await page.getByRole('button', { name: 'Add site' }).click();
    const link = page.getByRole('link', { name: domain });
    await link.waitFor();
    const siteHref = (await link.getAttribute('href'))!;

    // Three audits a day apart: each leaves out some of the same five findings, and security improves.
    const base = storeCompletedAudit;
    let fingerprints: string[] = [];
    const audit = (day: number, without: number[], security: number) =>
      base({
        workspaceId,
        accountId,
        mode: 'test',
        domain,
        completedAt: new Date(Date.now() - (4 - day) * 86_400_000),
        change: (a) => {
          const distinct = a.findings.filter(
            (f, i) => a.findings.findIndex((g) => g.fingerprint === f.fingerprint) === i,
          );
          fingerprints = distinct.slice(0, 5).map((f) => f.fingerprint);
          a.findings = distinct.filter((f) => !without.map((k) => fingerprints[k]).includes(f.fingerprint));
          a.categories.security!.score = security;
        },
      });
    const first = await audit(1, [3, 4], 40);
    await audit(2, [0], 60);
    const third = await audit(3, [0, 1], 80);
    await db('site_finding_triage').insert({
      site_id: siteHref.split('/').pop(),
      fingerprint: fingerprints[4],
      status: 'ignored',
      note: null,
      set_by: 'user:test',
      updated_at: new Date(),
    });

    await page.goto(siteHref);
    const day = (d: Date | string) => new Date(d).toISOString().slice(0, 10);
    await page
      .getByRole('img', {
        name: `Security over 3 audits: from 40 on ${day(first.audit.completed_at)} to 80 on ${day(third.audit.completed_at)}`,
      })
      .waitFor();
    assert.equal(
      await page.locator('ul.category-charts svg[role="img"]').count(),
      Object.keys(third.audit.categories).length,
    );
    // By default the latest two audits, as before.
    await page.getByRole('heading', { name: 'Latest changes' }).waitFor();

    await page.getByLabel('Earlier audit').selectOption(first.auditId);
    await page.getByLabel('Later audit').selectOption(third.auditId);
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.waitForURL((u) => u.searchParams.get('from') === first.auditId);
    const changes = page.locator('section[aria-labelledby="changes-heading"]');
    await changes.getByRole('heading', { name: 'Changes between two audits' }).waitFor();
    const unchanged = new Set(third.audit.findings.map((f) => f.fingerprint));
    for (const fp of fingerprints.slice(3)) unchanged.delete(fp);
    for (const heading of [
      'New issues (1)',
      'Fixed issues (2)',
      `Unchanged issues (${unchanged.size})`,
      'Known issues, ignored or accepted (1)',
    ])
      assert.equal(await changes.getByRole('heading', { name: heading, exact: true }).count(), 1, heading);
    assert.match((await changes.textContent()) ?? '', /Score [+−]\d+ from the audit of/);
    assert.match((await changes.textContent()) ?? '', /Security \+40/);
    await screenshot(page, 'site-compare');
    assert.deepEqual(await axe(page), []);

    // Chosen the other way round, the later audit is still compared with the earlier.
    await page.getByLabel('Earlier audit').selectOption(third.auditId);
    await page.getByLabel('Later audit').selectOption(first.auditId);
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.waitForURL((u) => u.searchParams.get('from') === third.auditId);
    await changes.getByRole('heading', { name: 'Fixed issues (2)' }).waitFor();

    // Audits that are not two of this site's: a message and the latest two, never a 500.
    const answer = await page.goto(`${siteHref}?from=aud_doesnotexist000000000000&to=${first.auditId}`);
    assert.equal(answer?.status(), 400);
    assert.match((await page.getByRole('alert').textContent()) ?? '', /Choose two different audits of this site/);
    await page.getByRole('heading', { name: 'Latest changes' }).waitFor();
  });

  it('pauses, resumes and deletes a site from the list; a test-mode site lives under /test/sites', async () => {
    const page = await newPage();
    await proUser(page);
    await page.goto('/test/sites');
    await page.getByLabel('Domain').fill('https://monitored.example');
    await page.getByRole('button', { name: 'Add site' }).click();
    await page.getByRole('link', { name: 'https://monitored.example' }).waitFor();
    await page.getByRole('button', { name: 'Pause https://monitored.example' }).click();
    await page.getByRole('cell', { name: 'Paused' }).waitFor();
    await page.getByRole('button', { name: 'Resume https://monitored.example' }).click();
    await page.getByRole('cell', { name: 'Running' }).waitFor();
    assert.deepEqual(await axe(page), []);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete https://monitored.example' }).click();
    await page.getByText('No sites yet.').waitFor();
    await page.goto('/sites');
    await page.getByText('No sites yet.').waitFor();
  });

  it('changes a site’s schedule on its page: a refusal opens the form with the service’s message, then it saves', async () => {
    const page = await newPage();
    const workspaceId = await proUser(page);
    await page.goto('/test/sites');
    await page.getByLabel('Domain').fill('https://scheduled.example');
    await page.getByLabel('Schedule').selectOption('weekly');
    await page.getByLabel('Time zone').selectOption('Europe/Berlin');
    await page.getByLabel('Time of day').fill('09:00');
    await page.getByLabel('Weekday (weekly)').selectOption('fri');
    await page.getByRole('button', { name: 'Add site' }).click();
    await page.getByRole('link', { name: 'https://scheduled.example' }).click();
    await page.getByText('Audited weekly, fri 09:00 Europe/Berlin').waitFor();

    await page.getByText('Change the schedule').click();
    const schedule = page.getByRole('combobox', { name: 'Schedule' });
    await schedule.selectOption('daily');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await page
      .getByRole('alert')
      .getByText('field weekday applies to weekly schedules only, and this schedule is daily')
      .waitFor();
    assert.equal(await schedule.inputValue(), 'daily', 'the form keeps what was chosen');
    assert.deepEqual(await axe(page), []);
    const { db } = await getStack();
    const before = await db('sites').where({ workspace_id: workspaceId }).first();
    assert.deepEqual([before.schedule, before.weekday], ['weekly', 'fri']);

    await page.getByLabel('Weekday (weekly)').selectOption('');
    await page.getByLabel('Time zone').selectOption('America/New_York');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await page.getByText('Schedule saved.').waitFor();
    await page.getByText('Audited daily, 09:00 America/New_York').waitFor();
    await screenshot(page, 'site-schedule');
    assert.deepEqual(await axe(page), []);
    const after = await db('sites').where({ workspace_id: workspaceId }).first();
    assert.deepEqual(
      [after.schedule, after.time_zone, after.at, after.weekday],
      ['daily', 'America/New_York', '09:00', null],
    );
  });
});
