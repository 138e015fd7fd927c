import assert from 'node:assert/strict';
import fs from 'node:fs';
import { generateClientTypes, SCHEMA_FILE } from '../../src/client/generate';

describe('typed client: generated types follow the OpenAPI document', function () {
  this.timeout(60_000);

  it('src/client/schema.gen.ts is what openapi-typescript makes of the current document', async () => {
    const fresh = await generateClientTypes();
    const committed = fs.readFileSync(SCHEMA_FILE, 'utf8');
    assert.ok(fresh.includes("'/audits/{audit_id}'"), 'the generated types name the API paths');
    assert.ok(
      fresh === committed,
      'src/client/schema.gen.ts is out of date with the OpenAPI document: run `npm run client:generate` and commit it',
    );
  });
});
