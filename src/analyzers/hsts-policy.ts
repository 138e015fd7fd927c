/** The Strict-Transport-Security header's grammar, apart from the checks that judge its values. */

export type HstsPolicy =
  { valid: true; maxAge: number; includeSubDomains: boolean; preload: boolean } | { valid: false; reason: string };

/**
 * RFC 6797 §6.1: `;`-separated directives, names case-insensitive, each at most once, max-age required,
 * its value digits (optionally quoted). Browsers honour only the first header, so only it is parsed.
 */
export function parseHsts(value: string): HstsPolicy {
  let maxAge: number | null = null;
  let includeSubDomains = false;
  let preload = false;
  const seen = new Set<string>();
  for (const raw of value.split(';')) {
    const part = raw.trim();
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = (eq === -1 ? part : part.slice(0, eq)).trim().toLowerCase();
    const val = eq === -1 ? null : part.slice(eq + 1).trim();
    if (!/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) return { valid: false, reason: `malformed directive "${part}"` };
    if (seen.has(name)) return { valid: false, reason: `directive ${name} appears twice` };
    seen.add(name);
    if (name === 'max-age') {
      const digits = val?.replace(/^"(.*)"$/, '$1') ?? '';
      if (!/^\d+$/.test(digits))
        return { valid: false, reason: `max-age value "${val ?? ''}" is not a number of seconds` };
      maxAge = Number(digits);
    } else if (name === 'includesubdomains') includeSubDomains = true;
    else if (name === 'preload') preload = true;
  }
  if (maxAge === null) return { valid: false, reason: 'max-age directive missing' };
  return { valid: true, maxAge, includeSubDomains, preload };
}
