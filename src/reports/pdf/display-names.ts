import { domainToUnicode } from 'node:url';

/** A URL as a person reads it: the host of an IDN in Unicode. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.hostname.includes('xn--')) return url;
    const unicode = domainToUnicode(u.hostname);
    if (!unicode) return url;
    const at = url.indexOf(u.hostname);
    return at < 0 ? url : url.slice(0, at) + unicode + url.slice(at + u.hostname.length);
  } catch {
    return url;
  }
}

/** The audited host as a person reads it: IDNs in Unicode, no scheme. */
export function displayDomain(domain: string): { unicode: string; ascii: string } {
  try {
    const url = new URL(domain);
    const ascii = url.hostname;
    const unicode = domainToUnicode(ascii) || ascii;
    const port = url.port ? `:${url.port}` : '';
    return { unicode: unicode + port, ascii: ascii + port };
  } catch {
    return { unicode: domain, ascii: domain };
  }
}
