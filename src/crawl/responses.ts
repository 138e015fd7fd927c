import type { HeaderMap, RedirectHop } from '../analyzers/snapshot';
import { classifyOutboundError, type RedirectHop as OutboundHop } from '../outbound/errors';

/** Redirect hops as the snapshot records them. */
export function toHops(chain: readonly OutboundHop[]): RedirectHop[] {
  return chain.map((hop) => ({ url: hop.url, status: hop.status, location: hop.location ?? null }));
}

/** An outbound failure as text, prefixed with its class when it has one. */
export function errorText(error: unknown): string {
  const kind = classifyOutboundError(error);
  const message = error instanceof Error ? error.message : String(error);
  return kind === 'other' ? message : `${kind}: ${message}`;
}

function mediaType(headers: HeaderMap): string {
  const contentType = headers['content-type'];
  return (
    (Array.isArray(contentType) ? contentType[0] : (contentType as string | undefined))
      ?.split(';')[0]
      ?.trim()
      .toLowerCase() ?? ''
  );
}

export function isHtmlResponse(headers: HeaderMap, body: string | null): boolean {
  const type = mediaType(headers);
  if (type === 'text/html' || type === 'application/xhtml+xml') return true;
  return type === '' && body !== null && /^\s*</.test(body.slice(0, 512));
}

/** Whether the body is worth keeping as text (HTML, text/*, XML or JSON; no type at all counts). */
export function isTextType(headers: HeaderMap): boolean {
  const type = mediaType(headers);
  return (
    type === '' ||
    type.startsWith('text/') ||
    /^application\/(?:[\w.+-]*\+)?(?:xml|json)$/.test(type) ||
    type === 'application/xhtml+xml'
  );
}

export function contentTypeOf(headers: HeaderMap): string | undefined {
  const contentType = headers['content-type'];
  return Array.isArray(contentType) ? contentType.join(', ') : (contentType as string | undefined);
}
