import assert from 'node:assert/strict';
import { TIERS } from '../../src/schemas/audit';
import { ownerSessionCookie } from '../support/dashboard-session';
import { api, getStack, newAccount } from '../support/stack';

/** The text of each tier's card on the plan page, tags dropped. */
function tierCards(html: string): Map<string, string> {
  const cards = new Map<string, string>();
  for (const match of html.matchAll(/<section class="card" aria-labelledby="tier-(\w+)">([\s\S]*?)<\/section>/g))
    cards.set(match[1]!, match[2]!.replace(/<[^>]+>/g, '\n'));
  return cards;
}

/**
 * `/plan` (README "Tiers and limits") lists what each tier includes: `render: "all"` from the gate
 * POST /v1/audits applies, so the page and the API agree tier by tier.
 */
describe('dashboard: plan page', function () {
  this.timeout(60_000);

  it('lists "Render every page (render: all)" as included for exactly the tiers whose audits the API lets render every page', async () => {
    const account = await newAccount('pro');
    const { url } = await getStack();
    const page = await fetch(`${url}/plan`, { headers: { cookie: await ownerSessionCookie(account) } });
    assert.equal(page.status, 200);
    const cards = tierCards(await page.text());
    assert.deepEqual([...cards.keys()], [...TIERS]);

    const listed: Record<string, boolean> = {};
    const accepted: Record<string, boolean> = {};
    for (const tier of TIERS) {
      const text = cards.get(tier)!;
      const line = /^Render every page \(render: all\): (included|not included)$/m.exec(text);
      assert.ok(line, `${tier}: ${text}`);
      listed[tier] = line[1] === 'included';
      // A control in the same card: a feature line as the page has always shown them.
      assert.match(text, /^IP allowlists for API keys: (included|not included)$/m);
      const holder = await newAccount(tier);
      const response = await api('POST', '/v1/audits', {
        key: holder.testKey,
        body: { domain: 'https://plan-render.example.com', render: 'all' },
      });
      assert.ok([202, 403].includes(response.status), response.text);
      accepted[tier] = response.status === 202;
    }
    assert.deepEqual(listed, { free: false, pro: false, team: true, enterprise: true });
    assert.deepEqual(listed, accepted);
  });
});
