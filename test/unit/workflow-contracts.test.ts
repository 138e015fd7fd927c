import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import * as workflows from '../../workflows';
import {
  auditSearchAttributes,
  auditWorkflowId,
  deliveryWorkflowId,
  redeliverSignal,
  reportWorkflowId,
} from '../../workflows/contracts';

const ROOT = path.resolve(__dirname, '../..');
const CONTRACTS_DIR = path.join(ROOT, 'workflows', 'contracts');
// Where starters and signallers live: they name workflows and signals through the contracts only.
const OUTSIDE_WORKFLOWS = ['src', 'activities', 'temporal', 'processes', 'bench'];
// What the workflow sandbox can load: the SDK's sandbox-safe packages and the contracts themselves.
const SANDBOX_SAFE = /^(@temporalio\/common|@temporalio\/workflow|\.\/[a-z-]+)$/;

describe('workflows/contracts', function () {
  it('imports values only from sandbox-safe modules (type-only imports are erased)', function () {
    const offending = listTs(CONTRACTS_DIR).flatMap((file) => {
      const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
      return source.statements
        .filter(
          (s): s is ts.ImportDeclaration | ts.ExportDeclaration =>
            ts.isImportDeclaration(s) || ts.isExportDeclaration(s),
        )
        .filter((s) => s.moduleSpecifier && ts.isStringLiteral(s.moduleSpecifier) && !isTypeOnly(s))
        .map((s) => (s.moduleSpecifier as ts.StringLiteral).text)
        .filter((specifier) => !SANDBOX_SAFE.test(specifier))
        .map((specifier) => `${path.relative(ROOT, file)} imports ${specifier}`);
    });
    assert.deepEqual(offending, []);
  });

  it('builds the workflow ids operators look workflows up by', function () {
    assert.equal(auditWorkflowId('aud_01J0000000000000000000000A'), 'aud_01J0000000000000000000000A');
    assert.equal(deliveryWorkflowId('dlv_abc'), 'dlv_abc');
    assert.equal(reportWorkflowId('aud_01J0000000000000000000000A', 3), 'report-aud_01J0000000000000000000000A-r3');
  });

  it('builds one audit search-attribute set, with a status only when given', function () {
    const audit = { domain: 'https://example.com', workspaceId: 'ws_1', mode: 'live' as const };
    const named = (status?: 'queued') =>
      auditSearchAttributes(audit, status).map(({ key, value }) => [key.name, value]);
    assert.deepEqual(named(), [
      ['AuditDomain', 'https://example.com'],
      ['WorkspaceId', 'ws_1'],
      ['AuditMode', 'live'],
    ]);
    assert.deepEqual(named('queued'), [['AuditStatus', 'queued'], ...named()]);
  });

  it('is how code outside workflows/ names workflow types and signals (no string literals)', function () {
    const names = [...Object.keys(workflows), redeliverSignal.name];
    const literal = new RegExp(`['"\`](${names.join('|')})['"\`]`);
    // Generated client types name the OpenAPI operations (`redeliver` among them), never a workflow.
    const sources = OUTSIDE_WORKFLOWS.flatMap((dir) => listTs(path.join(ROOT, dir))).filter(
      (f) => !f.endsWith('.gen.ts'),
    );
    const offending = sources.flatMap((file) =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${path.relative(ROOT, file)}:${i + 1}` }))
        // The API's OpenAPI operation `redeliver` shares the signal's name; it does not send it.
        .filter(({ line }) => literal.test(line) && !/operationId:/.test(line))
        .map(({ at, line }) => `${at} ${line.trim()}`),
    );
    assert.deepEqual(offending, []);
  });
});

function isTypeOnly(statement: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(statement)) return statement.isTypeOnly;
  return statement.importClause?.isTypeOnly ?? false;
}

function listTs(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listTs(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}
