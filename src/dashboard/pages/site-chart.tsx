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
