import type { AnalyzerResult, AuditJson, Category } from '../../schemas/audit';
import { CodeText } from '../components';
import { FindingsSection, TopIssues } from './audit-findings';
import { AuditProgress, type ProgressView } from './audit-progress';
import { CategoryBars, ScoreGauge, SeverityTiles } from './audit-visuals';
import { CATEGORY_LABELS, SEVERITY_LABELS, shortTime, statusLabel } from './audits-labels';
import { ProblemNotice, UpgradeNotice } from './audits-notices';

/** Where an audit without a result stands (the API's status envelope). */
export interface AuditStatusView {
  audit_id: string;
  domain: string;
  status: string;
  estimated_completion: string | null;
  /** The running live attempt's phase and counts, once it has reported (the envelope's `progress`). */
  progress?: ProgressView;
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
 * queued or running, the script follows `{self}/status` (the API's status envelope) and swaps in
 * #audit-state from the page when the audit moves on (docs/dashboard.md).
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
      <div
        id="audit-state"
        data-poll={inProgress ? self : undefined}
        data-status={inProgress ? `${self}/status` : undefined}
      >
        <p>
          Status: <strong data-audit-status={status.status}>{statusLabel(status.status)}</strong>
        </p>
        {inProgress ? (
          <AuditProgress
            status={status.status}
            progress={status.progress}
            pagesCrawled={status.pages_crawled}
            estimatedCompletion={status.estimated_completion}
            self={self}
          />
        ) : null}
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

function CompletedAudit(props: AuditDetailProps & { result: AuditJson; self: string }) {
  const { result } = props;
  return (
    <>
      <section aria-labelledby="score-heading" class="card summary">
        <h2 id="score-heading">Score</h2>
        <div class="summary-figures">
          <ScoreGauge score={result.score} grade={result.grade} />
          <div>
            <p class="score">
              <strong>{result.score}</strong> out of 100, grade <strong>{result.grade}</strong>
            </p>
            <p>
              Completed <time dateTime={result.completed_at}>{shortTime(result.completed_at)}</time> ·{' '}
              {result.crawl.pages_crawled} pages crawled · {result.findings.length} findings
            </p>
            <p class="actions">
              <a href={`${props.self}/pages`}>Pages</a>
              <a href={`${props.self}/json`} download>
                Download JSON
              </a>
              {props.pdfAllowed ? <a href={`${props.self}/pdf`}>Download PDF report</a> : null}
            </p>
          </div>
        </div>
        {props.pdfAllowed ? null : <UpgradeNotice feature="PDF reports" tier="pro" plansHref={props.plansHref} />}
      </section>
      <CategorySection categories={result.categories} />
      <section aria-labelledby="severity-heading">
        <h2 id="severity-heading">Issues by severity</h2>
        <SeverityTiles findings={result.findings} />
      </section>
      <TopIssues findings={result.findings} />
      <FindingsSection findings={result.findings} auditBase={props.self} auditId={result.audit_id} />
      <AnalyzerTable analyzers={result.analyzers} />
    </>
  );
}

function CategorySection(props: { categories: AuditJson['categories'] }) {
  const rows = Object.entries(props.categories) as [Category, { score: number; weight: number }][];
  return (
    <section aria-labelledby="categories-heading">
      <h2 id="categories-heading">Categories</h2>
      <CategoryBars categories={props.categories} />
      <details>
        <summary>Scores and weights as a table</summary>
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
      </details>
    </section>
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
                <CodeText text={analyzer.title} /> <code>{analyzer.code}</code>
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
