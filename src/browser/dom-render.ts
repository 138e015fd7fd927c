import { RENDER_TIMEOUT_MS } from './lighthouse';

/** A page's DOM once its scripts have run, or why it could not be had. */
export type DomRender = { status: 'rendered'; url: string; html: string } | { status: 'unrenderable'; reason: string };

/** Lighthouse's mobile screen (Moto G Power): the audited viewport, 412 px wide, no throttling. */
const MOBILE_SCREEN = { width: 412, height: 823, deviceScaleFactor: 1.75, mobile: true };
/** The network is idle once nothing was in flight for this long after the load event (as Puppeteer's networkidle0). */
const NETWORK_QUIET_MS = 500;
/** The rendered document read back at most (characters): a page's HTML, not a denial of service. */
const MAX_HTML_CHARS = 10_000_000;

/**
 * Renders `url` in a new tab of the Chromium listening on `port` (its DevTools protocol, over Node's
 * own WebSocket) at the audited mobile viewport, waits for the load event and a quiet network, and
 * reads the document back as HTML: the links and text a visitor with JavaScript sees. A page that
 * does not load within RENDER_TIMEOUT_MS is unrenderable; one that loads but never goes quiet (a
 * long poll) is read when the time is up. Throws only when the browser itself fails.
 */
export async function renderDom(port: number, url: string, timeoutMs = RENDER_TIMEOUT_MS): Promise<DomRender> {
  const deadline = Date.now() + timeoutMs;
  const target = (await (await fetch(`http://127.0.0.1:${port}/json/new?about:blank`, { method: 'PUT' })).json()) as {
    id: string;
    webSocketDebuggerUrl: string;
  };
  const session = await CdpSession.open(target.webSocketDebuggerUrl);
  try {
    const network = watchNetwork(session);
    const loaded = new Promise<void>((resolve) => session.on('Page.loadEventFired', () => resolve()));
    // An alert() would hold the page for ever.
    session.on('Page.javascriptDialogOpening', () => {
      session.send('Page.handleJavaScriptDialog', { accept: true }).catch(() => undefined);
    });
    await Promise.all([session.send('Page.enable'), session.send('Network.enable')]);
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
    const { result } = await session.send<{ result: { value?: { url: string; html: string } } }>('Runtime.evaluate', {
      expression: `({ url: location.href, html: (document.documentElement?.outerHTML ?? '').slice(0, ${MAX_HTML_CHARS}) })`,
      returnByValue: true,
    });
    if (!result.value) return { status: 'unrenderable', reason: 'the rendered document could not be read' };
    return { status: 'rendered', url: result.value.url, html: result.value.html };
  } finally {
    session.close();
    await fetch(`http://127.0.0.1:${port}/json/close/${target.id}`).catch(() => undefined);
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

/** One DevTools protocol session over a WebSocket: commands by id, events by method name. */
class CdpSession {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private readonly listeners = new Map<string, Array<(params: any) => void>>();

  private constructor(private readonly socket: WebSocket) {
    socket.addEventListener('message', (event) => this.receive(String(event.data)));
    socket.addEventListener('close', () => this.failAll(new Error('the browser closed the DevTools connection')));
  }

  static open(url: string): Promise<CdpSession> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.addEventListener('open', () => resolve(new CdpSession(socket)), { once: true });
      socket.addEventListener('error', () => reject(new Error('could not reach the browser')), { once: true });
    });
  }

  send<T = unknown>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  on(method: string, listener: (params: any) => void): void {
    const list = this.listeners.get(method) ?? [];
    list.push(listener);
    this.listeners.set(method, list);
  }

  close(): void {
    this.failAll(new Error('the DevTools session was closed'));
    this.socket.close();
  }

  private receive(data: string): void {
    const message = JSON.parse(data) as {
      id?: number;
      method?: string;
      params?: unknown;
      result?: unknown;
      error?: { message: string };
    };
    if (message.id !== undefined) {
      const call = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error) call?.reject(new Error(message.error.message));
      else call?.resolve(message.result);
    } else if (message.method)
      for (const listener of this.listeners.get(message.method) ?? []) listener(message.params);
  }

  private failAll(error: Error): void {
    for (const call of this.pending.values()) call.reject(error);
    this.pending.clear();
  }
}
