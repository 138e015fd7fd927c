import type { CatalogRow } from './row';

/** The accessibility analyzers, in catalog order (docs/analyzers.md, Catalog). */
export const ACCESSIBILITY_ROWS = [
  [
    'A11Y_IMG_ALT_MISSING',
    'H',
    'Images without alternative text',
    'Screen-reader users hear nothing, or a file name, for images without alternative text, and search engines cannot tell what they show.',
    'Add an `alt` attribute to every `<img>` and `<input type="image">`: describe informative images, and use `alt=""` for purely decorative ones.',
  ],
  [
    'A11Y_LANG_INVALID',
    'M',
    'Page language missing or invalid',
    'Screen readers use the lang attribute to choose their pronunciation; without a valid one they read the page with the wrong voice, and translation tools guess the language wrongly.',
    'Set a valid BCP 47 language tag on the html element, for example `<html lang="en">` or `<html lang="pt-BR">`.',
  ],
  [
    'A11Y_FORM_LABEL_MISSING',
    'H',
    'Form fields without labels',
    'Screen-reader and voice-control users cannot tell what an unlabelled input or select is for.',
    'Associate a `<label for="...">` with each field or wrap the field in its label; use aria-label only when a visible label is impossible.',
  ],
  [
    'A11Y_CONTROL_NAME_MISSING',
    'H',
    'Links or buttons without an accessible name',
    'Icon-only links and buttons without text are announced as just "link" or "button", so assistive-technology users cannot know what they do.',
    'Give every link and button visible text, an `aria-label` (for icon buttons), or alt text on the image inside it.',
  ],
  [
    'A11Y_ZOOM_DISABLED',
    'H',
    'Zooming is disabled',
    '`user-scalable=no` or a maximum-scale below 5 stops people with low vision from enlarging the page on phones and tablets.',
    'Use `<meta name="viewport" content="width=device-width, initial-scale=1">` without user-scalable=no or a low maximum-scale.',
  ],
  [
    'A11Y_DUPLICATE_ID_ARIA',
    'M',
    'Duplicate IDs referenced by ARIA',
    'When an id used by aria-labelledby, aria-describedby or a label appears twice, assistive technologies may read the wrong label.',
    'Make every id on the page unique, especially the ids that ARIA attributes and labels refer to.',
  ],
] as const satisfies readonly CatalogRow[];
