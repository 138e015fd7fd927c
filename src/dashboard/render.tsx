import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { assetUrl } from './assets';
import type { DashboardContext } from './state';

/** Answers with a whole HTML page (preact escapes every value); pages are never cached. */
export function render(ctx: DashboardContext, page: VNode, status = 200): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = `<!doctype html>${renderToString(page)}`;
}

/** The HTML document around any page: title, our stylesheet and script, the skip link. */
export function Document(props: { title: string; children: ComponentChildren }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · Domain audits`}</title>
        <link rel="stylesheet" href={assetUrl('dashboard.css')} />
        <script src={assetUrl('dashboard.js')} defer />
      </head>
      <body>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        {props.children}
      </body>
    </html>
  );
}

/** A short page for refusals and errors (403, 404), with a way back. */
export function renderStatus(ctx: DashboardContext, status: number, title: string, message: string): void {
  render(
    ctx,
    <Document title={title}>
      <main id="main" class="narrow">
        <h1>{title}</h1>
        <p>{message}</p>
        <p>
          <a href="/">Back to the dashboard</a>
        </p>
      </main>
    </Document>,
    status,
  );
}
