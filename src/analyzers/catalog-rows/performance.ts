import type { CatalogRow } from './row';

/** The performance analyzers, in catalog order (docs/analyzers.md, Catalog). */
export const PERFORMANCE_ROWS = [
  [
    'PERF_TTFB_SLOW',
    'M',
    'Slow server response (time to first byte)',
    'Everything on the page waits for the first byte; a server that takes more than 600 to 800 ms delays the whole load and hurts Core Web Vitals.',
    'Cache rendered pages (at a CDN or in the application), speed up slow database queries and backend calls, and serve visitors from a region near them.',
  ],
  [
    'PERF_COMPRESSION_MISSING',
    'M',
    'Text responses not compressed',
    'HTML, CSS and JavaScript sent without compression are typically 3 to 5 times larger, which slows every page load, especially on mobile networks.',
    'Enable Brotli (br) and gzip compression for text types (text/html, text/css, JavaScript, JSON, SVG) on the server or CDN.',
  ],
  [
    'PERF_CACHE_WEAK',
    'L',
    'Static assets not cached for long',
    'Without a long cache lifetime, returning visitors download the same images, scripts and stylesheets again.',
    'Serve fingerprinted static assets with `Cache-Control: public, max-age=31536000, immutable`.',
  ],
  [
    'PERF_PAGE_WEIGHT_HIGH',
    'M',
    'Heavy pages',
    'Large pages load slowly, especially on mobile networks, and cost visitors data.',
    'Compress and resize images (WebP or AVIF), remove unused JavaScript and CSS, and lazy-load media below the fold; aim for under 2.6 MiB per page.',
  ],
  [
    'PERF_RENDER_BLOCKING',
    'L',
    'Render-blocking resources',
    'Synchronous scripts in the head and many separate stylesheets must all load before anything is shown, delaying the first paint.',
    'Add `defer` (or `async`) to scripts in the head, inline the critical CSS, and combine or defer non-critical stylesheets.',
  ],
  [
    'PERF_IMG_UNSIZED',
    'L',
    'Images without width and height',
    'Without explicit dimensions the browser cannot reserve space for an image, so the content jumps as images load (layout shift, CLS).',
    'Set `width` and `height` attributes on every `<img>` (CSS can still scale it), or give it a CSS `aspect-ratio`.',
  ],
  [
    'PERF_LCP_SLOW',
    'H',
    'Slow Largest Contentful Paint (lab)',
    'Largest Contentful Paint is when the main content (the hero image or headline) appears; over 2.5 s on a mid-range phone visitors see a blank or half-built page, and it is one of the Core Web Vitals Google uses in ranking.',
    'Serve the LCP image or text early: preload the hero image, compress and size it, avoid lazy-loading it, cut render-blocking CSS and JavaScript, and speed up the server response.',
  ],
  [
    'PERF_CLS_HIGH',
    'M',
    'Layout shifts while loading (CLS)',
    'Content that jumps while the page loads makes people lose their place or tap the wrong thing; Cumulative Layout Shift over 0.1 fails the Core Web Vitals.',
    'Reserve space for images, embeds and ads (width/height or aspect-ratio), do not insert content above existing content, and use `font-display: optional` or matched fallback fonts.',
  ],
  [
    'PERF_TBT_HIGH',
    'M',
    'Main thread blocked by JavaScript (TBT)',
    'Total Blocking Time adds up the long JavaScript tasks during load; while they run the page cannot respond to taps and typing, which feels frozen.',
    'Remove or defer unused JavaScript, split long tasks, load third-party scripts after the page is interactive, and move heavy work to a web worker.',
  ],
  [
    'PERF_FCP_SLOW',
    'L',
    'Slow First Contentful Paint (lab)',
    'First Contentful Paint is when anything first appears; a late first paint tells visitors nothing is happening, and many leave.',
    'Shorten the server response, inline the critical CSS, defer scripts in the head, and preload the web fonts used above the fold.',
  ],
] as const satisfies readonly CatalogRow[];
