import { groupFindings } from '../../audits/finding-groups';
import { encodePositionCursor } from '../../presenters/position-cursor';
import { topIssues } from '../../reports/pdf/finding-order';
import type { Finding } from '../../schemas/audit';
import { CodeText } from '../components';
import { CATEGORY_LABELS, SEVERITY_LABELS } from './audits-labels';
import { SeverityMark } from './audit-visuals';

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
  const groups = groupFindings(props.findings);
  return (
    <section aria-labelledby="findings-heading">
      <h2 id="findings-heading">Findings</h2>
      {groups.length === 0 ? <p>No findings: every check passed.</p> : null}
      {groups.map((group) => (
        <section aria-labelledby={`findings-${group.category}`}>
          <h3 id={`findings-${group.category}`}>{CATEGORY_LABELS[group.category]}</h3>
          {group.bySeverity.map(({ severity, findings }) => (
            <>
              <h4>
                <SeverityMark severity={severity} /> {SEVERITY_LABELS[severity]} ({findings.length})
              </h4>
              <ul class="findings">
                {findings.map((finding) => (
                  <FindingItem finding={finding} auditBase={props.auditBase} auditId={props.auditId} />
                ))}
              </ul>
            </>
          ))}
        </section>
      ))}
    </section>
  );
}

function FindingItem(props: { finding: Finding; auditBase: string; auditId: string }) {
  const { finding } = props;
  const count = urlCount(finding);
  return (
    <li class={`finding severity-${finding.severity}`} id={finding.id}>
      <details>
        <summary>
          <SeverityMark severity={finding.severity} /> <span class="severity">{SEVERITY_LABELS[finding.severity]}</span>{' '}
          <CodeText text={finding.title} />
          {count > 1 ? <span class="hint"> · {count} URLs</span> : null}
        </summary>
        <p>
          <CodeText text={finding.message} />
        </p>
        <p>
          <strong>How to fix:</strong> <CodeText text={finding.recommendation} />
        </p>
        {finding.evidence ? (
          <p>
            <strong>Evidence:</strong> <code>{finding.evidence}</code>
          </p>
        ) : null}
        {finding.urls.length > 0 ? <FindingUrls {...props} count={count} /> : null}
        {finding.triage ? (
          <p>
            <strong>Triage:</strong> {finding.triage.status}
            {finding.triage.note ? ` — ${finding.triage.note}` : ''}
          </p>
        ) : null}
        <p class="analyzer-code">Check: {finding.analyzer}</p>
      </details>
    </li>
  );
}

/** The first INLINE_URLS of the finding's URLs; "Next" pages on through all of them (audit_finding_urls). */
function FindingUrls(props: { finding: Finding; auditBase: string; auditId: string; count: number }) {
  const { finding, count } = props;
  const shown = finding.urls.slice(0, INLINE_URLS);
  return (
    <>
      <p>
        <strong>Where:</strong>{' '}
        {count > shown.length
          ? `${count} URLs, the first ${shown.length} here:`
          : `${count === 1 ? '1 URL' : `${count} URLs`}:`}
      </p>
      <ul class="urls">
        {shown.map((url) => (
          <li>
            <code>{url}</code>
          </li>
        ))}
      </ul>
      {count > shown.length ? (
        <p class="pager">
          <a href={findingUrlsHref(props.auditBase, props.auditId, finding.id, shown.length)}>Next</a>
        </p>
      ) : null}
    </>
  );
}
