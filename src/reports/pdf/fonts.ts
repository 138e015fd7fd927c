import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The report's fonts: DejaVu Sans (npm package dejavu-fonts-ttf), embedded and subset, covers Latin,
 * Greek, Cyrillic, Arabic and Hebrew letters among others. CJK is not in DejaVu: a fallback font
 * (REPORT_FALLBACK_FONT, or Debian's fonts-noto-cjk) is registered when one is installed, and
 * FontPicker sets in it the text DejaVu cannot show.
 */

export type FontName = 'body' | 'bold' | 'mono' | 'fallback';

type Doc = PDFKit.PDFDocument;

type FallbackFont = { data: Buffer; family?: string } | null;

interface FontFiles {
  body: Buffer;
  bold: Buffer;
  mono: Buffer;
}

let fontCache: FontFiles | null = null;
// Per configured setting (undefined: the installed candidates only); read once per process.
const fallbackCache = new Map<string | undefined, FallbackFont>();

/** `configured`: the REPORT_FALLBACK_FONT setting (`file` or `file.ttc#PostScriptName`), tried first. */
function fallbackFont(configured: string | undefined): FallbackFont {
  if (fallbackCache.has(configured)) return fallbackCache.get(configured)!;
  const found = findFallbackFont(configured);
  fallbackCache.set(configured, found);
  return found;
}

function findFallbackFont(configured: string | undefined): FallbackFont {
  const candidates: { file: string; family?: string }[] = [];
  if (configured) {
    const [file, family] = configured.split('#');
    candidates.push(family ? { file: file!, family } : { file: file! });
  }
  candidates.push(
    { file: '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc', family: 'NotoSansCJKjp-Regular' },
    { file: '/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf' },
  );
  for (const c of candidates) {
    if (!existsSync(c.file)) continue;
    // A collection (.ttc) also needs the face's PostScript name.
    return c.family ? { data: readFileSync(c.file), family: c.family } : { data: readFileSync(c.file) };
  }
  return null;
}

function fontFiles(): FontFiles {
  if (fontCache) return fontCache;
  const dir = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  fontCache = {
    body: readFileSync(path.join(dir, 'DejaVuSans.ttf')),
    bold: readFileSync(path.join(dir, 'DejaVuSans-Bold.ttf')),
    mono: readFileSync(path.join(dir, 'DejaVuSansMono.ttf')),
  };
  return fontCache;
}

/** A font as pdfkit parsed it (fontkit); pdfkit's registerFont takes one in place of the file's bytes. */
type ParsedFont = { layout: (...args: never[]) => unknown };

// Parsed once per process and shared by every document: parsing the font files again for each
// report made every render allocate (and free) megabytes of tables, and the report worker's
// resident memory grew with the number of renders. Each document still makes its own subset.
const parsedFonts = new Map<string, ParsedFont>();

/** pdfkit's parsed font of `name` in `doc`: selecting a font is the only way to reach it. */
function parsedFont(doc: Doc, name: FontName): ParsedFont {
  doc.font(name);
  return (doc as unknown as { _font: { font: ParsedFont } })._font.font;
}

/** Registers `name` from the parse cache (keyed by `key`), parsing `data` on first use. */
function registerParsed(doc: Doc, name: FontName, key: string, data: Buffer, family?: string): void {
  const cached = parsedFonts.get(key);
  if (cached) return void doc.registerFont(name, cached as unknown as Buffer);
  if (family) doc.registerFont(name, data, family);
  else doc.registerFont(name, data);
  parsedFonts.set(key, parsedFont(doc, name));
}

/**
 * Registers body, bold, mono and (when installed) fallback — `fallbackSetting` first, see
 * findFallbackFont — and selects body. Tells whether there is a fallback.
 */
export function registerReportFonts(doc: Doc, fallbackSetting?: string): boolean {
  const f = fontFiles();
  const fallback = fallbackFont(fallbackSetting);
  registerParsed(doc, 'body', 'body', f.body);
  registerParsed(doc, 'bold', 'bold', f.bold);
  registerParsed(doc, 'mono', 'mono', f.mono);
  if (fallback) registerParsed(doc, 'fallback', `fallback:${fallbackSetting ?? ''}`, fallback.data, fallback.family);
  doc.font('body');
  return fallback !== null;
}

/** Chooses, per text, a registered font that has a glyph for every character. */
export class FontPicker {
  private readonly covers = new Map<FontName, (cp: number) => boolean>();

  constructor(
    private readonly doc: Doc,
    private readonly hasFallback: boolean,
  ) {}

  /** The font to set `text` in: `preferred` when it has every glyph, else the fallback when that does. */
  fontFor(text: string, preferred: FontName): FontName | null {
    if (this.covered(text, preferred)) return preferred;
    if (this.hasFallback && this.covered(text, 'fallback')) return 'fallback';
    return null;
  }

  private covered(text: string, font: FontName): boolean {
    const has = this.coverage(font);
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      if (cp <= 0x20) continue;
      if (!has(cp)) return false;
    }
    return true;
  }

  /** Selecting a font is the only way to reach pdfkit's parsed font object (it stays selected). */
  private coverage(font: FontName): (cp: number) => boolean {
    let f = this.covers.get(font);
    if (!f) {
      this.doc.font(font);
      const embedded = (this.doc as unknown as { _font: { font: { hasGlyphForCodePoint(cp: number): boolean } } })._font
        .font;
      f = (cp) => embedded.hasGlyphForCodePoint(cp);
      this.covers.set(font, f);
    }
    return f;
  }
}
