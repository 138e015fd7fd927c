import { RULE, scoreColor } from '../../reports/pdf/theme';
import { CATEGORIES, type Category } from '../../schemas/audit';
import { CATEGORY_LABELS } from './audits-labels';

/** One audit on the chart. */
export interface ChartPoint {
  auditId: string;
  completedAt: string;
  score: number;
}

const W = 640;
const H = 200;
const PAD = { left: 36, right: 12, top: 12, bottom: 28 };

/**
 * The score over time as server-rendered inline SVG (the CSP allows no inline script, and none is
 * needed): a line through the audits' scores, oldest left, each point a link to its audit with the
 * score and date as its accessible name. `points` oldest first.
 */
export function ScoreChart(props: { points: ChartPoint[]; auditHref: (auditId: string) => string }) {
  const { points } = props;
  if (points.length === 0) return <p>No completed audit yet: the chart starts with the first one.</p>;
  const x = (i: number) =>
    points.length === 1
      ? (PAD.left + W - PAD.right) / 2
      : PAD.left + (i * (W - PAD.left - PAD.right)) / (points.length - 1);
  const y = (score: number) => PAD.top + ((100 - score) * (H - PAD.top - PAD.bottom)) / 100;
  const first = points[0]!;
  const last = points[points.length - 1]!;
  const summary = `Score over the last ${points.length} audits, from ${first.score} on ${day(first.completedAt)} to ${last.score} on ${day(last.completedAt)}.`;
  return (
    <figure class="score-chart">
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="group" aria-labelledby="score-chart-caption">
        {[0, 50, 100].map((s) => (
          <g aria-hidden="true">
            <line x1={PAD.left} x2={W - PAD.right} y1={y(s)} y2={y(s)} stroke="#e5e7eb" stroke-width="1" />
            <text x={PAD.left - 6} y={y(s) + 4} text-anchor="end" font-size="11" fill="#4b5563">
              {s}
            </text>
          </g>
        ))}
        <polyline
          aria-hidden="true"
          fill="none"
          stroke="#1d4ed8"
          stroke-width="2"
          points={points.map((p, i) => `${x(i).toFixed(1)},${y(p.score).toFixed(1)}`).join(' ')}
        />
        {points.map((p, i) => (
          <a href={props.auditHref(p.auditId)} aria-label={`Score ${p.score} on ${day(p.completedAt)}`}>
            <circle
              cx={x(i).toFixed(1)}
              cy={y(p.score).toFixed(1)}
              r="5"
              fill="#1d4ed8"
              stroke="#ffffff"
              stroke-width="1.5"
            />
          </a>
        ))}
        <text x={PAD.left} y={H - 8} font-size="11" fill="#4b5563" aria-hidden="true">
          {day(first.completedAt)}
        </text>
        <text x={W - PAD.right} y={H - 8} font-size="11" fill="#4b5563" text-anchor="end" aria-hidden="true">
          {day(last.completedAt)}
        </text>
      </svg>
      <figcaption id="score-chart-caption">{summary}</figcaption>
    </figure>
  );
}

function day(iso: string): string {
  return iso.slice(0, 10);
}

/** One audit's score per category, for the charts per category (audits stored before bases have none). */
export interface CategoryPoint {
  auditId: string;
  completedAt: string;
  categories: Partial<Record<Category, number>>;
}

const SMALL = { w: 240, h: 64, pad: 6 };

/**
 * The score over time of each category, a small chart apiece in the report's score colours
 * (src/reports/pdf/theme.ts), each an image named by its first and last score; the numbers
 * themselves in a table beneath for anyone who wants them all. `points` oldest first.
 */
export function CategoryCharts(props: { points: CategoryPoint[] }) {
  const points = props.points.filter((p) => Object.keys(p.categories).length > 0);
  const present = CATEGORIES.filter((c) => points.some((p) => p.categories[c] !== undefined));
  if (present.length === 0) return null;
  return (
    <>
      <ul class="category-charts">
        {present.map((category) => (
          <li>
            <CategoryChart
              label={CATEGORY_LABELS[category]}
              series={points.flatMap((p) => {
                const score = p.categories[category];
                return score === undefined ? [] : [{ completedAt: p.completedAt, score }];
              })}
            />
          </li>
        ))}
      </ul>
      <details>
        <summary>Scores by category as a table</summary>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Audit completed</th>
                {present.map((c) => (
                  <th scope="col">{CATEGORY_LABELS[c]}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {[...points].reverse().map((p) => (
                <tr>
                  <th scope="row">{day(p.completedAt)}</th>
                  {present.map((c) => (
                    <td>{p.categories[c] ?? '—'}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </>
  );
}

function CategoryChart(props: { label: string; series: Array<{ completedAt: string; score: number }> }) {
  const { series } = props;
  const first = series[0]!;
  const last = series[series.length - 1]!;
  const x = (i: number) =>
    series.length === 1 ? SMALL.w / 2 : SMALL.pad + (i * (SMALL.w - 2 * SMALL.pad)) / (series.length - 1);
  const y = (score: number) => SMALL.pad + ((100 - score) * (SMALL.h - 2 * SMALL.pad)) / 100;
  const name =
    series.length === 1
      ? `${props.label}: ${last.score} on ${day(last.completedAt)}`
      : `${props.label} over ${series.length} audits: from ${first.score} on ${day(first.completedAt)} to ${last.score} on ${day(last.completedAt)}`;
  return (
    <>
      <p class="category-chart-label" aria-hidden="true">
        {props.label} <strong>{last.score}</strong>
      </p>
      <svg viewBox={`0 0 ${SMALL.w} ${SMALL.h}`} role="img" aria-label={name}>
        <rect width={SMALL.w} height={SMALL.h} fill="#f9fafb" />
        <line x1="0" x2={SMALL.w} y1={y(50)} y2={y(50)} stroke={RULE} stroke-width="1" />
        <polyline
          fill="none"
          stroke="#1d4ed8"
          stroke-width="2"
          points={series.map((p, i) => `${x(i).toFixed(1)},${y(p.score).toFixed(1)}`).join(' ')}
        />
        <circle
          cx={x(series.length - 1).toFixed(1)}
          cy={y(last.score).toFixed(1)}
          r="4"
          fill={scoreColor(last.score)}
        />
      </svg>
    </>
  );
}
