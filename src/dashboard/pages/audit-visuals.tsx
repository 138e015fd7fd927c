import { scoreColor, SEVERITY_COLORS, RULE, TEXT, MUTED } from '../../reports/pdf/theme';
import { CATEGORIES, SEVERITIES, type AuditJson, type Finding, type Severity } from '../../schemas/audit';
import { CATEGORY_LABELS, SEVERITY_LABELS } from './audits-labels';

/**
 * The PDF report's summary drawn for the web (src/reports/pdf/cover.ts and summary.ts): the score
 * gauge, a bar per category and a tile per severity, in the report's colours (its theme, one source).
 * Inline SVG, so nothing loads from anywhere and the CSP's `img-src 'self'` is enough; each figure is
 * an image with an accessible name that carries its numbers, since the drawing's own text is not read.
 */

/** The report's 270° gauge: a grey track, the score's arc in its colour, score and grade inside. */
export function ScoreGauge(props: { score: number; grade: string }) {
  const { score, grade } = props;
  const [cx, cy, r] = [100, 96, 78];
  const start = 135; // degrees clockwise from +x, as the report's dial (SVG's y grows downwards too)
  const sweep = 270;
  const point = (deg: number) => [cx + r * Math.cos((deg * Math.PI) / 180), cy + r * Math.sin((deg * Math.PI) / 180)];
  const arc = (from: number, to: number) => {
    const [x1, y1] = point(from);
    const [x2, y2] = point(to);
    return `M ${x1!.toFixed(2)} ${y1!.toFixed(2)} A ${r} ${r} 0 ${to - from > 180 ? 1 : 0} 1 ${x2!.toFixed(2)} ${y2!.toFixed(2)}`;
  };
  const color = scoreColor(score);
  return (
    <svg class="gauge" viewBox="0 0 200 196" role="img" aria-label={`Score ${score} out of 100, grade ${grade}`}>
      <path d={arc(start, start + sweep)} fill="none" stroke={RULE} stroke-width="16" stroke-linecap="round" />
      {score > 0 ? (
        <path
          d={arc(start, start + (sweep * Math.min(100, score)) / 100)}
          fill="none"
          stroke={color}
          stroke-width="16"
          stroke-linecap="round"
        />
      ) : null}
      <text x={cx} y={cy + 14} text-anchor="middle" font-size="48" font-weight="700" fill={TEXT}>
        {score}
      </text>
      <text x={cx} y={cy + 36} text-anchor="middle" font-size="12" fill={MUTED}>
        out of 100
      </text>
      <text x={cx} y={cy + r + 10} text-anchor="middle" font-size="20" font-weight="700" fill={color}>
        Grade {grade}
      </text>
    </svg>
  );
}

/** A bar per category present, in catalog order, filled to its score in the score's colour. */
export function CategoryBars(props: { categories: AuditJson['categories'] }) {
  const rows = CATEGORIES.flatMap((category) => {
    const entry = props.categories[category];
    return entry ? [{ category, score: entry.score }] : [];
  });
  return (
    <ul class="bars">
      {rows.map(({ category, score }) => (
        <li>
          <span class="bar-label" aria-hidden="true">
            {CATEGORY_LABELS[category]}
          </span>
          <svg
            class="bar"
            viewBox="0 0 100 12"
            preserveAspectRatio="none"
            role="img"
            aria-label={`${CATEGORY_LABELS[category]}: ${score} out of 100`}
          >
            <rect width="100" height="12" fill={RULE} />
            {score > 0 ? <rect width={Math.min(100, score)} height="12" fill={scoreColor(score)} /> : null}
          </svg>
          <span class="bar-value" aria-hidden="true">
            {score}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** Five tiles, critical to information, each with its number of findings, as the report's summary. */
export function SeverityTiles(props: { findings: readonly Finding[] }) {
  const counts = new Map<Severity, number>(SEVERITIES.map((s) => [s, 0]));
  for (const f of props.findings) counts.set(f.severity, counts.get(f.severity)! + 1);
  return (
    <ul class="tiles">
      {SEVERITIES.map((severity) => {
        const count = counts.get(severity)!;
        return (
          <li>
            <svg
              viewBox="0 0 120 86"
              role="img"
              aria-label={`${SEVERITY_LABELS[severity]}: ${count} ${count === 1 ? 'finding' : 'findings'}`}
            >
              <rect width="120" height="60" rx="6" fill={SEVERITY_COLORS[severity]} />
              <text x="60" y="41" text-anchor="middle" font-size="28" font-weight="700" fill="#ffffff">
                {count}
              </text>
              {/* Below the tile in the text colour: white on the lighter tiles would be too faint at this size. */}
              <text x="60" y="80" text-anchor="middle" font-size="15" fill={TEXT}>
                {SEVERITY_LABELS[severity]}
              </text>
            </svg>
          </li>
        );
      })}
    </ul>
  );
}

/** A small square in a severity's colour beside its words (never the colour alone). */
export function SeverityMark(props: { severity: Severity }) {
  return (
    <svg class="mark" viewBox="0 0 10 10" aria-hidden="true">
      <rect width="10" height="10" rx="2" fill={SEVERITY_COLORS[props.severity]} />
    </svg>
  );
}
