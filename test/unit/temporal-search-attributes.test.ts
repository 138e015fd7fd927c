import assert from 'node:assert/strict';
import * as keys from '../../workflows/contracts';
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

  it('builds the dev server --search-attribute flags', function () {
    assert.deepEqual(searchAttributeCliArgs(), [
      '--search-attribute', 'AuditStatus=Keyword',
      '--search-attribute', 'AuditDomain=Keyword',
      '--search-attribute', 'WorkspaceId=Keyword',
      '--search-attribute', 'AuditMode=Keyword',
    ]);
  });
});
