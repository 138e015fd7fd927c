import assert from 'node:assert/strict';
import * as keys from '../../workflows/contracts';
import { searchAttributeCliArgs } from '../../src/setup/temporal-dev-server';
import { SEARCH_ATTRIBUTES } from '../../temporal/search-attributes';

describe('temporal/search-attributes', function () {
  it('declares the four keyword attributes', function () {
    assert.deepEqual(SEARCH_ATTRIBUTES, {
      AuditStatus: 'Keyword',
      AuditDomain: 'Keyword',
      WorkspaceId: 'Keyword',
      AuditMode: 'Keyword',
    });
  });

  it('registers exactly the typed keys the workflows set', function () {
    assert.deepEqual(
      {
        AUDIT_STATUS: keys.AUDIT_STATUS,
        AUDIT_DOMAIN: keys.AUDIT_DOMAIN,
        WORKSPACE_ID: keys.WORKSPACE_ID,
        AUDIT_MODE: keys.AUDIT_MODE,
      },
      {
        AUDIT_STATUS: { name: 'AuditStatus', type: 'KEYWORD' },
        AUDIT_DOMAIN: { name: 'AuditDomain', type: 'KEYWORD' },
        WORKSPACE_ID: { name: 'WorkspaceId', type: 'KEYWORD' },
        AUDIT_MODE: { name: 'AuditMode', type: 'KEYWORD' },
      },
    );
    assert.deepEqual(
      Object.keys(SEARCH_ATTRIBUTES),
      keys.SEARCH_ATTRIBUTE_KEYS.map((key) => key.name),
    );
  });

  it('builds the dev server --search-attribute flags', function () {
    assert.deepEqual(searchAttributeCliArgs(), [
      '--search-attribute',
      'AuditStatus=Keyword',
      '--search-attribute',
      'AuditDomain=Keyword',
      '--search-attribute',
      'WorkspaceId=Keyword',
      '--search-attribute',
      'AuditMode=Keyword',
    ]);
  });
});
