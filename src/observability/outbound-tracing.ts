import diagnostics from 'node:diagnostics_channel';
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';

/** What undici publishes of a request (undici:request:* diagnostics channels; Node's fetch too). */
interface UndiciRequest {
  method: string;
  origin: string | URL;
}
type Message = { request: UndiciRequest; response?: { statusCode: number }; error?: Error & { code?: string } };

/**
 * A client span for each POST sent inside a trace — a webhook delivery's, from the activity that
 * makes it — named by method and host only: a receiver's URL may carry a token in its path or query,
 * and no request header is recorded. GETs and HEADs (the crawl's thousands of pages) get none.
 * Returns the way to stop.
 */
export function traceOutboundPosts(): () => void {
  const tracer = trace.getTracer('domain-audit-outbound');
  const spans = new WeakMap<UndiciRequest, Span>();
  const end = (request: UndiciRequest) => {
    spans.get(request)?.end();
    spans.delete(request);
  };
  const handlers: Record<string, (message: Message) => void> = {
    'undici:request:create': ({ request }) => {
      if (request.method !== 'POST' || !trace.getSpan(context.active())) return;
      const origin = new URL(String(request.origin));
      const attributes = {
        'http.request.method': 'POST',
        'server.address': origin.hostname,
        'server.port': Number(origin.port || (origin.protocol === 'https:' ? 443 : 80)),
        'url.scheme': origin.protocol.replace(':', ''),
      };
      spans.set(request, tracer.startSpan(`POST ${origin.hostname}`, { kind: SpanKind.CLIENT, attributes }));
    },
    'undici:request:headers': ({ request, response }) => {
      const span = spans.get(request);
      if (!span || !response) return;
      span.setAttribute('http.response.status_code', response.statusCode);
      if (response.statusCode >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
    },
    'undici:request:trailers': ({ request }) => end(request),
    'undici:request:error': ({ request, error }) => {
      const span = spans.get(request);
      if (!span) return;
      span.setAttribute('error.type', error?.code ?? error?.name ?? 'error');
      span.setStatus({ code: SpanStatusCode.ERROR });
      end(request);
    },
  };
  const subscribed = Object.entries(handlers).map(([name, handler]) => {
    const listener = (message: unknown) => handler(message as Message);
    diagnostics.subscribe(name, listener);
    return () => diagnostics.unsubscribe(name, listener);
  });
  return () => subscribed.forEach((unsubscribe) => unsubscribe());
}
