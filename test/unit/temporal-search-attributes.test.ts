import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as keys from '../../temporal/search-attribute-keys';
import { SEARCH_ATTRIBUTES, searchAttributeCliArgs } from '../../temporal/search-attributes';

describe('temporal/search-attributes', function () {
  it('declares the four keyword attributes', function () {
    assert.deepEqual(SEARCH_ATTRIBUTES, {
      AuditStatus: 'Keyword',
      AuditDomain: 'Keyword',
      WorkspaceId: 'Keyword',
      AuditMode: 'Keyword',
    });
  });

  it('has typed workflow keys matching SEARCH_ATTRIBUTES one to one', function () {
    assert.deepEqual(
      { AUDIT_STATUS: keys.AUDIT_STATUS, AUDIT_DOMAIN: keys.AUDIT_DOMAIN, WORKSPACE_ID: keys.WORKSPACE_ID, AUDIT_MODE: keys.AUDIT_MODE },
      {
        AUDIT_STATUS: { name: 'AuditStatus', type: 'KEYWORD' },
        AUDIT_DOMAIN: { name: 'AuditDomain', type: 'KEYWORD' },
        WORKSPACE_ID: { name: 'WorkspaceId', type: 'KEYWORD' },
        AUDIT_MODE: { name: 'AuditMode', type: 'KEYWORD' },
      },
    );
    const fromKeys = Object.fromEntries(keys.SEARCH_ATTRIBUTE_KEYS.map((k) => [k.name, k.type]));
    const fromList = Object.fromEntries(Object.entries(SEARCH_ATTRIBUTES).map(([n, t]) => [n, t.toUpperCase()]));
    assert.deepEqual(fromKeys, fromList);
  });

  it('keeps the workflow-side keys free of Node imports (they run in the workflow sandbox)', function () {
    const source = readFileSync(path.join(__dirname, '../../temporal/search-attribute-keys.ts'), 'utf8');
    const imports = [...source.matchAll(/from\s+'([^']+)'|require\('([^']+)'\)/g)].map((m) => m[1] ?? m[2]);
    assert.deepEqual(imports, ['@temporalio/common']);
  });

  it('builds the dev server --search-attribute flags', function () {
    assert.deepEqual(searchAttributeCliArgs(), [
      '--search-attribute', 'AuditStatus=Keyword',
      '--search-attribute', 'AuditDomain=Keyword',
      '--search-attribute', 'WorkspaceId=Keyword',
      '--search-attribute', 'AuditMode=Keyword',
    ]);
  });
});
