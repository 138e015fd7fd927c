import type { BrowserPageResult, ConsoleError, LabMetrics, RenderedRuleId, RenderedViolation } from './stage-result';
import { RENDER_TIMEOUT_MS } from '../render-timeout';
import { storableText } from '../text/storable';

const METRIC_AUDITS: Record<keyof LabMetrics, string> = {
  fcpMs: 'first-contentful-paint',
  lcpMs: 'largest-contentful-paint',
  cls: 'cumulative-layout-shift',
  tbtMs: 'total-blocking-time',
  speedIndexMs: 'speed-index',
};
const RULES: RenderedRuleId[] = ['color-contrast', 'link-in-text-block', 'target-size'];

/**
 * Only the audits the stage reports: Lighthouse still gathers what they need (the trace for the
 * metrics, its axe-core run for the three rules, the console), and skips the rest of its work.
 */
const ONLY_AUDITS = [...Object.values(METRIC_AUDITS), ...RULES, 'errors-in-console'];

/** The parts of Lighthouse's result (LHR) read here. */
interface LhrAudit {
  score: number | null;
  numericValue?: number;
  errorMessage?: string;
  details?: { items?: Array<Record<string, any>> };
}
interface Lhr {
  runtimeError?: { code: string; message: string };
  audits: Record<string, LhrAudit | undefined>;
}
type LighthouseFn = (url: string, flags: Record<string, unknown>) => Promise<{ lhr: Lhr } | undefined>;

let lighthouseModule: Promise<LighthouseFn> | null = null;

/** Lighthouse 13 is an ES module: loaded once, on first use. */
export function loadLighthouse(): Promise<LighthouseFn> {
  lighthouseModule ??= import('lighthouse').then((m) => m.default as unknown as LighthouseFn);
  return lighthouseModule;
}

/**
 * One Lighthouse run (its defaults: mobile emulation, simulated throttling) of `url` in the
 * Chromium listening on `port`; what it measured, or why the page could not be rendered.
 */
export async function measureWithLighthouse(
  port: number,
  url: string,
  timeoutMs: number = RENDER_TIMEOUT_MS,
): Promise<BrowserPageResult> {
  const started = Date.now();
  const lighthouse = await loadLighthouse();
  const result = await lighthouse(url, {
    port,
    output: 'json',
    logLevel: 'error',
    onlyAudits: ONLY_AUDITS,
    maxWaitForFcp: timeoutMs,
    maxWaitForLoad: timeoutMs,
    // The full-page screenshot is only for Lighthouse's own report viewer.
    disableFullPageScreenshot: true,
  });
  if (!result) return { url, status: 'unrenderable', reason: 'Lighthouse returned no result' };
  return pageResult(url, result.lhr, Date.now() - started);
}

/** Maps Lighthouse's result to the stage's page result (exported for unit tests on stored results). */
export function pageResult(url: string, lhr: Lhr, durationMs: number): BrowserPageResult {
  if (lhr.runtimeError) return { url, status: 'unrenderable', reason: lhr.runtimeError.message };
  const metrics: Partial<LabMetrics> = {};
  for (const [key, id] of Object.entries(METRIC_AUDITS) as Array<[keyof LabMetrics, string]>) {
    const audit = lhr.audits[id];
    if (typeof audit?.numericValue !== 'number') {
      return {
        url,
        status: 'unrenderable',
        reason: `${id} could not be measured: ${audit?.errorMessage ?? 'no value'}`,
      };
    }
    metrics[key] = audit.numericValue;
  }
  return {
    url,
    status: 'measured',
    metrics: metrics as LabMetrics,
    violations: RULES.flatMap((rule) => violation(rule, lhr.audits[rule])),
    consoleErrors: consoleErrors(lhr.audits['errors-in-console']),
    durationMs,
  };
}

function violation(rule: RenderedRuleId, audit: LhrAudit | undefined): RenderedViolation[] {
  // score null: not applicable (no such elements); 1: passed.
  if (!audit || audit.score !== 0) return [];
  const nodes = (audit.details?.items ?? [])
    .map((item) => item.node)
    .filter((node) => node && typeof node.selector === 'string')
    .map((node) => ({
      selector: storableText(String(node.selector)),
      html: storableText(String(node.snippet ?? '')),
      message: storableText(String(node.explanation ?? node.nodeLabel ?? '')),
    }));
  return nodes.length ? [{ rule, nodes }] : [];
}

function consoleErrors(audit: LhrAudit | undefined): ConsoleError[] {
  return (audit?.details?.items ?? []).map((item) => {
    const source: ConsoleError['source'] =
      item.source === 'exception' ? 'exception' : item.source === 'network' ? 'network' : 'console';
    const url = item.sourceLocation?.url;
    // The page's own text (docs/decisions.md, "Bytes from outside"): a NUL or a lone surrogate is replaced.
    return {
      source,
      text: storableText(String(item.description ?? '')),
      ...(typeof url === 'string' && url ? { url } : {}),
    };
  });
}
