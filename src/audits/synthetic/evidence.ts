import type { HtmlAnalyzerCode } from '../../analyzers/browser-analyzers';
import type { EvidenceFn } from './evidence-context';
import { DNS_EMAIL_EVIDENCE } from './evidence-dns-email';
import { PAGE_QUALITY_EVIDENCE } from './evidence-page-quality';
import { SECURITY_EVIDENCE } from './evidence-security';
import { SEO_EVIDENCE } from './evidence-seo';

/**
 * What a failed or warning check of the synthetic site reports: messages and evidence written the
 * way the real analyzers write theirs, with names, hosts and numbers drawn from the site. One file
 * per category; the type makes a missing analyzer a compile error.
 */
export const EVIDENCE: Readonly<Record<HtmlAnalyzerCode, EvidenceFn>> = {
  ...SECURITY_EVIDENCE,
  ...DNS_EMAIL_EVIDENCE,
  ...SEO_EVIDENCE,
  ...PAGE_QUALITY_EVIDENCE,
};
