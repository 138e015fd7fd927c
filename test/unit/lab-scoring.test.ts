import assert from 'node:assert/strict';
import {
  LAB_CONTROL_POINTS,
  LAB_WEIGHTS,
  labPerformanceScore,
  metricRating,
  metricScore,
  siteLabScore,
  type LabMetricKey,
  type LabValues,
} from '../../src/analyzers/lab-scoring';
import { scoreAudit } from '../../src/analyzers/scoring';

/**
 * Our lab scoring against lighthouse@13.5.0 itself (installed as a dependency): its metric audits'
 * control points, its Util.computeLogNormalScore, its default config's weights and its category
 * arithmetic (ReportScoring.arithmeticMean), over a grid of metric values.
 */

interface LighthouseModules {
  computeLogNormalScore: (points: { p10: number; median: number }, value: number) => number;
  arithmeticMean: (items: { score: number; weight: number }[]) => number;
  controlPoints: Record<LabMetricKey, { p10: number; median: number }>;
  weights: Record<LabMetricKey, number>;
}

const AUDIT_OF: Record<LabMetricKey, string> = {
  fcp: 'first-contentful-paint',
  lcp: 'largest-contentful-paint',
  tbt: 'total-blocking-time',
  cls: 'cumulative-layout-shift',
  si: 'speed-index',
};

async function loadLighthouse(): Promise<LighthouseModules> {
  const lh = (p: string) => import(`lighthouse/${p}`) as Promise<Record<string, unknown>>;
  const util = (await lh('shared/util.js')).Util as LighthouseModules & object;
  const scoring = (await lh('core/scoring.js')).ReportScoring as {
    arithmeticMean: LighthouseModules['arithmeticMean'];
  };
  const config = (await lh('core/config/default-config.js')).default as {
    categories: { performance: { auditRefs: { id: string; weight: number }[] } };
  };
  const controlPoints = {} as LighthouseModules['controlPoints'];
  const weights = {} as LighthouseModules['weights'];
  for (const [key, id] of Object.entries(AUDIT_OF) as [LabMetricKey, string][]) {
    const audit = (await lh(`core/audits/metrics/${id}.js`)).default as {
      defaultOptions: { mobile?: { scoring: { p10: number; median: number } }; p10?: number; median?: number };
    };
    const o = audit.defaultOptions;
    controlPoints[key] = o.mobile ? o.mobile.scoring : { p10: o.p10!, median: o.median! };
    weights[key] = config.categories.performance.auditRefs.find((r) => r.id === id)!.weight;
  }
  return {
    computeLogNormalScore: util.computeLogNormalScore.bind(util),
    arithmeticMean: scoring.arithmeticMean.bind(scoring),
    controlPoints,
    weights,
  };
}

const GRID: Record<LabMetricKey, number[]> = {
  fcp: [0, 1, 500, 900, 1200, 1800, 1801, 2200, 2999, 3000, 3001, 4500, 8000, 20000],
  lcp: [0, 800, 1500, 2400, 2500, 2501, 3200, 4000, 4001, 6000, 12000, 40000],
  tbt: [0, 10, 50, 150, 199, 200, 201, 350, 600, 601, 1000, 2500, 9000],
  cls: [0, 0.001, 0.02, 0.05, 0.1, 0.1001, 0.17, 0.25, 0.2501, 0.4, 1, 3],
  si: [0, 1000, 2500, 3387, 3388, 4500, 5800, 5801, 8000, 15000],
};

describe('lab scoring (Lighthouse 13 performance score)', function () {
  this.timeout(60_000);
  let lh: LighthouseModules;

  before(async () => {
    lh = await loadLighthouse();
  });

  it("uses Lighthouse's mobile control points and weights", () => {
    assert.deepEqual({ ...LAB_CONTROL_POINTS }, lh.controlPoints);
    assert.deepEqual({ ...LAB_WEIGHTS }, lh.weights);
  });

  it("scores each metric exactly as Lighthouse's computeLogNormalScore", () => {
    for (const [key, values] of Object.entries(GRID) as [LabMetricKey, number[]][])
      for (const v of values)
        assert.equal(metricScore(key, v), lh.computeLogNormalScore(lh.controlPoints[key], v), `${key} ${v}`);
  });

  it('gives the page score Lighthouse gives for the same metrics', () => {
    // A deterministic spread of pages, from fast to very slow.
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let i = 0; i < 400; i++) {
      const values: LabValues = {
        fcp: Math.round(600 + next() * 6000),
        lcp: Math.round(900 + next() * 12000),
        tbt: Math.round(next() * 2500),
        cls: Math.round(next() * 0.6 * 10000) / 10000,
        si: Math.round(900 + next() * 12000),
      };
      const items = (Object.keys(values) as LabMetricKey[]).map((k) => ({
        score: lh.computeLogNormalScore(lh.controlPoints[k], values[k]),
        weight: lh.weights[k],
      }));
      // The report shows the category score ×100, rounded.
      assert.equal(labPerformanceScore(values), Math.round(lh.arithmeticMean(items) * 100), JSON.stringify(values));
    }
  });

  it('known pages: all good scores 100, all at the median scores 50, all very poor near 0', () => {
    assert.equal(labPerformanceScore({ fcp: 800, lcp: 1200, tbt: 0, cls: 0, si: 1000 }), 100);
    assert.equal(labPerformanceScore({ fcp: 3000, lcp: 4000, tbt: 600, cls: 0.25, si: 5800 }), 50);
    assert.ok(labPerformanceScore({ fcp: 15000, lcp: 30000, tbt: 8000, cls: 2, si: 30000 }) <= 2);
  });

  it('site score = mean of the measured pages, half up; none measured → null', () => {
    assert.equal(siteLabScore([]), null);
    assert.equal(siteLabScore([90]), 90);
    assert.equal(siteLabScore([90, 81]), 86); // 85.5 rounds up
    assert.equal(siteLabScore([100, 50, 0]), 50);
  });

  it('scoreAudit: a lab score replaces the performance category; without one, diagnostics score it', () => {
    const analyzers = [
      { category: 'performance', severity: 'medium', status: 'fail', score: 0 },
      { category: 'security', severity: 'high', status: 'pass', score: 1 },
    ] as const;
    assert.deepEqual(scoreAudit(analyzers).categories.performance, { score: 0, weight: 15 });
    const lab = scoreAudit(analyzers, 72);
    assert.deepEqual(lab.categories, { security: { score: 100, weight: 25 }, performance: { score: 72, weight: 15 } });
    assert.equal(lab.score, Math.floor((25 * 100 + 15 * 72) / 40 + 0.5));
    // A lab score stands even when no performance analyzer was applicable.
    assert.deepEqual(scoreAudit([analyzers[1]], 40).categories.performance, { score: 40, weight: 15 });
  });

  it('rates metrics good / needs improvement / poor at the control points', () => {
    assert.equal(metricRating('lcp', 2500), 'good');
    assert.equal(metricRating('lcp', 2501), 'needs-improvement');
    assert.equal(metricRating('lcp', 4000), 'needs-improvement');
    assert.equal(metricRating('lcp', 4001), 'poor');
    assert.equal(metricRating('cls', 0.1), 'good');
    assert.equal(metricRating('cls', 0.26), 'poor');
  });
});
