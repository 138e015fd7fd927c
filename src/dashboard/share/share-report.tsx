import type { Branding } from '../../reports/branding';
import { displayDomain, displayUrl } from '../../reports/pdf/display-names';
import { formatDate, SAMPLE_NOTICE } from '../../reports/pdf/labels';
import type { AuditJson, Finding } from '../../schemas/audit';
import { TopIssues, urlCount } from '../pages/audit-findings';
import { CategoryBars, ScoreGauge, SeverityTiles } from '../pages/audit-visuals';
import { FindingItem, FindingsByCategory } from '../pages/finding-list';

/**
 * The body of a share page: the PDF report's sections in its order (src/reports/pdf: cover, summary
 * with category scores, counts by severity and top five issues, then the findings by category and
 * severity), drawn with the dashboard's pieces of that language (../pages/audit-visuals.tsx). Nothing
 * here links into the dashboard: a visitor has no account.
 */

/** URLs listed under a finding; the rest are counted (the full list is the owner's, in the dashboard or the API). */
const URLS_SHOWN = 10;

export interface ShareContext {
  branding: Branding;
  /** Whether the workspace set its own branding (else the neutral look, which names nobody). */
  branded: boolean;
  expiresAt: Date;
  /** The badge's path on this service, and its full URL when anyone may embed it (no password). */
  badgePath: string;
  publicBadgeUrl: string | null;
}

export function ShareReport(props: { audit: AuditJson; context: ShareContext }) {
  const { audit } = props;
  const domain = displayDomain(audit.domain).unicode;
  return (
    <>
      <main id="main" class="share-main">
        <p class="share-kicker">Website audit</p>
        <h1>{domain}</h1>
        <p class="share-meta">
          Audit completed {formatDate(new Date(audit.completed_at))} · {audit.crawl.pages_crawled} pages crawled ·{' '}
          {audit.findings.length} findings
        </p>
        {audit.mode === 'test' ? <p class="share-sample">{SAMPLE_NOTICE}</p> : null}
        <section aria-labelledby="summary-heading" class="card summary">
          <h2 id="summary-heading">Summary</h2>
          <div class="summary-figures">
            <ScoreGauge score={audit.score} grade={audit.grade} />
            <p>
              The site {domain} scored <strong>{audit.score}</strong> out of 100 (grade <strong>{audit.grade}</strong>).{' '}
              {audit.crawl.pages_crawled} pages were crawled and {audit.analyzers.length} checks were run; they found{' '}
              {audit.findings.length} issues.
            </p>
          </div>
        </section>
        <section aria-labelledby="categories-heading">
          <h2 id="categories-heading">Category scores</h2>
          <CategoryBars categories={audit.categories} />
        </section>
        <section aria-labelledby="severity-heading">
          <h2 id="severity-heading">Issues by severity</h2>
          <SeverityTiles findings={audit.findings} />
        </section>
        <TopIssues findings={audit.findings} />
        <ShareFindings findings={audit.findings} />
      </main>
      <ShareFooter context={props.context} />
    </>
  );
}

/** An audit without a result yet (or that failed): the band and the site, and where it stands. */
export function ShareStatus(props: { domain: string; status: string; context: ShareContext }) {
  const message =
    props.status === 'failed'
      ? 'This audit could not be completed. Ask whoever sent you this link for a new one.'
      : 'This audit is still running. The report appears here once it has completed: come back in a few minutes.';
  return (
    <>
      <main id="main" class="share-main">
        <p class="share-kicker">Website audit</p>
        <h1>{displayDomain(props.domain).unicode}</h1>
        <p class="notice">{message}</p>
      </main>
      <ShareFooter context={props.context} />
    </>
  );
}

/** The findings as the PDF lists them, each with its first URLS_SHOWN URLs (in Unicode) and no triage note. */
function ShareFindings(props: { findings: Finding[] }) {
  return (
    <FindingsByCategory
      findings={props.findings}
      item={(finding) => (
        <FindingItem
          finding={finding}
          count={urlCount(finding)}
          shownUrls={finding.urls.slice(0, URLS_SHOWN).map((url) => displayUrl(url))}
        />
      )}
    />
  );
}

function ShareFooter(props: { context: ShareContext }) {
  const { branding, branded, expiresAt, badgePath, publicBadgeUrl } = props.context;
  return (
    <footer class="share-footer">
      {branded ? <p class="share-prepared">Prepared by {branding.displayName}</p> : null}
      {branding.contactLine ? <p>{branding.contactLine}</p> : null}
      {branding.footerText ? <p>{branding.footerText}</p> : null}
      <p>This link works until {formatDate(expiresAt)}.</p>
      <div class="share-badge">
        <img src={`${badgePath}/badge.svg`} alt="Audit badge: grade and score" />
        {publicBadgeUrl ? (
          <span>
            Embed the badge: <code>{`![Website audit](${publicBadgeUrl})`}</code>
          </span>
        ) : null}
      </div>
    </footer>
  );
}
