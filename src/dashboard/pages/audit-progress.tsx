import { shortTime } from './audits-labels';

/** The status envelope's `progress` (src/presenters/audits.ts), while a live audit runs and has reported. */
export interface ProgressView {
  phase: string;
  pages_crawled: number;
  pages_discovered: number;
}

const PHASES: Record<string, string> = {
  crawling: 'Crawling the site',
  checking: 'Checking links and resources',
  analyzing: 'Running the checks on the pages',
  rendering: 'Rendering sample pages in a browser',
};
const PHASE_ORDER = Object.keys(PHASES);

/**
 * Where a queued or running audit stands: while it crawls, a progress bar of pages crawled of pages
 * discovered (the API's status envelope, docs/decisions.md "Progress"); in the later phases a busy bar,
 * as they report no share done; the phase and the expected end. Without a
 * script the page shows the state of its request and a Refresh link; with dashboard.js the numbers
 * follow `{self}/status` in place, and the whole state is fetched again when the phase or status changes.
 */
export function AuditProgress(props: {
  status: string;
  progress?: ProgressView;
  pagesCrawled?: number | null;
  estimatedCompletion: string | null;
  self: string;
}) {
  const { progress } = props;
  const sentence = progressSentence(props);
  return (
    <section aria-labelledby="progress-heading" class="card">
      <h2 id="progress-heading">Progress</h2>
      {progress?.phase === 'crawling' ? (
        <div
          class="progress"
          role="progressbar"
          aria-label="Audit progress"
          aria-valuemin={0}
          aria-valuemax={progress.pages_discovered}
          aria-valuenow={progress.pages_crawled}
          aria-valuetext={sentence}
          data-phase={progress.phase}
        >
          <ProgressDrawing
            fraction={progress.pages_discovered ? progress.pages_crawled / progress.pages_discovered : 0}
          />
        </div>
      ) : (
        // Nothing measured to count: queued, or past the crawl (the later phases report no share done,
        // and a bar full of crawled pages would say the audit is done). A bar without a value, which
        // assistive technology reads as busy; the sentence says the phase.
        <div
          class="progress indeterminate"
          role="progressbar"
          aria-label="Audit progress"
          aria-valuetext={sentence}
          data-phase={progress?.phase}
        >
          <ProgressDrawing fraction={null} />
        </div>
      )}
      <p aria-live="polite" class="progress-text">
        <span data-progress-words>
          <ProgressWords {...props} />
        </span>
        {props.estimatedCompletion ? (
          <>
            {' '}
            Expected to finish around{' '}
            <time dateTime={props.estimatedCompletion}>{shortTime(props.estimatedCompletion)}</time>.
          </>
        ) : null}
      </p>
      <p>
        <a href={props.self}>Refresh</a> (this page updates itself while the audit runs).
      </p>
    </section>
  );
}

function ProgressDrawing(props: { fraction: number | null }) {
  const width = props.fraction === null ? 30 : Math.round(Math.min(1, Math.max(0, props.fraction)) * 1000) / 10;
  return (
    <svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
      <rect class="progress-track" width="100" height="10" />
      <rect class="progress-fill" width={width} height="10" />
    </svg>
  );
}

type Props = Parameters<typeof AuditProgress>[0];

/** The words of the progress sentence, its numbers marked for the script to update in place. */
function ProgressWords(props: Props) {
  const { progress } = props;
  if (props.status === 'queued') return <>Waiting for a worker to start the crawl.</>;
  if (!progress)
    return (
      <>
        Crawling the site and running the checks.
        {typeof props.pagesCrawled === 'number' ? (
          <>
            {' '}
            <strong data-pages-crawled={props.pagesCrawled}>
              {props.pagesCrawled === 1 ? '1 page' : `${props.pagesCrawled} pages`}
            </strong>{' '}
            crawled so far.
          </>
        ) : null}
      </>
    );
  return (
    <>
      {phaseWords(progress.phase)}:{' '}
      <strong data-pages-crawled={progress.pages_crawled}>{progress.pages_crawled}</strong> of{' '}
      <strong data-pages-discovered={progress.pages_discovered}>{progress.pages_discovered}</strong> discovered pages
      crawled.
    </>
  );
}

function phaseWords(phase: string): string {
  const step = PHASE_ORDER.indexOf(phase);
  return step < 0 ? phase : `${PHASES[phase]} (phase ${step + 1} of ${PHASE_ORDER.length})`;
}

/** The sentence as the bar's value text: what a screen reader says for the bar. */
function progressSentence(props: Props): string {
  const { progress } = props;
  if (props.status === 'queued') return 'Waiting for a worker to start the crawl';
  if (!progress) return 'Crawling the site and running the checks';
  return `${phaseWords(progress.phase)}: ${progress.pages_crawled} of ${progress.pages_discovered} discovered pages crawled`;
}
