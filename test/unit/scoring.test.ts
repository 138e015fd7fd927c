import assert from 'node:assert/strict';
import { CATEGORY_WEIGHTS, SEVERITY_WEIGHTS } from '../../src/analyzers/catalog';
import {
  analyzerWeight,
  gradeFor,
  overallScore,
  roundScore,
  scoreAudit,
  scoreCategories,
  type ScorableAnalyzer,
} from '../../src/analyzers/scoring';

function a(
  category: ScorableAnalyzer['category'],
  severity: ScorableAnalyzer['severity'],
  status: ScorableAnalyzer['status'],
  score: number,
): ScorableAnalyzer {
  return { category, severity, status, score };
}

describe('scoring v1', () => {
  it('uses the published weights', () => {
    assert.deepEqual(SEVERITY_WEIGHTS, { critical: 10, high: 7, medium: 3, low: 1, info: 0 });
    assert.deepEqual(CATEGORY_WEIGHTS, {
      security: 25,
      seo: 25,
      performance: 15,
      accessibility: 15,
      best_practices: 10,
      dns_email: 10,
    });
    assert.equal(analyzerWeight('high', 'warn'), 7);
    assert.equal(analyzerWeight('critical', 'not_applicable'), 0);
    assert.equal(analyzerWeight('critical', 'error'), 0);
  });

  it('category score = round(100 × Σw·s / Σw)', () => {
    // (7·0.5 + 1·1 + 7·0) / (7 + 1 + 7) = 4.5 / 15 = 0.30
    const cats = scoreCategories([
      a('security', 'high', 'fail', 0.5),
      a('security', 'low', 'pass', 1),
      a('security', 'high', 'fail', 0),
    ]);
    assert.deepEqual(cats, { security: { score: 30, weight: 25 } });
    // (3·1 + 1·0.25) / 4 = 0.8125 → 81
    assert.deepEqual(scoreCategories([a('performance', 'medium', 'pass', 1), a('performance', 'low', 'fail', 0.25)]), {
      performance: { score: 81, weight: 15 },
    });
  });

  it('rounds halves up despite binary fractions', () => {
    // 100 × 3·0.565 / 3 is 56.49999999999999 in floating point; the rule means 56.5 → 57.
    assert.ok((100 * (3 * 0.565)) / 3 < 56.5);
    assert.deepEqual(scoreCategories([a('seo', 'medium', 'fail', 0.565)]), { seo: { score: 57, weight: 25 } });
    assert.deepEqual(scoreCategories([a('seo', 'critical', 'warn', 0.285)]), { seo: { score: 29, weight: 25 } });
    assert.equal(roundScore(84.5), 85);
    assert.equal(roundScore(84.49), 84);
    assert.equal(roundScore(0), 0);
  });

  it('not_applicable and error analyzers carry no weight', () => {
    const base = [a('seo', 'high', 'fail', 0.5), a('seo', 'low', 'pass', 1)];
    const withNa = [...base, a('seo', 'critical', 'not_applicable', 0), a('seo', 'medium', 'error', 0)];
    assert.deepEqual(scoreCategories(withNa), scoreCategories(base));
    // (3.5 + 1) / 8 = 0.5625 → 56
    assert.deepEqual(scoreCategories(base), { seo: { score: 56, weight: 25 } });
  });

  it('a failed critical analyzer caps its category at 49; a warning does not', () => {
    // Uncapped: (10·0.9 + 7·1) / 17 = 94.1 → 94, capped to 49.
    const failed = [a('seo', 'critical', 'fail', 0.9), a('seo', 'high', 'pass', 1)];
    assert.deepEqual(scoreCategories(failed), { seo: { score: 49, weight: 25 } });
    const warned = [a('seo', 'critical', 'warn', 0.9), a('seo', 'high', 'pass', 1)];
    assert.deepEqual(scoreCategories(warned), { seo: { score: 94, weight: 25 } });
    // The cap only lowers: an already lower score stays as it is.
    assert.deepEqual(scoreCategories([a('security', 'critical', 'fail', 0)]), { security: { score: 0, weight: 25 } });
    // A high-severity failure does not cap.
    assert.deepEqual(scoreCategories([a('security', 'high', 'fail', 0.9)]), { security: { score: 90, weight: 25 } });
  });

  it('categories without applicable weight are absent (including all-info categories)', () => {
    const cats = scoreCategories([
      a('seo', 'info', 'fail', 0), // SEO_LLMS_TXT alone: weight 0
      a('dns_email', 'info', 'pass', 1),
      a('dns_email', 'high', 'not_applicable', 0),
      a('accessibility', 'high', 'error', 0),
      a('performance', 'medium', 'pass', 1),
    ]);
    assert.deepEqual(cats, { performance: { score: 100, weight: 15 } });
    // An info analyzer next to weighted ones changes nothing.
    assert.deepEqual(scoreCategories([a('seo', 'info', 'fail', 0), a('seo', 'low', 'pass', 1)]), {
      seo: { score: 100, weight: 25 },
    });
  });

  it('overall = weighted mean of present categories, rounded', () => {
    // security 30 (25), seo 49 (25), performance 100 (15): (750 + 1225 + 1500) / 65 = 53.46 → 53
    const result = scoreAudit([
      a('security', 'high', 'fail', 0.5),
      a('security', 'low', 'pass', 1),
      a('security', 'high', 'fail', 0),
      a('seo', 'critical', 'fail', 0.9),
      a('seo', 'high', 'pass', 1),
      a('performance', 'medium', 'pass', 1),
    ]);
    assert.deepEqual(result, {
      categories: {
        security: { score: 30, weight: 25 },
        seo: { score: 49, weight: 25 },
        performance: { score: 100, weight: 15 },
      },
      score: 53,
      grade: 'F',
    });
    // 81·25 + 80·25 = 4025 / 50 = 80.5 → 81
    assert.equal(overallScore({ security: { score: 81, weight: 25 }, seo: { score: 80, weight: 25 } }), 81);
    // All six: (90·25 + 80·25 + 70·15 + 60·15 + 100·10 + 50·10) / 100 = 77.0
    assert.equal(
      overallScore({
        security: { score: 90, weight: 25 },
        seo: { score: 80, weight: 25 },
        performance: { score: 70, weight: 15 },
        accessibility: { score: 60, weight: 15 },
        best_practices: { score: 100, weight: 10 },
        dns_email: { score: 50, weight: 10 },
      }),
      77,
    );
  });

  it('an audit that measured nothing scores 0 (F)', () => {
    assert.deepEqual(scoreAudit([a('seo', 'high', 'not_applicable', 0)]), { categories: {}, score: 0, grade: 'F' });
    assert.deepEqual(scoreAudit([]), { categories: {}, score: 0, grade: 'F' });
  });

  it('grades by band', () => {
    const cases: [number, string][] = [
      [100, 'A+'],
      [97, 'A+'],
      [96, 'A'],
      [90, 'A'],
      [89, 'B'],
      [80, 'B'],
      [79, 'C'],
      [70, 'C'],
      [69, 'D'],
      [60, 'D'],
      [59, 'F'],
      [0, 'F'],
    ];
    for (const [score, grade] of cases) assert.equal(gradeFor(score), grade, String(score));
  });
});
