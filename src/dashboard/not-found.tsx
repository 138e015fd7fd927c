import type Router from '@koa/router';
import type { DashboardDeps } from './deps';
import { Document, render } from './render';
import type { DashboardContext, DashboardState } from './state';

// The API and its reference answer their own missing paths (the JSON error envelope).
const NOT_OURS = /^\/(v1|docs)(\/|$)/;

/**
 * Registered last: a page address nothing else answered gets, when HTML is asked for, a real 404
 * page that helps a lost visitor on, and `/.well-known/security.txt` (RFC 9116) names where to report a vulnerability.
 */
export function fallbackRoutes(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/.well-known/security.txt', (ctx) => {
    const expires = new Date(deps.clock.now().getTime() + 180 * 86_400_000);
    expires.setUTCHours(0, 0, 0, 0);
    const contact = /<([^>]+)>/.exec(deps.config.mailFrom)?.[1] ?? deps.config.mailFrom;
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = [
      `Contact: mailto:${contact}`,
      `Expires: ${expires.toISOString()}`,
      `Canonical: ${deps.baseUrl()}/.well-known/security.txt`,
      'Preferred-Languages: en',
      '',
    ].join('\n');
  });

  router.get('/{*rest}', async (ctx, next) => {
    // Browsers and crawlers ask for HTML by name; API clients keep the API's JSON 404.
    if (NOT_OURS.test(ctx.path) || !/\btext\/html\b/.test(ctx.get('Accept'))) return next();
    render(ctx as DashboardContext, <NotFoundPage />, 404);
  });
}

function NotFoundPage() {
  return (
    <Document title="Page not found">
      <main id="main" class="narrow">
        <h1>Page not found</h1>
        <p>
          There is no page at this address. It may have been mistyped, or it belonged to something that was removed
          since, such as a webhook or an audit older than the retention period.
        </p>
        <p>From here you can go on to:</p>
        <ul>
          <li>
            <a href="/">the dashboard overview</a>, with your usage this month and your most recent audits;
          </li>
          <li>
            <a href="/audits">the list of audits</a>, to find an audit by its domain, status or completion date;
          </li>
          <li>
            <a href="/login">the log-in page</a>, if your session ended, or <a href="/signup">create an account</a>;
          </li>
          <li>
            <a href="/docs">the API reference</a>, if you were looking for an endpoint of the REST API.
          </li>
        </ul>
        <p>If you followed a link from one of our pages, tell us which one, so we can fix it.</p>
      </main>
    </Document>
  );
}
