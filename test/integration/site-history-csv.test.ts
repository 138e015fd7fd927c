import assert from 'node:assert/strict';
import { createAuditClient } from '../../src/client';
import { assertEnvelope } from '../support/envelope';
import { parseCsv } from '../support/csv';
import { api, getStack, newAccount, waitForAudit, type TestAccount } from '../support/stack';

const HEADER = [
  'audit_id',
  'completed_at',
  'score',
  'grade',
  'security',
  'seo',
  'performance',
  'accessibility',
  'best_practices',
  'dns_email',
];

/** A completed audit row as the worker stores it: categories in the comparison basis, or (older audits) only in the result. */
async function storedAudit(
  account: TestAccount,
  row: { id: string; domain: string; completedAt: Date; score: number | null; grade: string | null },
  categories: { basis?: object; result?: object },
  over: { mode?: string; status?: string; workspace?: TestAccount } = {},
) {
  const { db } = await getStack();
  const owner = over.workspace ?? account;
  return {
    id: row.id,
    workspace_id: owner.workspaceId,
    account_id: owner.accountId,
    mode: over.mode ?? 'test',
    domain: row.domain,
    tier: 'pro',
    status: over.status ?? 'completed',
    score: row.score,
    grade: row.grade,
    charged: false,
    result_json: categories.result ? JSON.stringify({ audit_id: row.id, categories: categories.result }) : null,
    comparison_basis: categories.basis
      ? db.raw('?::jsonb', [JSON.stringify({ audit_id: row.id, categories: categories.basis, findings: [] })])
      : null,
    created_at: row.completedAt,
    completed_at: row.completedAt,
  };
}

async function createSite(account: TestAccount, domain: string): Promise<string> {
  const created = await api('POST', '/v1/sites', { key: account.testKey, body: { domain, schedule: 'weekly' } });
  assert.equal(created.status, 201, created.text);
  return created.body.site_id;
}

async function download(path: string, key: string) {
  const { url } = await getStack();
  return fetch(`${url}${path}`, { headers: { Authorization: `Bearer ${key}` } });
}

describe('GET /v1/sites/{site_id}/history.csv', function () {
  this.timeout(60_000);

  it('streams every completed audit of the site, newest first, as the JSON history lists them', async () => {
    const account = await newAccount('pro');
    const domain = 'https://history-csv.example.com';
    const siteId = await createSite(account, domain);
    // A real test-mode audit of the domain, through the API and the worker.
    const accepted = await api('POST', '/v1/audits', { key: account.testKey, body: { domain } });
    assert.equal(accepted.status, 202, accepted.text);
    const real = (await waitForAudit(account.testKey, accepted.body.audit_id)).body;
    assert.equal(real.status, 'completed');

    const { db } = await getStack();
    const older = new Date(Date.parse(real.completed_at) - 86_400_000);
    const other = await newAccount('pro');
    await db('audits').insert([
      // Before comparison bases: categories from the result; one category not scored.
      await storedAudit(
        account,
        { id: 'aud_HISTCSVLEGACY000000000001', domain, completedAt: older, score: 71, grade: 'C' },
        { result: { security: { score: 64, weight: 30 }, seo: { score: 100, weight: 20 } } },
      ),
      // With a basis (preferred over the result), and neither score nor grade.
      await storedAudit(
        account,
        {
          id: 'aud_HISTCSVBASIS0000000000001',
          domain,
          completedAt: new Date(older.getTime() - 1000),
          score: null,
          grade: null,
        },
        { basis: { dns_email: { score: 5, weight: 10 } }, result: { dns_email: { score: 99, weight: 10 } } },
      ),
      // Not the site's: another domain, the other environment, a failed audit, another workspace.
      await storedAudit(
        account,
        {
          id: 'aud_HISTCSVOTHERDOMAIN000001',
          domain: 'https://other.example.com',
          completedAt: older,
          score: 1,
          grade: 'F',
        },
        {},
      ),
      await storedAudit(
        account,
        { id: 'aud_HISTCSVLIVE0000000000001', domain, completedAt: older, score: 2, grade: 'F' },
        {},
        { mode: 'live' },
      ),
      await storedAudit(
        account,
        { id: 'aud_HISTCSVFAILED00000000001', domain, completedAt: older, score: 3, grade: 'F' },
        {},
        { status: 'failed' },
      ),
      await storedAudit(
        account,
        { id: 'aud_HISTCSVWORKSPACE0000001', domain, completedAt: older, score: 4, grade: 'F' },
        {},
        { workspace: other },
      ),
    ]);

    const response = await download(`/v1/sites/${siteId}/history.csv`, account.testKey);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.equal(response.headers.get('content-disposition'), `attachment; filename="${siteId}-history.csv"`);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const text = await response.text();
    assert.ok(text.endsWith('\r\n'));
    assert.ok(!text.includes('"'), 'ids, timestamps, grades and numbers need no quotes');
    const [header, ...rows] = parseCsv(text);
    assert.deepEqual(header, HEADER);
    const categories = (c: Record<string, { score: number }>) =>
      HEADER.slice(4).map((name) => (c[name] ? String(c[name].score) : ''));
    assert.deepEqual(rows, [
      [real.audit_id, real.completed_at, String(real.score), real.grade, ...categories(real.categories)],
      ['aud_HISTCSVLEGACY000000000001', older.toISOString(), '71', 'C', '64', '100', '', '', '', ''],
      [
        'aud_HISTCSVBASIS0000000000001',
        new Date(older.getTime() - 1000).toISOString(),
        '',
        '',
        '',
        '',
        '',
        '',
        '',
        '5',
      ],
    ]);

    const json = await api('GET', `/v1/sites/${siteId}/history`, { key: account.testKey });
    assert.deepEqual(
      rows.map((r) => [r[0], r[1]]),
      json.body.data.map((e: { audit_id: string; completed_at: string }) => [e.audit_id, e.completed_at]),
      'the same audits in the same order as the JSON history',
    );

    // The typed client knows the download: its path, its filters and its text body.
    const client = createAuditClient({ baseUrl: `${(await getStack()).url}/v1`, apiKey: account.testKey });
    const typed = await client.GET('/sites/{site_id}/history.csv', {
      params: { path: { site_id: siteId }, query: { completed_before: real.completed_at } },
      parseAs: 'text',
    });
    assert.equal(typed.response.status, 200);
    assert.deepEqual(parseCsv(typed.data!), [HEADER, ...rows.slice(1)]);

    const filtered = parseCsv(
      await (
        await download(
          `/v1/sites/${siteId}/history.csv?completed_after=${encodeURIComponent(new Date(older.getTime() - 1000).toISOString())}&completed_before=${encodeURIComponent(real.completed_at)}`,
          account.testKey,
        )
      ).text(),
    );
    assert.deepEqual(
      filtered.slice(1).map((r) => r[0]),
      ['aud_HISTCSVLEGACY000000000001'],
      'both bounds exclusive',
    );
  });

  it('goes on across read chunks, audits completed at the same instant included', async () => {
    const account = await newAccount('pro');
    const domain = 'https://history-csv-many.example.com';
    const siteId = await createSite(account, domain);
    const { db } = await getStack();
    const base = Date.parse('2026-01-01T00:00:00.000Z');
    const rows = [];
    for (let i = 0; i < 2500; i++) {
      // Pairs share their completion time, so the keyset's tie-break on the id is exercised.
      const id = `aud_HISTCSVMANY${String(i).padStart(13, '0')}`;
      rows.push(
        await storedAudit(
          account,
          { id, domain, completedAt: new Date(base + Math.floor(i / 2) * 1000), score: i % 101, grade: 'B' },
          { basis: { security: { score: i % 101, weight: 30 } } },
        ),
      );
    }
    for (let i = 0; i < rows.length; i += 500) await db('audits').insert(rows.slice(i, i + 500));
    const text = await (await download(`/v1/sites/${siteId}/history.csv`, account.testKey)).text();
    const ids = parseCsv(text)
      .slice(1)
      .map((r) => r[0]);
    const expected = rows.map((r) => r.id).reverse();
    assert.equal(ids.length, 2500);
    assert.deepEqual(ids, expected, 'newest first, each audit once');
  });

  it("answers another workspace's site, the other environment and bad input with the error envelope", async () => {
    const account = await newAccount('pro');
    const siteId = await createSite(account, 'https://history-csv-errors.example.com');
    const stranger = await newAccount('pro');
    assertEnvelope(
      await api('GET', `/v1/sites/${siteId}/history.csv`, { key: stranger.testKey }),
      404,
      'site_not_found',
    );
    assertEnvelope(
      await api('GET', `/v1/sites/${siteId}/history.csv`, { key: account.liveKey }),
      404,
      'site_not_found',
    );
    assertEnvelope(
      await api('GET', '/v1/sites/site_nope%22%3Cx%3E/history.csv', { key: account.testKey }),
      404,
      'site_not_found',
    );
    assertEnvelope(
      await api('GET', `/v1/sites/${siteId}/history.csv?completed_after=yesterday`, { key: account.testKey }),
      400,
      'invalid_request',
      /completed_after must be a valid RFC 3339 timestamp/,
    );
    assertEnvelope(
      await api('GET', `/v1/sites/${siteId}/history.csv?limit=5`, { key: account.testKey }),
      400,
      'invalid_request',
      /query parameter limit is not allowed/,
    );
    assertEnvelope(
      await api('GET', `/v1/sites/${siteId}/history.csv?completed_before=%00`, { key: account.testKey }),
      400,
      'invalid_request',
      /control characters/,
    );
    const free = await newAccount('free');
    assertEnvelope(await api('GET', `/v1/sites/${siteId}/history.csv`, { key: free.testKey }), 403, 'tier_required');
    assertEnvelope(
      await api('GET', `/v1/sites/${siteId}/history.csv`, { key: 'svc_test_wrong' }),
      401,
      'invalid_api_key',
    );
  });
});
