import type Koa from 'koa';
import { readForm } from './form';
import { RefusedInputError } from './refused-input';
import type { DashboardContext, DashboardState } from './state';

// Tab, line feed and carriage return are text a textarea sends; every other C0 and C1 control,
// and DEL, is not (Postgres refuses NUL outright).
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /\p{Cs}/u;
// The API and its reference answer their own paths (the JSON error envelope).
const NOT_OURS = /^\/(v1|docs)(\/|$)/;
const TITLE = 'Some characters cannot be accepted';

function refuse(where: string): never {
  throw new RefusedInputError(
    400,
    TITLE,
    `${where} contains a control character (such as NUL) or broken text. Remove it and try again.`,
  );
}

const unreadable = (text: string) => CONTROL.test(text) || LONE_SURROGATE.test(text);
/** A field's name as the message shows it: printable, and short. */
const shown = (name: string) => `"${name.replace(/[\p{Cc}\p{Cs}]/gu, '?').slice(0, 40)}"`;

/**
 * Refuses a page address, query parameter or form field holding control characters, by name: such
 * text is never meant, and stored it would fail or corrupt (docs/decisions.md, "Identifiers have shapes").
 * Runs after the CSRF check, so a forged form still gets the CSRF refusal.
 */
export const refuseUnreadableInput: Koa.Middleware<DashboardState> = async (ctx, next) => {
  // As the fallback route (not-found.tsx): a GET that does not ask for HTML may be an API client's, whose
  // unknown path gets the API's JSON 404; the page handlers check their own ids and parameters anyway.
  if (NOT_OURS.test(ctx.path) || (ctx.method !== 'POST' && !/\btext\/html\b/.test(ctx.get('Accept')))) return next();
  let path: string;
  try {
    path = decodeURIComponent(ctx.path);
  } catch {
    throw new RefusedInputError(400, 'This address is not valid', 'Its percent-encoding is broken. Check the link.');
  }
  if (unreadable(path)) refuse('The page address');
  for (const [name, value] of Object.entries(ctx.query)) {
    for (const item of Array.isArray(value) ? value : [value ?? ''])
      if (unreadable(name) || unreadable(item)) refuse(`The parameter ${shown(name)}`);
  }
  if (ctx.method === 'POST') {
    for (const [name, value] of await readForm(ctx as DashboardContext))
      if (unreadable(name) || unreadable(value)) refuse(`The field ${shown(name)}`);
  }
  await next();
};
