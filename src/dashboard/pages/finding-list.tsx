import type { ComponentChildren } from 'preact';
import { groupFindings } from '../../audits/finding-groups';
import type { Finding } from '../../schemas/audit';
import { CodeText } from '../components';
import { CATEGORY_LABELS, SEVERITY_LABELS } from './audits-labels';
import { SeverityMark } from './audit-visuals';

/**
 * An audit's findings as the audit page and a share page list them (the PDF's order: by category,
 * then severity), one `<li>` each. What differs is passed in: which URLs a page shows and how it
 * writes them, and what follows them (the owner's "Next" and triage note; nothing for a visitor).
 */
export function FindingsByCategory(props: { findings: Finding[]; item: (finding: Finding) => ComponentChildren }) {
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
              <ul class="findings">{findings.map(props.item)}</ul>
            </>
          ))}
        </section>
      ))}
    </section>
  );
}

export function FindingItem(props: {
  finding: Finding;
  /** How many URLs the finding names in all. */
  count: number;
  /** The first of them, written as this page writes a URL. */
  shownUrls: string[];
  /** What follows the URLs, before the check's name. */
  children?: ComponentChildren;
}) {
  const { finding, count, shownUrls } = props;
  return (
    <li class={`finding severity-${finding.severity}`} id={finding.id}>
      <details>
        <summary>
          <SeverityMark severity={finding.severity} /> <span class="severity">{SEVERITY_LABELS[finding.severity]}</span>{' '}
          <CodeText text={finding.title} />
          {count > 1 ? <span class="hint"> · {count} URLs</span> : null}
        </summary>
        <FindingText finding={finding} />
        {finding.evidence ? (
          <p>
            <strong>Evidence:</strong> <code>{finding.evidence}</code>
          </p>
        ) : null}
        {shownUrls.length > 0 ? (
          <>
            <p>
              <strong>Where:</strong>{' '}
              {count > shownUrls.length
                ? `${count} URLs, the first ${shownUrls.length} here:`
                : `${count === 1 ? '1 URL' : `${count} URLs`}:`}
            </p>
            <ul class="urls">
              {shownUrls.map((url) => (
                <li>
                  <code>{url}</code>
                </li>
              ))}
            </ul>
          </>
        ) : null}
        {props.children}
        <p class="analyzer-code">Check: {finding.analyzer}</p>
      </details>
    </li>
  );
}

/** What a finding says and how to fix it, wherever a finding is shown. */
export function FindingText(props: { finding: Pick<Finding, 'message' | 'recommendation'> }) {
  return (
    <>
      <p>
        <CodeText text={props.finding.message} />
      </p>
      <p>
        <strong>How to fix:</strong> <CodeText text={props.finding.recommendation} />
      </p>
    </>
  );
}
