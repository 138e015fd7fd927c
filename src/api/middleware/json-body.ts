import getRawBody from 'raw-body';
import { ApiError } from '../../errors';
import type { ApiContext } from '../context';

/** Reads a JSON request body: application/json only, bounded size, clear messages. */
export async function readJsonBody(ctx: ApiContext, maxBytes: number): Promise<unknown> {
  if (!ctx.is('application/json')) {
    const given = ctx.get('Content-Type');
    throw new ApiError(
      'invalid_request',
      `Content-Type must be application/json, got ${given ? JSON.stringify(given.slice(0, 100)) : 'none'}`,
    );
  }
  const declared = Number(ctx.get('Content-Length') || 0);
  if (declared > maxBytes)
    throw new ApiError('payload_too_large', `request body is larger than ${maxBytes / 1024} KiB`);
  let text: string;
  try {
    text = await getRawBody(ctx.req, { limit: maxBytes, encoding: 'utf8' });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') {
      throw new ApiError('payload_too_large', `request body is larger than ${maxBytes / 1024} KiB`);
    }
    throw new ApiError('invalid_request', `could not read the request body: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ApiError('invalid_request', `request body is not valid JSON: ${(err as Error).message}`);
  }
}

/** A POST whose body is optional: none (or an empty one) reads as `{}`. */
export async function readOptionalJsonBody(ctx: ApiContext, maxBytes: number): Promise<unknown> {
  const length = ctx.get('Content-Length');
  if (!ctx.get('Transfer-Encoding') && (length === '' || length === '0')) return {};
  return readJsonBody(ctx, maxBytes);
}
