import { ANALYZER_CODES } from '../src/analyzers/catalog';
import { syntheticAudit } from '../src/audits/synthetic';
import { assertValidAuditJson } from '../src/audits/validate-audit';
import { comparisonBasis } from '../src/monitoring/basis';
import { compareAudits, withMonitoring, type PreviousAudit, type Triage } from '../src/monitoring/comparison';
import { findingFingerprint } from '../src/monitoring/fingerprint';
import type { AuditJson, Finding } from '../src/schemas/audit';
import { syntheticInput } from '../test/support/synthetic-input';

/**
 * `npm run bench:comparison`: what comparing a 2,000-page audit with its predecessor costs when the
 * audit is stored (target < 50 ms). Each audit lists 2,000 crawled pages and 1,000 findings (every
 * analyzer of the catalog, some per resource) citing up to 400 pages each, as a big live crawl gives;
 * the predecessor differs by a tenth of its findings. Measured, median of RUNS after a warm-up:
 *   compare   compareAudits on the parsed audits (the pure part);
 *   store     what the activity adds per audit: JSON.parse of the previous audit's comparison basis
 *             (the jsonb column as pg hands it over), triage and comparison attached (withMonitoring),
 *             and this audit's own basis built and serialised;
 * Baselines in the same process: the same step reading the previous audit's whole stored JSON (what
 * audits stored before bases cost, and the design without them), serialising the audit
 * (JSON.stringify, which storing already pays) and a naive comparison (Array.includes, quadratic).
 */

const RUNS = 15;
const PAGES = 2000;
const FINDINGS = 1000;

function bigAudit(seed: number, auditId: string): AuditJson {
  const base = syntheticAudit(syntheticInput('https://www.shop-7.co.uk', { tier: 'enterprise', auditId }));
  const pages = Array.from({ length: PAGES }, (_, i) => ({
    ...base.crawl.pages[i % base.crawl.pages.length]!,
    url: `https://www.shop-7.co.uk/catalogue/item-${i}`,
  }));
  const template = base.findings[0]!;
  const findings: Finding[] = Array.from({ length: FINDINGS }, (_, i) => {
    const analyzer = ANALYZER_CODES[i % ANALYZER_CODES.length]!;
    // Every tenth finding is swapped between the two audits; a third name a resource of their own.
    const n = i % 10 === 0 ? i + seed * FINDINGS : i;
    const subject = n % 3 === 0 ? `resource-${n}` : '';
    const urls = Array.from({ length: 1 + (n % 400) }, (_, k) => pages[(n + k * 7) % PAGES]!.url);
    return {
      ...template,
      id: `fnd_${n.toString(36).padStart(10, '0')}`,
      fingerprint: findingFingerprint(analyzer, subject),
      analyzer,
      urls,
      evidence: `evidence ${n}`,
    };
  });
  const audit = { ...base, findings, crawl: { ...base.crawl, pages_crawled: PAGES, pages } };
  assertValidAuditJson(audit);
  return audit;
}

function naiveCompare(current: AuditJson, previous: PreviousAudit): { new: string[]; fixed: string[] } {
  const now = current.findings.map((f) => f.fingerprint);
  const before = previous.findings.map((f) => f.fingerprint!);
  return { new: now.filter((fp) => !before.includes(fp)), fixed: before.filter((fp) => !now.includes(fp)) };
}

function median(fn: () => unknown): number {
  fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

function main(): void {
  const previousAudit = bigAudit(1, 'aud_01JBENCHPREVIOUS00000000000');
  const current = bigAudit(2, 'aud_01JBENCHCURRENT000000000000');
  const stored = JSON.stringify(previousAudit);
  const previous: PreviousAudit = previousAudit;
  const triage = new Map<string, Triage>(
    current.findings.slice(0, 50).map((f) => [f.fingerprint, { status: 'ignored', note: null }]),
  );
  const c = compareAudits(current, previous, triage);
  const compare = median(() => compareAudits(current, previous, triage));
  const basis = JSON.stringify(comparisonBasis(previousAudit));
  const store = median(() => {
    const attached = withMonitoring(current, JSON.parse(basis) as PreviousAudit, triage);
    return JSON.stringify(comparisonBasis(attached));
  });
  const wholeJson = median(() => withMonitoring(current, JSON.parse(stored) as AuditJson, triage));
  const stringify = median(() => JSON.stringify(current));
  const naive = median(() => naiveCompare(current, previous));
  const mb = (Buffer.byteLength(stored) / 1e6).toFixed(1);
  const kb = (Buffer.byteLength(basis) / 1e3).toFixed(0);
  console.log(`audit: ${PAGES} pages, ${FINDINGS} findings; previous audit stored ${mb} MB, its basis ${kb} kB`);
  console.log(`comparison: ${c.new.length} new, ${c.fixed.length} fixed, ${c.unchanged} unchanged`);
  console.log(`compare (pure)                ${compare.toFixed(2)} ms`);
  console.log(
    `store step (basis + attach)   ${store.toFixed(2)} ms   target < 50 ms: ${store < 50 ? 'met' : 'MISSED'}`,
  );
  console.log(
    `baseline: whole previous JSON ${wholeJson.toFixed(2)} ms   ratio store/whole ${(store / wholeJson).toFixed(3)}`,
  );
  console.log(
    `baseline: JSON.stringify      ${stringify.toFixed(2)} ms   ratio store/stringify ${(store / stringify).toFixed(3)}`,
  );
  console.log(
    `baseline: naive compare       ${naive.toFixed(2)} ms   ratio compare/naive ${(compare / naive).toFixed(3)}`,
  );
}

main();
