import { createHash } from 'node:crypto';

/**
 * A finding's fingerprint (docs/decisions.md, Monitoring → Fingerprints): `fp_` + 13 base36
 * characters of sha256(rule version, analyzer code, subject). Two findings are the same problem when
 * their analyzer and subject are equal. The subject is what the finding is about, named by the
 * analyzer (src/analyzers/subject.ts): an element, a resource's address, a cookie or header, the kind
 * of problem — whatever tells its findings apart, so fingerprints are unique within an audit — or
 * the site itself (the empty subject) for an analyzer with one finding at most. A finding listing
 * pages keeps its fingerprint when a page is fixed or added. Never part of it: the title,
 * message, recommendation or evidence text, the severity, the list of URLs, or the finding's position.
 * Fingerprints are compared within one site (workspace, mode and domain), so the domain is not hashed.
 */

/** Bumped only if the rule itself changes; every fingerprint would then change once. */
const FINGERPRINT_RULE = 1;

export const FINGERPRINT_PATTERN = /^fp_[0-9a-z]+$/;

export function findingFingerprint(analyzer: string, subject = ''): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([FINGERPRINT_RULE, analyzer, normalizeSubject(subject)]))
    .digest();
  // 64 bits: a site holds a few hundred fingerprints at most, so a clash is practically impossible.
  return `fp_${digest.readBigUInt64BE(0).toString(36).padStart(13, '0')}`;
}

/** Surrounding or repeated white space never makes two subjects differ (case may: cookie names, paths). */
function normalizeSubject(subject: string): string {
  return subject.trim().replace(/\s+/g, ' ');
}
