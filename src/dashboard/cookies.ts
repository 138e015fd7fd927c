import type { DashboardContext } from './state';

export const SESSION_COOKIE = 'dash_session';
export const ANONYMOUS_CSRF_COOKIE = 'dash_csrf';

/**
 * Sets a cookie by hand: HttpOnly, SameSite=Lax, Path=/ (unless `scope` narrows them), and Secure when
 * the public URL is https (Koa's helper refuses Secure on the plain-HTTP hop behind a TLS-terminating proxy).
 */
export function setCookie(
  ctx: DashboardContext,
  secure: boolean,
  name: string,
  value: string,
  maxAgeSeconds?: number,
  scope: { path?: string; sameSite?: 'Lax' | 'Strict' } = {},
): void {
  const parts = [`${name}=${value}`, `Path=${scope.path ?? '/'}`, 'HttpOnly', `SameSite=${scope.sameSite ?? 'Lax'}`];
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
  if (secure) parts.push('Secure');
  ctx.append('Set-Cookie', parts.join('; '));
}

export function clearCookie(ctx: DashboardContext, secure: boolean, name: string): void {
  setCookie(ctx, secure, name, '', 0);
}

export function readCookie(ctx: DashboardContext, name: string): string | undefined {
  const header = ctx.get('Cookie');
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
