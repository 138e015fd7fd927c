import { readFileSync } from 'node:fs';
import { storableText } from '../text/storable';
import type { CdpSession } from './cdp-session';
import type { ConsoleError, NameRuleId, RenderedChecks, RenderedRuleId } from './stage-result';

/**
 * The rendered-DOM checks of a page the crawl renders with `render: "all"` (docs/analyzers.md,
 * "Browser stage"): the axe-core rules the stage reports and those naming controls and images, run in
 * the rendered page as Lighthouse runs them (an isolated world, so the page's own scripts neither see
 * nor disturb axe), and the errors the page logged while it loaded, collected as Lighthouse's
 * console-messages gatherer does.
 */

/** The names of controls and images, as A11Y_CONTROL_NAME_MISSING and A11Y_IMG_ALT_MISSING judge them. */
const NAME_RULES: NameRuleId[] = ['image-alt', 'input-image-alt', 'link-name', 'button-name', 'input-button-name'];
const RULES: RenderedRuleId[] = ['color-contrast', 'link-in-text-block', 'target-size', ...NAME_RULES];
/** Failing elements kept per rule and errors per page: the analyzers list at most 20 issues a page. */
const MAX_KEPT = 20;
/** Lighthouse's snippet length for an element's opening tag. */
const MAX_SNIPPET_CHARS = 500;
const MAX_MESSAGE_CHARS = 2_000;
/** Lighthouse leaves out requests a DevTools client blocked: nothing the site can act on. */
const IGNORED_ERROR = 'ERR_BLOCKED_BY_CLIENT.Inspector';

let axeSource: string | null = null;

/** axe-core's browser build, read once (the version package.json pins, as Lighthouse 13 bundles it). */
function axeScript(): string {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  return axeSource;
}

/**
 * Runs in the page: the rules, and each failing element as Lighthouse names it (its selector of up to
 * four levels and its opening tag, page-functions.js getNodeSelector and getOuterHTMLSnippet), so an
 * element keeps one identity, and one finding fingerprint, whichever way it was rendered; axe's
 * failure summary goes with it, for browser-analyzers.ts to word in our own terms.
 */
const RUN_AXE = `(async () => {
  const results = await axe.run(document, {
    runOnly: { type: 'rule', values: ${JSON.stringify(RULES)} },
    resultTypes: ['violations'],
    elementRef: true,
  });
  document.documentElement.scrollTop = 0;
  const part = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : el.classList.length ? '.' + el.classList[0] : '');
  const selectorOf = (el) => {
    const parts = [];
    while (parts.length < 4) {
      parts.unshift(part(el));
      if (!el.parentElement) break;
      el = el.parentElement;
      if (el.tagName === 'HTML') break;
    }
    return parts.join(' > ');
  };
  const opening = (el) => {
    const clone = el.cloneNode(false);
    el.ownerDocument.createElement('template').content.append(clone);
    for (const name of ['title', 'autofill-information', 'autofill-prediction']) clone.removeAttribute(name);
    for (const name of clone.getAttributeNames()) {
      const value = clone.getAttribute(name);
      if (value.length > 75) clone.setAttribute(name, value.slice(0, 74) + '\\u2026');
    }
    const html = clone.outerHTML;
    return (html.match(/^[\\s\\S]*?>/) || [html])[0].slice(0, ${MAX_SNIPPET_CHARS});
  };
  const inapplicable = new Set(results.inapplicable.map((r) => r.id));
  const violations = results.violations.map((v) => ({
    rule: v.id,
    nodes: v.nodes.slice(0, ${MAX_KEPT}).map((n) => {
      const el = n.element && n.element.nodeType === 1 ? n.element : null;
      return {
        selector: el ? selectorOf(el) : n.target.flat(Infinity).map(String).join(' '),
        html: el ? opening(el) : String(n.html || '').slice(0, ${MAX_SNIPPET_CHARS}),
        message: String(n.failureSummary || '').slice(0, ${MAX_MESSAGE_CHARS}),
      };
    }),
  }));
  return { violations, applied: ${JSON.stringify(NAME_RULES)}.filter((id) => !inapplicable.has(id)) };
})()`;

/** The stage's axe rules on the page's current DOM, in a world of their own, and which name rules applied. */
export async function runAxe(session: CdpSession): Promise<Omit<RenderedChecks, 'consoleErrors'>> {
  const { frameTree } = await session.send<{ frameTree: { frame: { id: string } } }>('Page.getFrameTree');
  const { executionContextId } = await session.send<{ executionContextId: number }>('Page.createIsolatedWorld', {
    frameId: frameTree.frame.id,
    worldName: 'domain-audit-checks',
  });
  await evaluate(session, executionContextId, axeScript());
  const found = (await evaluate(session, executionContextId, RUN_AXE)) as
    { violations: RenderedChecks['violations']; applied: NameRuleId[] } | undefined;
  // The page's own markup (docs/decisions.md, "Bytes from outside"): a NUL or a lone surrogate is replaced.
  const violations = (found?.violations ?? [])
    .filter((v) => RULES.includes(v.rule) && v.nodes.length > 0)
    .map((v) => ({
      rule: v.rule,
      nodes: v.nodes.map((n) => ({
        selector: storableText(n.selector),
        html: storableText(n.html),
        message: storableText(n.message),
      })),
    }));
  return { violations, nameRulesApplied: NAME_RULES.filter((id) => found?.applied.includes(id)) };
}

async function evaluate(session: CdpSession, contextId: number, expression: string): Promise<unknown> {
  const { result, exceptionDetails } = await session.send<{
    result: { value?: unknown };
    exceptionDetails?: { text: string; exception?: { description?: string } };
  }>('Runtime.evaluate', { expression, contextId, awaitPromise: true, returnByValue: true });
  if (exceptionDetails) throw new PageCheckError(exceptionDetails.exception?.description ?? exceptionDetails.text);
  return result.value;
}

/** The checks threw in the page (its own markup or scripts broke axe): the page's doing, not the browser's. */
export class PageCheckError extends Error {
  constructor(detail: string) {
    super(`the page's checks failed: ${detail.split('\n')[0]!.slice(0, 300)}`);
    this.name = 'PageCheckError';
  }
}

interface RemoteObject {
  type: string;
  subtype?: string;
  className?: string;
  value?: unknown;
  description?: string;
}

/** As Lighthouse prints a console argument. */
function remoteText(obj: RemoteObject): string {
  if (obj.value !== undefined || obj.type === 'undefined') return String(obj.value);
  if (typeof obj.description === 'string' && obj.description !== obj.className) return obj.description;
  return `[${obj.subtype ?? obj.type} ${obj.className ?? 'Object'}]`;
}

/**
 * Collects what Lighthouse's errors-in-console reports: `console.error` calls, uncaught exceptions
 * and the browser's own error entries (failed requests among them). Subscribed before navigation;
 * `enable` turns the domains on.
 */
export function watchConsoleErrors(session: CdpSession): { enable(): Promise<unknown>; errors(): ConsoleError[] } {
  const errors: ConsoleError[] = [];
  const add = (source: ConsoleError['source'], text: string, url: string | undefined) => {
    if (errors.length >= MAX_KEPT || text.includes(IGNORED_ERROR) || (source === 'network' && isFavicon(url))) return;
    errors.push({ source, text: storableText(text.slice(0, MAX_MESSAGE_CHARS)), ...(url ? { url } : {}) });
  };
  session.on('Runtime.consoleAPICalled', (e: { type: string; args?: RemoteObject[]; stackTrace?: Frames }) => {
    const text = (e.args ?? []).map(remoteText).join(' ');
    if (e.type === 'error' && (text || e.stackTrace)) add('console', text, e.stackTrace?.callFrames[0]?.url);
  });
  session.on('Runtime.exceptionThrown', (e: { exceptionDetails: ExceptionDetails }) => {
    const d = e.exceptionDetails;
    const text = d.exception ? d.exception.description : d.text;
    if (text) add('exception', text, d.url);
  });
  session.on('Log.entryAdded', (e: { entry: { source: string; level: string; text: string; url?: string } }) => {
    if (e.entry.level === 'error') add(e.entry.source === 'network' ? 'network' : 'console', e.entry.text, e.entry.url);
  });
  return {
    enable: () => Promise.all([session.send('Runtime.enable'), session.send('Log.enable')]),
    // Lighthouse lists them by their text.
    errors: () => [...errors].sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0)),
  };
}

/**
 * Chromium asks for /favicon.ico by itself, once per browser, whatever the page says: its failure
 * would land on whichever page a browser rendered first, so it is never the page's error.
 */
function isFavicon(url: string | undefined): boolean {
  try {
    return url !== undefined && new URL(url).pathname === '/favicon.ico';
  } catch {
    return false;
  }
}

interface Frames {
  callFrames: Array<{ url?: string }>;
}

interface ExceptionDetails {
  text: string;
  url?: string;
  exception?: { description?: string };
}
