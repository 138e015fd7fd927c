import assert from 'node:assert/strict';
import { newPage, screenshot } from '../support/browser';
import { getStack } from '../support/stack';

describe('API reference at /docs (Redoc, our own assets)', function () {
  // Redoc parses and lays out the whole document in the page: slow on a loaded machine.
  this.timeout(180_000);

  it('renders every operation of /v1/openapi.json under its strict CSP, loading nothing from elsewhere', async () => {
    const { url } = await getStack();
    const document = (await (await fetch(`${url}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { summary: string }>>;
      webhooks: Record<string, { post: { summary: string } }>;
    };
    const summaries = Object.values(document.paths).flatMap((ops) => Object.values(ops).map((op) => op.summary));
    assert.ok(summaries.length >= 10, 'the document has operations to show');

    const page = await newPage();
    const foreign: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(url) && !/^(data|blob):/.test(request.url())) foreign.push(request.url());
    });
    page.on('console', (message) => {
      // Failed loads are judged by their responses below (the browser's own /favicon.ico is not ours to serve).
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        problems.push(message.text());
    });
    page.on('response', (answer) => {
      if (answer.status() >= 400 && new URL(answer.url()).pathname !== '/favicon.ico')
        problems.push(`${answer.status()} ${answer.url()}`);
    });
    page.on('pageerror', (err) => problems.push(err.message));

    const response = await page.goto('/docs');
    assert.equal(response?.status(), 200);
    assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self';/);
    await page.locator('h1', { hasText: 'Domain Audit API' }).waitFor({ timeout: 90_000 });
    // Redoc titles each operation's section with its summary (an h2).
    const headings = await page.locator('h2').allInnerTexts();
    for (const summary of summaries) assert.ok(headings.includes(summary), `the page shows the operation "${summary}"`);
    // The webhook events are described too (OpenAPI 3.1 `webhooks`), with their signature headers.
    for (const event of Object.values(document.webhooks)) {
      assert.ok(
        headings.some((h) => h.startsWith(event.post.summary)),
        `the page shows the event "${event.post.summary}"`,
      );
    }
    assert.ok((await page.getByText('webhook-signature').count()) >= 1, 'the signature headers are described');
    await screenshot(page, 'api-docs');
    assert.deepEqual(foreign, [], 'nothing is loaded from another origin');
    assert.deepEqual(problems, [], 'no script error and no CSP violation');
  });

  it('keeps the error reference at /docs/errors', async () => {
    const page = await newPage();
    const response = await page.goto('/docs/errors');
    assert.equal(response?.status(), 200);
    await page.getByRole('heading', { name: 'API error reference' }).waitFor();
    assert.ok((await page.locator('tr#invalid_api_key').count()) === 1);
  });

  it('answers an unknown asset under /docs with the JSON error envelope', async () => {
    const { url } = await getStack();
    const response = await fetch(`${url}/docs/assets/redoc.000000000000.js`);
    assert.equal(response.status, 404);
    const body = (await response.json()) as { error: { code: string } };
    assert.equal(typeof body.error.code, 'string');
  });
});
