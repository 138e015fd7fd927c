import getRawBody from 'raw-body';
import { parseMultipart, type UploadedFile } from './multipart';
import type { DashboardContext } from './state';

/** A posted HTML form (urlencoded, or multipart for file uploads), read once and kept on the context. */
export async function readForm(ctx: DashboardContext): Promise<URLSearchParams> {
  const cached = (ctx.request as { form?: URLSearchParams }).form;
  if (cached) return cached;
  if (ctx.is('multipart/form-data')) {
    const parsed = parseMultipart(await getRawBody(ctx.req, { limit: '256kb' }), ctx.get('Content-Type'));
    (ctx.request as { files?: UploadedFile[] }).files = parsed.files;
    (ctx.request as { form?: URLSearchParams }).form = parsed.fields;
    return parsed.fields;
  }
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

/** The files of a multipart form read by readForm. */
export function uploadedFiles(ctx: DashboardContext): UploadedFile[] {
  return (ctx.request as { files?: UploadedFile[] }).files ?? [];
}
