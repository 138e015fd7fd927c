import type { GateOptions, GateResult } from './gate';
import { SEVERITIES, type Audit, type TriggerResponse } from './types';

/** The human-readable report (--format text, the default): what a developer reads in a CI log. */

const CATEGORY_NAMES: Record<string, string> = {
  security: 'security',
  seo: 'SEO',
  performance: 'performance',
  accessibility: 'accessibility',
  best_practices: 'best practices',
  dns_email: 'DNS/e-mail',
};

/** Findings listed with their URLs; more are summed up in one line. */
const LISTED_FINDINGS = 50;
const LISTED_URLS = 3;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function header(audit: Audit): string[] {
  const categories = Object.entries(audit.categories)
    .map(([name, c]) => `${CATEGORY_NAMES[name] ?? name} ${c.score}`)
    .join(' · ');
  const bySeverity = SEVERITIES.map((s) => [s, audit.findings.filter((f) => f.severity === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`);
  const lines = [
    `${audit.domain}: score ${audit.score} (${audit.grade})`,
    `audit ${audit.audit_id} · ${audit.mode} · tier ${audit.tier} · completed ${audit.completed_at}`,
    `categories: ${categories}`,
    `findings: ${audit.findings.length}${bySeverity.length ? ` (${bySeverity.join(', ')})` : ''}`,
  ];
  const c = audit.comparison;
  if (c) {
    const delta = c.score_delta > 0 ? `+${c.score_delta}` : String(c.score_delta);
    lines.push(
      `since ${c.previous_audit_id} (score ${c.previous_score}, ${delta}): ${c.new.length} new, ${c.fixed.length} fixed, ${c.unchanged} unchanged`,
    );
  } else lines.push('no previous audit of this domain to compare with');
  return lines;
}

function findingLines(audit: Audit, fresh: ReadonlySet<string>): string[] {
  const lines: string[] = [];
  for (const f of audit.findings.slice(0, LISTED_FINDINGS)) {
    const marks = [fresh.has(f.fingerprint) ? 'new' : '', f.triage ? f.triage.status : ''].filter(Boolean);
    lines.push(
      `  ${f.severity.toUpperCase().padEnd(8)} ${f.analyzer}  ${f.title}${marks.length ? ` [${marks.join(', ')}]` : ''}`,
    );
    const count = f.count ?? f.urls.length;
    for (const url of f.urls.slice(0, LISTED_URLS)) lines.push(`           ${url}`);
    if (count > LISTED_URLS && f.urls.length > 0) lines.push(`           … ${count - LISTED_URLS} more`);
  }
  if (audit.findings.length > LISTED_FINDINGS)
    lines.push(`  … ${plural(audit.findings.length - LISTED_FINDINGS, 'more finding')} (--format json lists all)`);
  return lines;
}

function gateLine(options: GateOptions, gate: GateResult): string | null {
  if (options.failUnder === undefined && options.failOnNew === undefined) return null;
  if (!gate.passed) return `gate: FAILED: ${gate.reasons.join('; ')}`;
  const checks: string[] = [];
  if (options.failUnder !== undefined) checks.push(`score at least ${options.failUnder}`);
  if (options.failOnNew !== undefined)
    checks.push(
      gate.compared ? `no new finding at or above ${options.failOnNew}` : 'no previous audit, so nothing is new',
    );
  return `gate: passed (${checks.join('; ')})`;
}

export function renderText(audit: Audit, options: GateOptions, gate: GateResult): string {
  const fresh = new Set(gate.newFindings.map((f) => f.fingerprint));
  const lines = [...header(audit)];
  if (audit.findings.length > 0) lines.push('', ...findingLines(audit, fresh));
  const verdict = gateLine(options, gate);
  if (verdict) lines.push('', verdict);
  return `${lines.join('\n')}\n`;
}

/** Without --wait: the audit was triggered, nothing more. */
export function renderQueued(trigger: TriggerResponse): string {
  return `audit ${trigger.audit_id} ${trigger.status}, estimated completion ${trigger.estimated_completion}\n`;
}
