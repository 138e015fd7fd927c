import type { LinkCheck, SiteStylesheet, SnapshotResource } from '../analyzers/snapshot';
import { OutboundError } from '../outbound/errors';
import { runPool } from './abort';
import { isSameSite, type CrawlContext } from './context';
import { decodeBodyText } from './decode';
import type { Frontier, Referrers } from './frontier';
import { CRAWL_LIMITS } from './limits';
import { crawlRequest, fetchWithBackoff } from './polite-fetch';

/** After the crawl: the subresources pages load and the link targets not crawled, checked for their status. */

export interface CheckedTargets {
  /** In the order the pages referenced them. */
  resources: SnapshotResource[];
  linkChecks: LinkCheck[];
  stylesheets: SiteStylesheet[];
}

/**
 * Every distinct resource and link target once: the per-host limiters keep the audited site at its
 * concurrency and every other host at the external one, so the pools here only bound the fan-out.
 * External resources count against the external check budget with the external links.
 */
export async function checkTargets(context: CrawlContext, frontier: Frontier): Promise<CheckedTargets> {
  const checked: CheckedTargets = { resources: [], linkChecks: [], stylesheets: [] };
  let externalLeft = Math.max(0, (context.input.externalCheckBudget ?? Infinity) - frontier.externalLinks.size);
  const resourceList = [...frontier.resourceRefs].filter(([url]) => isSameSite(context, url) || externalLeft-- > 0);
  const report = progressReporter(context, frontier);
  await runPool(context.aborter, resourceList, CHECK_POOL, async ([url, ref]) => {
    await checkResource(context, url, ref, checked);
    report();
  });
  const crawledUrls = frontier.crawledUrls();
  const linkList = [...frontier.uncrawled, ...frontier.externalLinks].filter(([url]) => !crawledUrls.has(url));
  await runPool(context.aborter, linkList, CHECK_POOL, async ([url, ref]) => {
    const status = await finalStatus(context, url);
    checked.linkChecks.push({ url, status, foundOn: ref.foundOn, linkedFrom: ref.linkedFrom, kind: 'page' });
    report();
  });
  for (const unreachable of frontier.unreachablePages) checked.linkChecks.push(unreachable);
  const order = new Map(resourceList.map(([url], index) => [url, index]));
  checked.resources.sort((a, b) => (order.get(a.url) ?? 0) - (order.get(b.url) ?? 0));
  return checked;
}

export async function checkResource(
  context: CrawlContext,
  url: string,
  ref: { kind: SnapshotResource['kind'] } & Referrers,
  checked: CheckedTargets,
): Promise<void> {
  try {
    const { result } = await fetchWithBackoff(
      context,
      crawlRequest(context, url, CRAWL_LIMITS.resourceMaxBytes, { accept: '*/*' }),
    );
    const response = result.response;
    // A truncated body is counted at its declared size, so heavy resources stay visible.
    const declared = Number(response.headers['content-length']);
    const bytes =
      response.truncated && Number.isFinite(declared) && declared > response.body.length
        ? declared
        : response.body.length;
    checked.resources.push({
      url,
      status: response.status,
      headers: response.headers,
      bytes,
      ...(ref.kind ? { kind: ref.kind } : {}),
      foundOn: ref.foundOn,
      linkedFrom: ref.linkedFrom,
    });
    // The site's own CSS says which elements it hides or sizes; the analyzers read it (page-css.ts).
    if (ref.kind === 'stylesheet' && response.status < 300 && isSameSite(context, url))
      checked.stylesheets.push({ url, text: decodeBodyText(response, CRAWL_LIMITS.stylesheetMaxChars) });
    if (response.status >= 400)
      checked.linkChecks.push({ url, status: response.status, ...referrers(ref), kind: 'resource' });
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    checked.linkChecks.push({ url, status: null, ...referrers(ref), kind: 'resource' });
  }
}

/** Checks in flight at most across hosts (each host also holds to its own limit). */
export const CHECK_POOL = 16;

/** The crawl's progress during the checks: the pages stay counted, the phase says what runs. */
function progressReporter(context: CrawlContext, frontier: Frontier): () => void {
  let lastAt = 0;
  return () => {
    const now = Date.now();
    if (now - lastAt < 250) return;
    lastAt = now;
    context.input.onProgress?.({
      phase: 'checking',
      pagesCrawled: frontier.pageCount,
      pagesDiscovered: frontier.pagesDiscovered,
    });
  };
}

function referrers(ref: Referrers): Referrers {
  return { foundOn: ref.foundOn, linkedFrom: ref.linkedFrom };
}

/** Final status of a URL after redirects (HEAD, GET when HEAD is refused); null when unreachable. */
export async function finalStatus(context: CrawlContext, url: string): Promise<number | null> {
  try {
    const head = await fetchWithBackoff(context, crawlRequest(context, url, 0, {}, 'HEAD'));
    const status = head.result.response.status;
    if (status !== 405 && status !== 501 && status !== 403) return status;
    const get = await fetchWithBackoff(context, crawlRequest(context, url, 1024));
    return get.result.response.status;
  } catch (error) {
    if (error instanceof OutboundError) return null;
    throw error;
  }
}
