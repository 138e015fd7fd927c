import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ROOT } from '../support/code-structure';

/**
 * One implementation per action (issue 26 item 5; docs/architecture.md, "Service modules"): keys,
 * webhooks, branding and sites each have a service module holding their rules and tier gate, and the
 * surfaces that offer the actions (the API's routes, the dashboard's pages, the admin CLI's commands)
 * call it. These tests read the code: a surface that imports a feature's storage or one of its rules
 * directly, or a tier check for these features outside their service modules, fails them.
 */

/** Where actions are offered: they validate a request's shape and present answers, nothing more. */
const SURFACES = ['src/api/routes/', 'src/dashboard/', 'src/admin/'];

/** What surfaces may not import: a feature's storage and its rules ('*': every value the module exports). */
const FORBIDDEN: Record<string, '*' | string[]> = {
  // keys (src/accounts/key-service.ts)
  'src/accounts/repository.ts': ['createApiKey', 'revokeApiKey', 'listApiKeys', 'storeKeyAllowlist', 'keyHolder'],
  'src/accounts/ip-allowlist.ts': '*',
  'src/accounts/keys.ts': ['generateApiKey', 'hashApiKey'],
  // webhooks (src/webhooks/service.ts, test-event.ts, recovery.ts)
  'src/webhooks/repository.ts': '*',
  'src/webhooks/signing.ts': '*',
  'src/webhooks/redelivery.ts': '*',
  'src/outbound/url-policy.ts': '*',
  // branding (src/reports/branding-service.ts)
  'src/reports/branding-repository.ts': '*',
  'src/reports/branding.ts': ['validateBranding', 'BrandingError', 'checkLogoGeometry'],
  'src/reports/logo-checks.ts': '*',
  'src/reports/pdf/index.ts': ['checkLogoEmbeds'],
  'src/reports/pdf/logo-check.ts': '*',
  // sites (src/sites/service.ts, reads.ts)
  'src/sites/repository.ts': '*',
  // share links (src/shares/service.ts)
  'src/shares/repository.ts': '*',
  'src/shares/access.ts': ['newShareToken', 'shareTokenHash', 'signShareAccess', 'checkShareAccess'],
  // notification channels (src/notifications/service.ts)
  'src/notifications/repository.ts': '*',
  'src/notifications/targets.ts': '*',
  // Comparing tiers is the gate's (src/accounts/tier-gate.ts), called by the service modules.
  'src/accounts/tiers.ts': ['tierAtLeast'],
};

/** The plan page shows what each tier unlocks: naming tiers is its subject, not a gate. */
const ALLOWED = ['src/dashboard/pages/plan.tsx → src/accounts/tiers.ts: tierAtLeast'];

/**
 * Where each feature's tier is checked (requireFeature / requireTier with its name): its service
 * modules; for sites also the schedule's firing (a downgraded account's runs are skipped), for
 * webhooks also the audit trigger's per-audit webhook_url.
 */
const GATES: Record<string, string[]> = {
  webhooks: ['src/webhooks/service.ts', 'src/audits/trigger.ts'],
  branding: ['src/reports/branding-service.ts'],
  ip_allowlists: ['src/accounts/key-service.ts'],
  sites: ['src/sites/service.ts', 'src/sites/reads.ts', 'src/sites/runs.ts'],
  shares: ['src/shares/service.ts'],
};

describe('one implementation per action', () => {
  const files = listSources(path.join(ROOT, 'src'));

  it('keeps API routes, dashboard pages and admin commands off the features’ storage and rules', () => {
    const found = files
      .filter((file) => SURFACES.some((dir) => file.startsWith(dir)))
      .flatMap((file) =>
        valueImports(file).flatMap(({ target, names }) => {
          const rule = FORBIDDEN[target];
          if (!rule) return [];
          return names.filter((name) => rule === '*' || rule.includes(name)).map((n) => `${file} → ${target}: ${n}`);
        }),
      );
    // Control: the scan sees the one import the rule allows, so an empty answer is not a blind scan.
    assert.deepEqual(
      found.filter((line) => ALLOWED.includes(line)),
      ALLOWED,
    );
    assert.deepEqual(
      found.filter((line) => !ALLOWED.includes(line)),
      [],
    );
  });

  it('checks each feature’s tier only in its service modules', () => {
    const gates: Record<string, string[]> = {};
    for (const file of files) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      for (const match of text.matchAll(/\brequire(?:Feature|Tier)\([^,()]+,\s*'(\w+)'/g)) {
        const feature = match[1]!;
        if (!(feature in GATES)) continue;
        gates[feature] = [...new Set([...(gates[feature] ?? []), file])].sort();
      }
    }
    assert.deepEqual(
      gates,
      Object.fromEntries(Object.entries(GATES).map(([feature, where]) => [feature, [...where].sort()])),
    );
  });

  it('gives the rules one home: only the service modules import them', () => {
    const importers = (target: string, name: string) =>
      files.filter((file) => valueImports(file).some((i) => i.target === target && i.names.includes(name))).sort();
    assert.deepEqual(importers('src/reports/branding.ts', 'validateBranding'), ['src/reports/branding-service.ts']);
    assert.deepEqual(importers('src/reports/logo-checks.ts', 'LogoChecks'), ['src/reports/branding-service.ts']);
    assert.deepEqual(importers('src/accounts/ip-allowlist.ts', 'parseAllowlist'), ['src/accounts/key-service.ts']);
    assert.deepEqual(importers('src/webhooks/signing.ts', 'generateWebhookSecret'), ['src/webhooks/service.ts']);
    assert.deepEqual(importers('src/notifications/targets.ts', 'checkChannelTarget'), ['src/notifications/service.ts']);
  });
});

const parsed = new Map<string, Array<{ target: string; names: string[] }>>();

/** The values a file imports (type-only imports carry no rule), per resolved module. */
function valueImports(file: string): Array<{ target: string; names: string[] }> {
  if (!parsed.has(file)) parsed.set(file, readImports(file));
  return parsed.get(file)!;
}

function readImports(file: string): Array<{ target: string; names: string[] }> {
  const absolute = path.join(ROOT, file);
  const source = ts.createSourceFile(absolute, fs.readFileSync(absolute, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: Array<{ target: string; names: string[] }> = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const clause = statement.importClause;
    if (!clause || clause.isTypeOnly) continue;
    const target = resolve(absolute, statement.moduleSpecifier.text);
    if (!target) continue;
    const names: string[] = [];
    if (clause.name) names.push('default');
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) names.push('*');
    if (bindings && ts.isNamedImports(bindings))
      for (const element of bindings.elements)
        if (!element.isTypeOnly) names.push((element.propertyName ?? element.name).text);
    found.push({ target, names });
  }
  return found;
}

function resolve(fromFile: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = path.resolve(path.dirname(fromFile), specifier);
  for (const candidate of [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')])
    if (fs.existsSync(candidate)) return path.relative(ROOT, candidate).split(path.sep).join('/');
  return null;
}

function listSources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listSources(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')
      ? [path.relative(ROOT, full).split(path.sep).join('/')]
      : [];
  });
}
