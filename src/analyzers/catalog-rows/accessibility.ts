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
    '`user-scalable=no` or a maximum-scale below 2 stops people with low vision from enlarging the page on phones and tablets.',
    'Use `<meta name="viewport" content="width=device-width, initial-scale=1">` without user-scalable=no or a low maximum-scale.',
  ],
  [
    'A11Y_DUPLICATE_ID_ARIA',
    'M',
    'Duplicate IDs referenced by ARIA',
    'When an id used by aria-labelledby, aria-describedby or a label appears twice, assistive technologies may read the wrong label.',
    'Make every id on the page unique, especially the ids that ARIA attributes and labels refer to.',
  ],
  [
    'A11Y_COLOR_CONTRAST',
    'H',
    'Text with too little colour contrast',
    'Text whose colour is too close to its background (below the WCAG AA ratio of 4.5:1, 3:1 for large text) is hard or impossible to read for people with low vision and for everyone on a phone in sunlight.',
    'Darken the text or lighten the background (or the reverse) until the contrast ratio is at least 4.5:1 for body text and 3:1 for large text; check with a contrast checker.',
  ],
  [
    'A11Y_LINK_IN_TEXT_BLOCK',
    'M',
    'Links told apart from text by colour alone',
    'People who cannot tell colours apart do not see links inside paragraphs that differ from the surrounding text only by colour.',
    'Underline links inside text (or give them another non-colour cue such as bold), or make their colour contrast at least 3:1 with the surrounding text.',
  ],
  [
    'A11Y_TARGET_SIZE',
    'L',
    'Touch targets too small or too close',
    'Buttons and links smaller than 24 by 24 CSS pixels, without space around them, are hard to tap for people with limited dexterity and on small screens.',
    'Make tap targets at least 24×24 CSS pixels (44×44 is better), or leave enough space between small ones.',
  ],
  [
    'A11Y_ARIA_INVALID',
    'H',
    'Invalid ARIA roles or attributes',
    'Assistive technologies trust ARIA: an unknown role, a role missing its required attributes, an invalid attribute value or an unnamed dialog gives screen-reader users wrong or no information.',
    'Use only valid ARIA roles and attributes, give each role the attributes it requires (for example `aria-checked` on `role="checkbox"`), use allowed values, and name every dialog with `aria-label` or `aria-labelledby`.',
  ],
  [
    'A11Y_HEADING_ORDER',
    'L',
    'Heading levels skipped',
    'Screen-reader users navigate by headings; a jump from h2 to h4 suggests a missing section and breaks the outline of the page.',
    'Let heading levels go down one step at a time (h1, h2, h3); style headings with CSS instead of choosing a level for its size.',
  ],
] as const satisfies readonly CatalogRow[];
