import { groupFindings } from '../../audits/finding-groups';
import type { AnalyzerResult, AuditJson, Category, Finding } from '../../schemas/audit';
import { CATEGORY_LABELS, SEVERITY_LABELS, shortTime, statusLabel } from './audits-labels';
import { ProblemNotice, UpgradeNotice } from './audits-notices';

/** Where an audit without a result stands (the API's status envelope). */
export interface AuditStatusView {
  audit_id: string;
  domain: string;
  status: string;
  estimated_completion: string | null;
  /** Pages the running attempt has crawled so far, when it has reported any. */
  pages_crawled?: number | null;
  attempts?: number;
  error?: { code: string; message: string };
}

export interface AuditDetailProps {
  basePath: string;
  plansHref: string;
  status: AuditStatusView;
  /** The stored result once completed. */
  result: AuditJson | null;
  /** Whether the account's tier includes PDF reports (pro and up). */
  pdfAllowed: boolean;
}

/**
 * One audit: progress while it runs, the full result when completed, the error when failed. While
 * queued or running, the script re-fetches the page and swaps in #audit-state until it stops asking.
 */
export function AuditDetailPage(props: AuditDetailProps) {
  const { status, result } = props;
  const self = `${props.basePath}/audits/${status.audit_id}`;
  const inProgress = status.status === 'queued' || status.status === 'running';
  return (
    <>
      <p>
        <a href={`${props.basePath}/audits`}>All audits</a>
      </p>
      <div id="audit-state" data-poll={inProgress ? self : undefined}>
        <p>
          Status: <strong data-audit-status={status.status}>{statusLabel(status.status)}</strong>
        </p>
        {inProgress ? <AuditProgress status={status} self={self} /> : null}
        {status.status === 'failed' ? (
          <ProblemNotice
            message={`The audit failed after ${status.attempts ?? 1} attempt(s): ${status.error?.message ?? 'unknown error'}`}
          />
        ) : null}
        {result ? <CompletedAudit {...props} result={result} self={self} /> : null}
      </div>
    </>
  );
}

function AuditProgress(props: { status: AuditStatusView; self: string }) {
  const { status } = props;
  return (
    <section aria-labelledby="progress-heading">
      <h2 id="progress-heading">Progress</h2>
      <p aria-live="polite">
        {status.status === 'queued'
          ? 'Waiting for a worker to start the crawl.'
          : 'Crawling the site and running the checks.'}
        {status.status === 'running' && typeof status.pages_crawled === 'number' ? (
          <>
            {' '}
            <strong data-pages-crawled={status.pages_crawled}>
              {status.pages_crawled === 1 ? '1 page' : `${status.pages_crawled} pages`}
            </strong>{' '}
            crawled so far.
          </>
        ) : null}
        {status.estimated_completion ? (
          <>
            {' '}
            Expected to finish around{' '}
            <time dateTime={status.estimated_completion}>{shortTime(status.estimated_completion)}</time>.
          </>
        ) : null}
      </p>
      <p>
        <a href={props.self}>Refresh</a> (this page updates itself while the audit runs).
      </p>
    </section>
  );
}

function CompletedAudit(props: AuditDetailProps & { result: AuditJson; self: string }) {
  const { result } = props;
  return (
    <>
      <section aria-labelledby="score-heading" class="card">
        <h2 id="score-heading">Score</h2>
        <p class="score">
          <strong>{result.score}</strong> out of 100, grade <strong>{result.grade}</strong>
        </p>
        <p>
          Completed <time dateTime={result.completed_at}>{shortTime(result.completed_at)}</time> ·{' '}
          {result.crawl.pages_crawled} pages crawled · {result.findings.length} findings
        </p>
        <p class="actions">
          <a href={`${props.self}/json`} download>
            Download JSON
          </a>
          {props.pdfAllowed ? <a href={`${props.self}/pdf`}>Download PDF report</a> : null}
        </p>
        {props.pdfAllowed ? null : <UpgradeNotice feature="PDF reports" tier="pro" plansHref={props.plansHref} />}
      </section>
      <CategoryTable categories={result.categories} />
      <FindingsSection findings={result.findings} />
      <AnalyzerTable analyzers={result.analyzers} />
    </>
  );
}

function CategoryTable(props: { categories: AuditJson['categories'] }) {
  const rows = Object.entries(props.categories) as [Category, { score: number; weight: number }][];
  return (
    <section aria-labelledby="categories-heading">
      <h2 id="categories-heading">Categories</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Category</th>
            <th scope="col">Score</th>
            <th scope="col">Weight</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([category, { score, weight }]) => (
            <tr>
              <th scope="row">{CATEGORY_LABELS[category]}</th>
              <td>{score}</td>
              <td>{weight}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function FindingsSection(props: { findings: Finding[] }) {
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
                {SEVERITY_LABELS[severity]} ({findings.length})
              </h4>
              <ul class="findings">
                {findings.map((finding) => (
                  <FindingItem finding={finding} />
                ))}
              </ul>
            </>
          ))}
        </section>
      ))}
    </section>
  );
}

function FindingItem(props: { finding: Finding }) {
  const { finding } = props;
  return (
    <li class={`finding severity-${finding.severity}`}>
      <details>
        <summary>
          <span class="severity">{SEVERITY_LABELS[finding.severity]}</span> {finding.title}
        </summary>
        <p>{finding.message}</p>
        <p>
          <strong>How to fix:</strong> {finding.recommendation}
        </p>
        {finding.evidence ? (
          <p>
            <strong>Evidence:</strong> <code>{finding.evidence}</code>
          </p>
        ) : null}
        {finding.urls.length > 0 ? (
          <>
            <p>
              <strong>Pages:</strong>
            </p>
            <ul>
              {finding.urls.map((url) => (
                <li>
                  <code>{url}</code>
                </li>
              ))}
            </ul>
          </>
        ) : null}
        <p class="analyzer-code">Check: {finding.analyzer}</p>
      </details>
    </li>
  );
}

function AnalyzerTable(props: { analyzers: AnalyzerResult[] }) {
  return (
    <section aria-labelledby="analyzers-heading">
      <h2 id="analyzers-heading">Checks run</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Check</th>
            <th scope="col">Category</th>
            <th scope="col">Severity</th>
            <th scope="col">Result</th>
            <th scope="col">Passed</th>
          </tr>
        </thead>
        <tbody>
          {props.analyzers.map((analyzer) => (
            <tr>
              <th scope="row">
                {analyzer.title} <code>{analyzer.code}</code>
              </th>
              <td>{CATEGORY_LABELS[analyzer.category]}</td>
              <td>{SEVERITY_LABELS[analyzer.severity]}</td>
              <td>{ANALYZER_STATUS_LABELS[analyzer.status]}</td>
              <td>{Math.round(analyzer.score * 100)}%</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

const ANALYZER_STATUS_LABELS: Record<AnalyzerResult['status'], string> = {
  pass: 'Pass',
  warn: 'Warning',
  fail: 'Fail',
  not_applicable: 'Not applicable',
  error: 'Could not run',
};
