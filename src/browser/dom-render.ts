import { CdpSession } from './cdp-session';
import { PageCheckError, runAxe, watchConsoleErrors } from './dom-checks';
import { RENDER_TIMEOUT_MS } from '../render-timeout';
import type { RenderedChecks } from './stage-result';

/**
 * A page's DOM once its scripts have run (with `checks`, its rendered-DOM checks too), or why it
 * could not be had.
 */
export type DomRender =
  | { status: 'rendered'; url: string; html: string; checks?: RenderedChecks }
  | { status: 'unrenderable'; reason: string };

/** Lighthouse's mobile screen (Moto G Power): the audited viewport, 412 px wide, no throttling. */
const MOBILE_SCREEN = { width: 412, height: 823, deviceScaleFactor: 1.75, mobile: true };
/** The network is idle once nothing was in flight for this long after the load event (as Puppeteer's networkidle0). */
const NETWORK_QUIET_MS = 500;
/** axe-core's run on one page at most (a typical page takes a few hundred milliseconds). */
const CHECKS_TIMEOUT_MS = 20_000;
/** The rendered document read back at most (characters): a page's HTML, not a denial of service. */
const MAX_HTML_CHARS = 10_000_000;

/**
 * Renders `url` in a new tab of the Chromium listening on `port` (its DevTools protocol, over Node's
 * own WebSocket) at the audited mobile viewport, waits for the load event and a quiet network, and
 * reads the document back as HTML: the links and text a visitor with JavaScript sees. A page that
 * does not load within RENDER_TIMEOUT_MS is unrenderable; one that loads but never goes quiet (a
 * long poll) is read when the time is up. With `checks` (`render: "all"`), the rendered-DOM checks
 * run on the page once it is quiet, before it is read (dom-checks.ts). Throws only when the browser
 * itself fails.
 */
export async function renderDom(
  port: number,
  url: string,
  options: { checks?: boolean; timeoutMs?: number } = {},
): Promise<DomRender> {
  const timeoutMs = options.timeoutMs ?? RENDER_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  const target = (await (await fetch(`http://127.0.0.1:${port}/json/new?about:blank`, { method: 'PUT' })).json()) as {
    id: string;
    webSocketDebuggerUrl: string;
  };
  const session = await CdpSession.open(target.webSocketDebuggerUrl);
  try {
    const network = watchNetwork(session);
    const consoleErrors = options.checks ? watchConsoleErrors(session) : null;
    const loaded = new Promise<void>((resolve) => session.on('Page.loadEventFired', () => resolve()));
    // An alert() would hold the page for ever.
    session.on('Page.javascriptDialogOpening', () => {
      session.send('Page.handleJavaScriptDialog', { accept: true }).catch(() => undefined);
    });
    await Promise.all([session.send('Page.enable'), session.send('Network.enable'), consoleErrors?.enable()]);
    await session.send('Emulation.setDeviceMetricsOverride', MOBILE_SCREEN);
    const late = {
      status: 'unrenderable',
      reason: `the page did not finish loading in ${timeoutMs / 1000} s`,
    } as const;
    const navigation = await beforeDeadline(session.send<{ errorText?: string }>('Page.navigate', { url }), deadline);
    if (navigation === LATE) return late;
    if (navigation.errorText)
      return { status: 'unrenderable', reason: `the page could not be loaded (${navigation.errorText})` };
    if ((await beforeDeadline(loaded, deadline)) === LATE) return late;
    while (!network.quiet() && Date.now() < deadline) await sleep(100);
    const checks = consoleErrors ? await checksOf(session, consoleErrors.errors) : undefined;
    if (checks && 'failed' in checks) return { status: 'unrenderable', reason: checks.failed };
    const { result } = await session.send<{ result: { value?: { url: string; html: string } } }>('Runtime.evaluate', {
      expression: `({ url: location.href, html: (document.documentElement?.outerHTML ?? '').slice(0, ${MAX_HTML_CHARS}) })`,
      returnByValue: true,
    });
    if (!result.value) return { status: 'unrenderable', reason: 'the rendered document could not be read' };
    return { status: 'rendered', url: result.value.url, html: result.value.html, ...(checks ? { checks } : {}) };
  } finally {
    session.close();
    await fetch(`http://127.0.0.1:${port}/json/close/${target.id}`).catch(() => undefined);
  }
}

/**
 * The rendered-DOM checks of the quiet page: axe's failing elements, and the errors logged from the
 * navigation until now; or why they could not be had (a page that breaks axe, or holds it past
 * CHECKS_TIMEOUT_MS: a DOM of millions of nodes). A failing browser still throws.
 */
async function checksOf(
  session: CdpSession,
  errors: () => RenderedChecks['consoleErrors'],
): Promise<RenderedChecks | { failed: string }> {
  try {
    const found = await beforeDeadline(runAxe(session), Date.now() + CHECKS_TIMEOUT_MS);
    if (found === LATE) return { failed: `the page's checks did not finish in ${CHECKS_TIMEOUT_MS / 1000} s` };
    return { ...found, consoleErrors: errors() };
  } catch (err) {
    if (err instanceof PageCheckError) return { failed: err.message };
    throw err;
  }
}

/** Requests in flight, and whether none has been for NETWORK_QUIET_MS. */
function watchNetwork(session: CdpSession): { quiet(): boolean } {
  const inFlight = new Set<string>();
  let lastChange = Date.now();
  const started = (p: { requestId: string }) => {
    inFlight.add(p.requestId);
    lastChange = Date.now();
  };
  const ended = (p: { requestId: string }) => {
    inFlight.delete(p.requestId);
    lastChange = Date.now();
  };
  session.on('Network.requestWillBeSent', started);
  session.on('Network.loadingFinished', ended);
  session.on('Network.loadingFailed', ended);
  return { quiet: () => inFlight.size === 0 && Date.now() - lastChange >= NETWORK_QUIET_MS };
}

const LATE = Symbol('late');

/** The promise's value, or LATE once the deadline has passed. */
async function beforeDeadline<T>(promise: Promise<T>, deadline: number): Promise<T | typeof LATE> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof LATE>((resolve) => (timer = setTimeout(() => resolve(LATE), deadline - Date.now())));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
