import { attr, metaHttpEquiv, truncate, type ParsedPage } from './parse';
import { headerValues } from './snapshot';
import { EVIDENCE_MAX, pageAnalyzer, pageIssues, type Issue } from './types';

/** Content Security Policy: parsing the enforced policies, and SEC_CSP_UNSAFE. */

/** One enforced policy: directive name (lower-case) → source list as written. */
export type CspPolicy = Map<string, string[]>;

/** Parses a serialized policy (CSP3 §2.2.1): `;`-separated directives, the first of a name wins. */
function parseCsp(text: string): CspPolicy {
  const policy: CspPolicy = new Map();
  for (const raw of text.split(';')) {
    const tokens = raw
      .trim()
      .split(/\s+/)
      .filter((t) => t !== '');
    if (tokens.length === 0) continue;
    const name = tokens[0]!.toLowerCase();
    if (!policy.has(name)) policy.set(name, tokens.slice(1));
  }
  return policy;
}

interface EnforcedPolicy {
  policy: CspPolicy;
  evidence: string;
}

/** Every enforced policy of the page: each CSP header (comma-separated policies) and each meta CSP. */
export function enforcedPolicies(p: ParsedPage): EnforcedPolicy[] {
  const out: EnforcedPolicy[] = [];
  for (const header of headerValues(p.page.headers, 'content-security-policy')) {
    for (const text of header.split(',')) {
      if (text.trim() === '') continue;
      out.push({ policy: parseCsp(text), evidence: `Content-Security-Policy: ${text.trim()}` });
    }
  }
  for (const m of metaHttpEquiv(p, 'content-security-policy')) {
    const content = (attr(m, 'content') ?? '').trim();
    if (content !== '')
      out.push({
        policy: parseCsp(content),
        evidence: `<meta http-equiv="Content-Security-Policy" content="${content}">`,
      });
  }
  return out;
}

const lower = (list: readonly string[]) => list.map((s) => s.toLowerCase());

/** The unsafe script sources a policy allows (script-src, else default-src); [] when it is safe. */
function scriptSourceProblems(policy: CspPolicy): string[] {
  const list = policy.get('script-src') ?? policy.get('default-src');
  const name = policy.has('script-src') ? 'script-src' : 'default-src';
  if (!list) return ['no script-src or default-src, so scripts may load from anywhere'];
  const src = lower(list);
  if (src.includes("'none'") && src.length === 1) return [];
  const hasNonceOrHash = src.some((s) => /^'(nonce|sha256|sha384|sha512)-/.test(s));
  const strictDynamic = src.includes("'strict-dynamic'");
  const problems: string[] = [];
  // CSP2+: 'unsafe-inline' is ignored when a nonce or hash is present.
  if (src.includes("'unsafe-inline'") && !hasNonceOrHash) problems.push(`${name} allows 'unsafe-inline'`);
  if (src.includes("'unsafe-eval'")) problems.push(`${name} allows 'unsafe-eval'`);
  // 'strict-dynamic' makes browsers ignore host and scheme sources.
  if (!strictDynamic) {
    if (src.includes('data:')) problems.push(`${name} allows data: URLs`);
    if (src.some((s) => s === 'http:' || s.startsWith('http://'))) problems.push(`${name} allows http: sources`);
    if (src.includes('*')) problems.push(`${name} allows any host (*)`);
  }
  return problems;
}

/** The object-src problem of a policy, if any ('none' directly or through default-src is fine). */
function objectSourceProblem(policy: CspPolicy): string | null {
  const obj = policy.get('object-src');
  if (obj) {
    const src = lower(obj);
    if (src.includes('*') || src.includes('data:') || src.some((s) => s === 'http:' || s.startsWith('http://'))) {
      return `object-src is permissive (${obj.join(' ')})`;
    }
    return null;
  }
  const def = policy.get('default-src');
  if (def && def.length === 1 && def[0]!.toLowerCase() === "'none'") return null;
  return "no object-src 'none'";
}

export const cspUnsafe = pageAnalyzer('SEC_CSP_UNSAFE', (p) => {
  if (!p.isHtml) return null;
  const policies = enforcedPolicies(p);
  if (policies.length === 0) return null; // SEC_CSP_MISSING covers it
  // Several enforced policies all apply: a source is allowed only when every policy allows it.
  const perPolicy = policies.map((e) => scriptSourceProblems(e.policy));
  let scriptProblems = perPolicy[0]!;
  for (const other of perPolicy.slice(1)) {
    scriptProblems = scriptProblems.filter((x) => other.some((y) => y.replace(/^\S+/, '') === x.replace(/^\S+/, '')));
  }
  const objectProblems = policies.map((e) => objectSourceProblem(e.policy));
  const objectProblem = objectProblems.every((o) => o !== null) ? objectProblems[0]! : null;
  const evidence = truncate(policies.map((e) => e.evidence).join(' | '), EVIDENCE_MAX);
  const issues: Issue[] = [];
  if (scriptProblems.length > 0) {
    issues.push({
      outcome: 'fail',
      message: `The Content Security Policy does not stop injected scripts: ${scriptProblems.join('; ')}.`,
      evidence,
      subject: 'script-src',
    });
  }
  if (objectProblem) {
    issues.push({
      outcome: 'warn',
      message: `The Content Security Policy does not restrict plugins: ${objectProblem}.`,
      evidence,
      subject: 'object-src',
    });
  }
  return pageIssues(issues);
});
