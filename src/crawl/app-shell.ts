import { Parser } from 'htmlparser2';
import { textWords } from '../analyzers/simhash';

/**
 * The application-shell rule (docs/analyzers.md, "Rendering where it is needed"): an HTML page whose
 * content is built by its scripts — at least one script, almost no text and no link the crawl could
 * follow — is rendered in the browser pool, so a client-rendered site is crawled through the links
 * its pages show once JavaScript has run.
 */

/** Fewer words of body text than this is "almost no text" (SEO_DUPLICATE_CONTENT's threshold too). */
export const APP_SHELL_MAX_WORDS = 50;

/** Text inside these is no visible body text. */
const NOT_TEXT = new Set(['script', 'style', 'noscript', 'template', 'head', 'title']);

/** `<script type>` values that run as JavaScript (HTML's "JavaScript MIME type essence match", or a module). */
function runsAsScript(type: string | undefined): boolean {
  const t = (type ?? '').trim().toLowerCase();
  return t === '' || t === 'module' || /^(?:text|application)\/(?:x-)?(?:javascript|ecmascript)|^text\/jscript/.test(t);
}

export interface ShellFacts {
  /** Scripts that run (external or inline; JSON and templates are data). */
  scripts: number;
  /** Words of body text outside script, style, noscript and template. */
  words: number;
}

/** Scripts and visible text words of an HTML page, in one streaming pass. */
export function shellFacts(html: string): ShellFacts {
  let scripts = 0;
  let hidden = 0;
  const text: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === 'script' && runsAsScript(attribs.type)) scripts++;
        if (NOT_TEXT.has(name)) hidden++;
        // Elements separate words: `<p>a</p><p>b</p>` is two.
        else text.push(' ');
      },
      onclosetag(name) {
        if (NOT_TEXT.has(name)) hidden = Math.max(0, hidden - 1);
        else text.push(' ');
      },
      ontext(data) {
        if (hidden === 0) text.push(data);
      },
    },
    { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true },
  );
  parser.end(html);
  return { scripts, words: textWords(text.join('')).length };
}

/**
 * A 2xx same-site HTML page (the caller's test) is an application shell when it runs a script, has
 * fewer than APP_SHELL_MAX_WORDS words of body text, and links to no other page of the site.
 */
export function isAppShell(html: string, sameSiteLinks: number): boolean {
  if (sameSiteLinks > 0) return false;
  const facts = shellFacts(html);
  return facts.scripts > 0 && facts.words < APP_SHELL_MAX_WORDS;
}
