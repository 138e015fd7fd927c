/**
 * The dashboard as a browser without a browser: plain HTTP with a cookie jar, the CSRF token of the
 * last page that carried one, our own Origin, and (for an API started with TRUST_PROXY) a client
 * address of the test's choosing through X-Forwarded-For, so throttles counted per address never
 * touch the address the other tests share.
 */
export interface PageAnswer {
  status: number;
  location: string | null;
  headers: Headers;
  text: string;
}

export class DashboardClient {
  private readonly cookies = new Map<string, string>();
  csrf = '';

  constructor(
    readonly baseUrl: string,
    readonly clientAddress?: string,
  ) {}

  get signedIn(): boolean {
    return !!this.cookies.get('dash_session');
  }

  async get(path: string): Promise<PageAnswer> {
    return this.send(path, { method: 'GET' });
  }

  /** A form POST; `_csrf` is the client's current token unless the fields name one. */
  async post(path: string, fields: Record<string, string>): Promise<PageAnswer> {
    const body = new URLSearchParams({ _csrf: this.csrf, ...fields }).toString();
    return this.send(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
    });
  }

  /** A POST of any body and content type, with the session's cookies and our Origin. */
  async postRaw(path: string, body: string | Blob, contentType: string): Promise<PageAnswer> {
    return this.send(path, { method: 'POST', headers: { 'Content-Type': contentType }, body });
  }

  /** Loads a page to pick up its CSRF token (and the double-submit cookie when signed out). */
  async open(path: string): Promise<PageAnswer> {
    const page = await this.get(path);
    if (page.status !== 200) throw new Error(`GET ${path}: ${page.status} ${page.text.slice(0, 200)}`);
    return page;
  }

  private async send(path: string, init: { method: string; headers?: Record<string, string>; body?: string | Blob }) {
    const headers: Record<string, string> = { Accept: 'text/html', Origin: this.baseUrl, ...init.headers };
    if (this.cookies.size) headers.Cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    if (this.clientAddress) headers['X-Forwarded-For'] = this.clientAddress;
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: init.method,
      headers,
      body: init.body,
      redirect: 'manual',
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (value && !/Max-Age=0\b/.test(cookie)) this.cookies.set(name, value);
      else this.cookies.delete(name);
    }
    const text = await response.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
    if (token) this.csrf = token;
    return { status: response.status, location: response.headers.get('location'), headers: response.headers, text };
  }
}

/** A client address no other test uses (TEST-NET and benchmark ranges, never routed). */
export function uniqueClientAddress(): string {
  const n = Math.floor(Math.random() * 2 ** 16);
  return `198.18.${n >> 8}.${n & 255}`;
}

/** The text of a page's alert or, for a status page, its message paragraph. */
export function pageMessage(html: string): string {
  const alert = /role="alert">(?:<p>)?([^<]*)</.exec(html)?.[1];
  if (alert) return decode(alert);
  const main = /<h1>([^<]*)<\/h1>\s*<p>([^<]*)<\/p>/.exec(html);
  return main ? decode(`${main[1]}: ${main[2]}`) : '';
}

function decode(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
