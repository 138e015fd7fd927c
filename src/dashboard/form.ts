import getRawBody from 'raw-body';
import { RefusedInputError } from './refused-input';
import { parseMultipart, type UploadedFile } from './multipart';
import type { DashboardContext } from './state';

/** Forms are small; only the branding form's logo needs more (its own checks stop at far less). */
export const FORM_LIMIT = { urlencoded: 64 * 1024, multipart: 256 * 1024 } as const;

/** A posted HTML form (urlencoded, or multipart for file uploads), read once and kept on the context. */
export async function readForm(ctx: DashboardContext): Promise<URLSearchParams> {
  const cached = (ctx.request as { form?: URLSearchParams }).form;
  if (cached) return cached;
  if (ctx.is('multipart/form-data')) {
    const parsed = parseMultipart(await readBody(ctx, FORM_LIMIT.multipart), ctx.get('Content-Type'));
    (ctx.request as { files?: UploadedFile[] }).files = parsed.files;
    (ctx.request as { form?: URLSearchParams }).form = parsed.fields;
    return parsed.fields;
  }
  const text = ctx.is('application/x-www-form-urlencoded')
    ? (await readBody(ctx, FORM_LIMIT.urlencoded)).toString('utf8')
    : '';
  const form = new URLSearchParams(text);
  (ctx.request as { form?: URLSearchParams }).form = form;
  return form;
}

/** The body's bytes; too large or broken in transit is a refusal with a page, not a failure. */
async function readBody(ctx: DashboardContext, limit: number): Promise<Buffer> {
  try {
    return await getRawBody(ctx.req, { limit });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large')
      throw new RefusedInputError(
        413,
        'This form is too large',
        `A form may send at most ${limit / 1024} KiB. Shorten what you entered (or choose a smaller logo) and send it again.`,
      );
    throw new RefusedInputError(400, 'This form could not be read', 'It arrived incomplete. Send it again.');
  }
}

/** A text field, trimmed; '' when absent. */
export function field(form: URLSearchParams, name: string): string {
  return (form.get(name) ?? '').trim();
}

/** The files of a multipart form read by readForm. */
export function uploadedFiles(ctx: DashboardContext): UploadedFile[] {
  return (ctx.request as { files?: UploadedFile[] }).files ?? [];
}
