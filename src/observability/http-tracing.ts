import {
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Link,
} from '@opentelemetry/api';
import type { Middleware, ParameterizedContext } from 'koa';

type RoutedContext = ParameterizedContext & { _matchedRoute?: string | RegExp };

/**
 * The API's server span, one per request, as the outermost middleware (installed only when tracing is
 * on): everything the request does — the Temporal client's workflow start included — runs inside it,
 * so the workflow and its activities join its trace. Named `POST /v1/audits` by the route template,
 * never the path (ids, tokens); no header, query string or body is recorded. Each request starts a
 * trace of its own: a `traceparent` from the internet is linked, not trusted as the parent.
 */
export function traceRequests<State>(): Middleware<State> {
  const tracer = trace.getTracer('domain-audit-api');
  return async (ctx, next) => {
    const incoming = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, ctx.headers));
    const links: Link[] = incoming && isSpanContextValid(incoming) ? [{ context: incoming }] : [];
    const span = tracer.startSpan(
      ctx.method,
      { kind: SpanKind.SERVER, root: true, links, attributes: { 'http.request.method': ctx.method } },
      ROOT_CONTEXT,
    );
    try {
      await context.with(trace.setSpan(ROOT_CONTEXT, span), next);
    } finally {
      const route = (ctx as unknown as RoutedContext)._matchedRoute;
      if (typeof route === 'string') {
        span.setAttribute('http.route', route);
        span.updateName(`${ctx.method} ${route}`);
      }
      span.setAttribute('http.response.status_code', ctx.status);
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}
