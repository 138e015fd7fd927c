import getRawBody from 'raw-body';
import type { DashboardContext } from './state';

/** A posted HTML form (application/x-www-form-urlencoded), read once and kept on the context. */
export async function readForm(ctx: DashboardContext): Promise<URLSearchParams> {
  const cached = (ctx.request as { form?: URLSearchParams }).form;
  if (cached) return cached;
  const text = ctx.is('application/x-www-form-urlencoded')
    ? await getRawBody(ctx.req, { limit: '64kb', encoding: 'utf8' })
    : '';
  const form = new URLSearchParams(text);
  (ctx.request as { form?: URLSearchParams }).form = form;
  return form;
}

/** A text field, trimmed; '' when absent. */
export function field(form: URLSearchParams, name: string): string {
  return (form.get(name) ?? '').trim();
}
