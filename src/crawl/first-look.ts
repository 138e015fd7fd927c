import { followRedirects, type FollowRedirectsResult, type OutboundRequestOptions } from '../outbound/client';
import { classifyOutboundError, type RedirectHop } from '../outbound/errors';
import type { CidrList } from '../outbound/policy';
import type { CrawlSnapshot, SnapshotPage } from '../analyzers/snapshot';
import { AuditFailure } from '../audits/failures';
import { decodeBodyText } from './decode';
import { robotsRules } from './robots';

const REQUEST_TIMEOUT_MS = 10_000;
const ROBOTS_MAX_BYTES = 500 * 1024;
const PAGE_MAX_BYTES = 5 * 1024 * 1024;

export interface FirstLookInput {
  origin: string;
  allow: CidrList;
  userAgent: string;
}

/**
 * The first live crawl: robots.txt and the home page (the full breadth-first crawl comes later).
 * Failures are classified as the audit failure codes the workflow retries on.
 */
export async function crawlFirstLook(input: FirstLookInput): Promise<CrawlSnapshot> {
  const base: Omit<OutboundRequestOptions, 'url' | 'maxBodyBytes'> = {
    timeoutMs: REQUEST_TIMEOUT_MS,
    allow: input.allow,
    userAgent: input.userAgent,
    allowInvalidTls: true,
  };
  const robotsUrl = `${input.origin}/robots.txt`;
  const robots = await fetchOrFail({ ...base, url: robotsUrl, maxBodyBytes: ROBOTS_MAX_BYTES, maxRedirects: 5 }, 'robots.txt');
  const robotsStatus = robots.response.status;
  if (robotsStatus === 429) throw new AuditFailure('target_rate_limited', `${robotsUrl} answered 429 Too Many Requests`);
  if (robotsStatus >= 500) throw new AuditFailure('domain_unreachable', `${robotsUrl} answered ${robotsStatus}: the site cannot be crawled now`);
  const robotsBody = decodeBodyText(robots.response, ROBOTS_MAX_BYTES);
  const homeUrl = `${input.origin}/`;
  if (!robotsRules(robotsUrl, robotsStatus, robotsBody).isAllowed(homeUrl)) {
    throw new AuditFailure('robots_disallowed', `robots.txt disallows ${homeUrl} for our crawler`);
  }

  const home = await fetchOrFail(
    { ...base, url: homeUrl, maxBodyBytes: PAGE_MAX_BYTES, headers: { accept: 'text/html,*/*;q=0.5', 'accept-encoding': 'br, gzip' } },
    'the home page',
  );
  if (home.response.status === 429) throw new AuditFailure('target_rate_limited', `${homeUrl} answered 429 Too Many Requests`);
  return {
    origin: input.origin,
    robots: { kind: 'fetched', url: robotsUrl, status: robotsStatus, body: robotsBody },
    pages: [toSnapshotPage(homeUrl, home)],
    ...(input.origin.startsWith('https:') && home.response.tls
      ? { tls: { ok: true as const, facts: { httpsAvailable: true, protocols: [home.response.tls.protocol] } } }
      : {}),
  };
}

async function fetchOrFail(options: OutboundRequestOptions & { maxRedirects?: number }, what: string): Promise<FollowRedirectsResult> {
  try {
    return await followRedirects(options);
  } catch (err) {
    const kind = classifyOutboundError(err);
    const reason = kind === 'other' ? (err as Error).message : `${kind} error: ${(err as Error).message}`;
    throw new AuditFailure('domain_unreachable', `could not fetch ${what} (${options.url}): ${reason}`);
  }
}

function toSnapshotPage(url: string, result: FollowRedirectsResult): SnapshotPage {
  const { response, chain } = result;
  const contentType = String(response.headers['content-type'] ?? '');
  const isText = /^(text\/|application\/(xhtml\+)?xml)/i.test(contentType) || contentType === '';
  return {
    url,
    finalUrl: result.finalUrl,
    status: response.status,
    headers: response.headers,
    body: isText ? decodeBodyText(response, PAGE_MAX_BYTES) : null,
    ttfbMs: Math.round(response.ttfbMs),
    bytes: response.body.length,
    depth: 0,
    redirectChain: chain.slice(0, -1).map((hop: RedirectHop) => ({ url: hop.url, status: hop.status, location: hop.location ?? null })),
  };
}
