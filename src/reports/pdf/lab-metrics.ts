import { metricRating, type LabMetricKey, type MetricRating } from '../../analyzers/lab-scoring';
import type { BrowserStageJson } from '../../schemas/audit';
import { CONTENT_WIDTH, MARGIN, MUTED, RULE, scoreColor, TEXT } from './theme';
import { fitted, type ReportWriter } from './writer';

/**
 * "Lab metrics": what the browser stage measured on each sampled page (docs/analyzers.md, "Browser
 * stage"), with each metric rated as Lighthouse rates it. Rating words are printed beside the colours,
 * so the table reads in black and white too. Audits made before the stage have no such section.
 */

const RATING_COLORS: Readonly<Record<MetricRating, string>> = {
  good: '#15803d',
  'needs-improvement': '#b45309',
  poor: '#b91c1c',
};

const RATING_LABELS: Readonly<Record<MetricRating, string>> = {
  good: 'good',
  'needs-improvement': 'needs work',
  poor: 'poor',
};

type MeasuredJson = Extract<BrowserStageJson['pages'][number], { status: 'measured' }>;

interface MetricColumn {
  key: LabMetricKey;
  title: string;
  value: (p: MeasuredJson) => number;
  format: (v: number) => string;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

const METRICS: readonly MetricColumn[] = [
  { key: 'fcp', title: 'FCP', value: (p) => p.fcp_ms, format: seconds },
  { key: 'lcp', title: 'LCP', value: (p) => p.lcp_ms, format: seconds },
  { key: 'tbt', title: 'TBT', value: (p) => p.tbt_ms, format: (v) => `${v} ms` },
  { key: 'cls', title: 'CLS', value: (p) => p.cls, format: (v) => v.toFixed(3) },
  { key: 'si', title: 'SI', value: (p) => p.speed_index_ms, format: seconds },
];

const PAGE_W = 160;
const SCORE_W = 48;
const METRIC_W = (CONTENT_WIDTH - PAGE_W - SCORE_W) / METRICS.length;
const ROW_H = 30;

export function writeLabMetrics(w: ReportWriter): void {
  const browser = w.report.audit.browser;
  if (!browser) return;
  const doc = w.doc;
  // Without sampled pages there is only a sentence to say: it follows the summary on its page.
  const none = browser.pages.length === 0;
  w.heading('Lab metrics', none ? 1 : 0, { newPage: !none });
  doc.font('body').fontSize(10).fillColor(TEXT).text(introText(browser), MARGIN.left, doc.y, { width: CONTENT_WIDTH });
  doc.moveDown(0.8);
  if (none) return;
  writeHeaderRow(w);
  for (const p of browser.pages) {
    if (doc.y + ROW_H > w.bottom) {
      doc.addPage();
      writeHeaderRow(w);
    }
    const y = doc.y;
    doc
      .font('body')
      .fontSize(8.5)
      .fillColor(TEXT)
      .text(fitted(doc, pathOf(p.url, w.report.audit.domain), PAGE_W - 8), MARGIN.left, y + 2, {
        width: PAGE_W - 8,
        lineBreak: false,
      });
    if (p.status === 'measured') writeMeasured(w, p, y);
    else
      doc
        .font('body')
        .fontSize(8.5)
        .fillColor(MUTED)
        .text(fitted(doc, `Could not be measured: ${p.reason}`, CONTENT_WIDTH - PAGE_W), MARGIN.left + PAGE_W, y + 2, {
          width: CONTENT_WIDTH - PAGE_W,
          lineBreak: false,
        });
    rule(w, y + ROW_H - 4, 0.5);
    doc.x = MARGIN.left;
    doc.y = y + ROW_H;
  }
  writeLegend(w);
}

function introText(b: BrowserStageJson): string {
  const measured = b.pages.filter((p) => p.status === 'measured').length;
  const method =
    'measured in a headless browser with Lighthouse’s method (mobile emulation, simulated slow 4G and CPU throttling), so the figures compare with PageSpeed Insights';
  if (b.pages.length === 0)
    return 'The browser stage did not run for this audit: the performance score comes from the checks of the pages’ HTML and headers.';
  if (b.performance_basis === 'lab')
    return `${measured} of ${b.pages.length} sampled pages were ${method}. The performance score (${b.performance_score}) is the mean of their Lighthouse performance scores; the other performance checks are recommendations.`;
  return `None of the ${b.pages.length} sampled pages could be rendered in the headless browser (reasons below), so the performance score comes from the checks of the pages’ HTML and headers.`;
}

function writeHeaderRow(w: ReportWriter): void {
  const doc = w.doc;
  const y = doc.y;
  doc.font('bold').fontSize(9).fillColor(MUTED);
  doc.text('Page', MARGIN.left, y, { width: PAGE_W, lineBreak: false });
  doc.text('Score', MARGIN.left + PAGE_W, y, { width: SCORE_W, lineBreak: false });
  METRICS.forEach((m, i) =>
    doc.text(m.title, MARGIN.left + PAGE_W + SCORE_W + i * METRIC_W, y, { width: METRIC_W, lineBreak: false }),
  );
  rule(w, y + 13, 0.8);
  doc.y = y + 18;
}

function writeMeasured(w: ReportWriter, p: MeasuredJson, y: number): void {
  const doc = w.doc;
  doc
    .font('bold')
    .fontSize(10)
    .fillColor(scoreColor(p.performance_score))
    .text(String(p.performance_score), MARGIN.left + PAGE_W, y + 1, { width: SCORE_W, lineBreak: false });
  METRICS.forEach((m, i) => {
    const x = MARGIN.left + PAGE_W + SCORE_W + i * METRIC_W;
    const v = m.value(p);
    const rating = metricRating(m.key, v);
    doc
      .font('bold')
      .fontSize(9)
      .fillColor(RATING_COLORS[rating])
      .text(m.format(v), x, y + 1, { width: METRIC_W, lineBreak: false });
    doc
      .font('body')
      .fontSize(7)
      .fillColor(MUTED)
      .text(RATING_LABELS[rating], x, y + 13, { width: METRIC_W, lineBreak: false });
  });
}

function writeLegend(w: ReportWriter): void {
  const doc = w.doc;
  w.ensure(40);
  doc.moveDown(0.6);
  doc
    .font('body')
    .fontSize(8.5)
    .fillColor(MUTED)
    .text(
      'Ratings as Lighthouse gives them: good, needs work (“needs improvement”) or poor. FCP: First Contentful Paint (good up to 1.8 s, poor over 3 s). LCP: Largest Contentful Paint (2.5 s / 4 s). TBT: Total Blocking Time (200 ms / 600 ms). CLS: Cumulative Layout Shift (0.1 / 0.25). SI: Speed Index (3.4 s / 5.8 s). A page’s score weighs TBT 30 %, LCP 25 %, CLS 25 %, FCP 10 % and SI 10 %, as Lighthouse 13 does.',
      MARGIN.left,
      doc.y,
      { width: CONTENT_WIDTH },
    );
  doc.fillColor(TEXT);
}

function rule(w: ReportWriter, y: number, width: number): void {
  w.doc
    .moveTo(MARGIN.left, y)
    .lineTo(MARGIN.left + CONTENT_WIDTH, y)
    .lineWidth(width)
    .strokeColor(RULE)
    .stroke();
}

function pathOf(url: string, domain: string): string {
  return url.startsWith(domain) ? url.slice(domain.length) || '/' : url;
}
