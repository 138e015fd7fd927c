import { syntheticAudit } from '../../src/audits/synthetic';
import type { Audit, Finding } from '../../src/cli/types';
import { syntheticInput } from './synthetic-input';

/** A realistic completed audit (the synthetic test-mode one) as the CLI receives it. */
export function cliAudit(domain = 'https://shop.example.com'): Audit {
  return syntheticAudit(syntheticInput(domain)) as Audit;
}

/** The audit with a comparison naming `fresh` as new (as the service attaches it when it stores an audit). */
export function withNew(audit: Audit, fresh: readonly Finding[]): Audit {
  return {
    ...audit,
    comparison: {
      previous_audit_id: 'aud_01JPREVIOUS000000000000000',
      previous_score: audit.score,
      score_delta: 0,
      categories: {},
      new: [...new Set(fresh.map((f) => f.fingerprint))],
      fixed: [],
      unchanged: audit.findings.length - fresh.length,
    },
  };
}

/** A finding whose every text field holds what breaks naive CSV, XML and JSON writers. */
export function hostileFinding(base: Finding): Finding {
  return {
    ...base,
    id: 'fnd_hostile',
    fingerprint: 'fp_hostile0000001',
    title: 'Title, with "quotes" & <angle> brackets',
    message: "Line one\r\nline two\twith a tab, a NUL \u0000, a bell \u0007 and ]]> and 'apostrophes'",
    recommendation: '=HYPERLINK("http://evil.example/","click") — escape formulas',
    evidence: '<script>alert("x")</script>\u001b[31m',
    urls: ['https://shop.example.com/a,b?q="1"&r=<2>', 'https://shop.example.com/ünïcode path'],
    count: 7,
  };
}
