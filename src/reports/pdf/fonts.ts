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

interface FontFiles {
  body: Buffer;
  bold: Buffer;
  mono: Buffer;
  fallback: { data: Buffer; family?: string } | null;
}

let fontCache: FontFiles | null = null;

function fallbackFont(): FontFiles['fallback'] {
  const configured = process.env['REPORT_FALLBACK_FONT'];
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
    // Read once per process; a collection (.ttc) also needs the face's PostScript name.
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
    fallback: fallbackFont(),
  };
  return fontCache;
}

/** Registers body, bold, mono and (when installed) fallback; selects body. Tells whether there is a fallback. */
export function registerReportFonts(doc: Doc): boolean {
  const f = fontFiles();
  doc.registerFont('body', f.body);
  doc.registerFont('bold', f.bold);
  doc.registerFont('mono', f.mono);
  if (f.fallback) {
    if (f.fallback.family) doc.registerFont('fallback', f.fallback.data, f.fallback.family);
    else doc.registerFont('fallback', f.fallback.data);
  }
  doc.font('body');
  return f.fallback !== null;
}

/** Chooses, per text, a registered font that has a glyph for every character. */
export class FontPicker {
  private readonly covers = new Map<FontName, (cp: number) => boolean>();

  constructor(private readonly doc: Doc, private readonly hasFallback: boolean) {}

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
      const embedded = (this.doc as unknown as { _font: { font: { hasGlyphForCodePoint(cp: number): boolean } } })._font.font;
      f = (cp) => embedded.hasGlyphForCodePoint(cp);
      this.covers.set(font, f);
    }
    return f;
  }
}
