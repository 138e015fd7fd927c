import assert from 'node:assert/strict';
import { api, newAccount } from '../support/stack';
import { assertEnvelope } from '../support/envelope';

/** Every route behind a tier, with the name its tier_required message gives the feature. */
const GATED: Array<{ method: string; path: string; body?: unknown; feature: RegExp }> = [
  { method: 'POST', path: '/v1/webhooks', body: { url: 'not a url' }, feature: /^webhooks require the pro tier/ },
  { method: 'GET', path: '/v1/webhooks?limit=0', feature: /^webhooks require the pro tier/ },
  { method: 'DELETE', path: '/v1/webhooks/not-an-id', feature: /^webhooks require the pro tier/ },
  { method: 'GET', path: '/v1/webhooks/not-an-id/deliveries', feature: /^webhooks require the pro tier/ },
  {
    method: 'POST',
    path: '/v1/webhooks/not-an-id/deliveries/not-an-id/retry',
    feature: /^webhooks require the pro tier/,
  },
  { method: 'GET', path: '/v1/audits/not-an-id/pdf', feature: /^PDF reports require the pro tier/ },
  { method: 'GET', path: '/v1/branding', feature: /^Report branding require the pro tier/ },
  { method: 'PUT', path: '/v1/branding', body: { display_name: 1 }, feature: /^Report branding require the pro tier/ },
  { method: 'DELETE', path: '/v1/branding', feature: /^Report branding require the pro tier/ },
  {
    method: 'POST',
    path: '/v1/audits/not-an-id/shares',
    body: { expires_in_days: 0 },
    feature: /^Share links require the pro tier/,
  },
  { method: 'GET', path: '/v1/audits/not-an-id/shares', feature: /^Share links require the pro tier/ },
  { method: 'DELETE', path: '/v1/shares/not-an-id', feature: /^Share links require the pro tier/ },
];

describe('tier gates', () => {
  it('answer tier_required on every gated route before the request itself is looked at', async () => {
    const free = await newAccount('free');
    for (const route of GATED) {
      // Malformed ids, queries and bodies: a gate that ran after the handler began would answer 400 or 404.
      const response = await api(route.method, route.path, { key: free.testKey, body: route.body });
      assertEnvelope(response, 403, 'tier_required', new RegExp(`${route.feature.source}.*this account is on free$`));
    }
  });

  it('let the tier that includes the feature through to the handler', async () => {
    const pro = await newAccount('pro');
    for (const route of GATED) {
      const response = await api(route.method, route.path, { key: pro.testKey, body: route.body });
      // GET and DELETE /branding succeed; everything else is refused by the handler for what it sent.
      assert.notEqual(response.status, 403, `${route.method} ${route.path}: ${response.text}`);
      assert.ok([200, 204, 400, 404].includes(response.status), `${route.method} ${route.path}: ${response.text}`);
    }
  });
});
