import { encodePositionCursor } from '../../presenters/position-cursor';
import { topIssues } from '../../reports/pdf/finding-order';
import type { Finding } from '../../schemas/audit';
import { CodeText } from '../components';
import { CATEGORY_LABELS, SEVERITY_LABELS } from './audits-labels';
import { SeverityMark } from './audit-visuals';
import { FindingItem, FindingsByCategory } from './finding-list';

/** URLs a finding shows on the audit page; "Next" goes on to the finding's own page of them. */
export const INLINE_URLS = 10;

/** How many URLs the finding names: its exact count, or as many as it lists (audits from before `count`). */
export function urlCount(finding: Finding): number {
  return Math.max(finding.count ?? 0, finding.urls.length);
}

/** Where the finding's URLs go on after the first `shown`: the API's cursor of that position. */
export function findingUrlsHref(auditBase: string, auditId: string, findingId: string, shown: number): string {
  const cursor = encodePositionCursor(['finding_urls', auditId, findingId], shown - 1);
  return `${auditBase}/findings/${findingId}?${new URLSearchParams({ cursor })}`;
}

/** The report's "Top five issues": the most severe, one per check, with how to fix each. */
export function TopIssues(props: { findings: readonly Finding[] }) {
  const top = topIssues(props.findings as Finding[], 5);
  return (
    <section aria-labelledby="top-heading">
      <h2 id="top-heading">Top five issues</h2>
      {top.length === 0 ? <p>No issues were found.</p> : null}
      <ol class="top-issues">
        {top.map((f) => (
          <li>
            <strong>
              <CodeText text={f.title} />
            </strong>{' '}
            <span class="hint">
              <SeverityMark severity={f.severity} /> {SEVERITY_LABELS[f.severity]}, {CATEGORY_LABELS[f.category]}
            </span>
            <br />
            <CodeText text={f.recommendation} />
          </li>
        ))}
      </ol>
    </section>
  );
}

export function FindingsSection(props: { findings: Finding[]; auditBase: string; auditId: string }) {
  return (
    <FindingsByCategory
      findings={props.findings}
      item={(finding) => <FindingEntry finding={finding} auditBase={props.auditBase} auditId={props.auditId} />}
    />
  );
}

/** A finding with its first INLINE_URLS URLs, "Next" on through all of them (audit_finding_urls), and its triage. */
function FindingEntry(props: { finding: Finding; auditBase: string; auditId: string }) {
  const { finding } = props;
  const count = urlCount(finding);
  const shown = finding.urls.slice(0, INLINE_URLS);
  return (
    <FindingItem finding={finding} count={count} shownUrls={shown}>
      {shown.length > 0 && count > shown.length ? (
        <p class="pager">
          <a href={findingUrlsHref(props.auditBase, props.auditId, finding.id, shown.length)}>Next</a>
        </p>
      ) : null}
      {finding.triage ? (
        <p>
          <strong>Triage:</strong> {finding.triage.status}
          {finding.triage.note ? ` — ${finding.triage.note}` : ''}
        </p>
      ) : null}
    </FindingItem>
  );
}
