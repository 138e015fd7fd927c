import type { CatalogRow } from './row';

/** The best practices analyzers, in catalog order (docs/analyzers.md, Catalog). */
export const BEST_PRACTICES_ROWS = [
  [
    'BP_DOCTYPE_CHARSET',
    'L',
    'Doctype or character encoding missing',
    'Without `<!DOCTYPE html>` browsers render the page in quirks mode, and without an early character-encoding declaration text may display garbled.',
    'Start every page with `<!DOCTYPE html>` and declare `<meta charset="utf-8">` within the first 1024 bytes (or send the charset in the Content-Type header).',
  ],
  [
    'BP_VIEWPORT_MISSING',
    'M',
    'No mobile viewport',
    'Without a viewport meta tag, phones render the page at desktop width and shrink it, so text is tiny; search engines consider the page not mobile-friendly.',
    'Add `<meta name="viewport" content="width=device-width, initial-scale=1">` to the head of every page.',
  ],
  [
    'BP_SOFT_404',
    'L',
    'Missing pages do not answer 404 (soft 404)',
    'When an address that does not exist answers 200 (the home page, or a "not found" page served as a success), search engines index junk URLs as real pages and broken links go unnoticed.',
    'Answer unknown URLs with status 404 and a helpful error page (a search box and links to the main sections).',
  ],
  [
    'BP_CONSOLE_ERRORS',
    'M',
    'JavaScript errors while loading',
    'Errors logged while the page loads usually mean something is broken for visitors: a feature that does not work, a missing resource or a failing third-party script.',
    'Open the browser console on the listed pages, fix the errors reported there (uncaught exceptions, failed requests), and remove scripts that are no longer needed.',
  ],
] as const satisfies readonly CatalogRow[];
