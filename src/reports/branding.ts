/**
 * White-label branding of an audit report: the agency's name, logo and colour replace ours.
 * A report rendered with `null` branding uses NEUTRAL_BRANDING, which names no product at all.
 */

export interface Branding {
  /** The agency's name: shown on the cover and in the PDF's Author, Creator and Producer. */
  displayName: string;
  /** PNG or JPEG bytes. */
  logo?: Buffer;
  /** Accent colour, `#rrggbb`. */
  primaryColor: string;
  /** Printed at the bottom of every page, beside the page number. */
  footerText?: string;
  /** Contact details printed on the cover, e.g. "hello@acme.example · +44 20 7946 0000". */
  contactLine?: string;
}

export const NEUTRAL_BRANDING: Readonly<Branding> = Object.freeze({
  displayName: 'Website audit report',
  primaryColor: '#2f4858',
});

export const BRANDING_LIMITS = Object.freeze({
  displayName: 80,
  footerText: 160,
  contactLine: 160,
  // Base64 of a 40 KiB logo, with the other fields, fits the API's 64 KiB request body.
  logoBytes: 40 * 1024,
  // PNGs are decoded to pixels when embedded: bound the pixel count, not only the file size.
  logoPixels: 4096,
  // width × height × channels × bytes per sample: a 40 KiB file can inflate to hundreds of MiB.
  logoDecodedBytes: 16 * 1024 * 1024,
});

export class BrandingError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`branding.${field}: ${message}`);
    this.name = 'BrandingError';
  }
}

const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function text(input: Record<string, unknown>, field: string, max: number, required: boolean): string | undefined {
  const value = input[field];
  if (value === undefined || value === null) {
    if (required) throw new BrandingError(field, 'is required');
    return undefined;
  }
  if (typeof value !== 'string') throw new BrandingError(field, `must be a string, got ${typeof value}`);
  const trimmed = value.trim();
  if (trimmed.length === 0) {
    if (required) throw new BrandingError(field, 'must not be empty');
    return undefined;
  }
  if (CONTROL.test(trimmed)) throw new BrandingError(field, 'must not contain control characters or line breaks');
  if ([...trimmed].length > max) throw new BrandingError(field, `must be at most ${max} characters`);
  return trimmed;
}

/** Which image format the bytes are, by signature; null when neither PNG nor JPEG. */
export function imageFormat(bytes: Buffer): 'png' | 'jpeg' | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  return null;
}

/** What decoding an image costs: its pixels, channels per pixel and bytes per channel sample. */
export interface ImageGeometry {
  width: number;
  height: number;
  channels: number;
  bytesPerSample: number;
}

// PNG colour types: grey, RGB, palette index, grey + alpha, RGBA.
const PNG_CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
// Start-of-frame markers, as pdfkit looks for them.
const JPEG_FRAME_MARKERS = new Set([
  0xffc0, 0xffc1, 0xffc2, 0xffc3, 0xffc5, 0xffc6, 0xffc7, 0xffc8, 0xffc9, 0xffca, 0xffcb, 0xffcc, 0xffcd, 0xffce,
  0xffcf,
]);

/** From a PNG's IHDR chunk or a JPEG's frame header; null when the bytes do not say (unreadable). */
export function imageGeometry(bytes: Buffer): ImageGeometry | null {
  const format = imageFormat(bytes);
  if (format === 'png') {
    if (bytes.length < 29 || bytes.readUInt32BE(8) !== 13 || bytes.toString('latin1', 12, 16) !== 'IHDR') return null;
    const channels = PNG_CHANNELS[bytes[25]];
    if (channels === undefined) return null;
    return {
      width: bytes.readUInt32BE(16),
      height: bytes.readUInt32BE(20),
      channels,
      bytesPerSample: bytes[24] === 16 ? 2 : 1,
    };
  }
  if (format === 'jpeg') {
    // The same walk as pdfkit's: the frame header it finds is the one that is embedded.
    let pos = 2;
    while (pos + 4 <= bytes.length) {
      while (pos < bytes.length && bytes[pos] !== 0xff) pos++;
      if (pos + 4 > bytes.length) return null;
      const marker = bytes.readUInt16BE(pos);
      pos += 2;
      if (JPEG_FRAME_MARKERS.has(marker)) {
        if (pos + 8 > bytes.length) return null;
        return {
          width: bytes.readUInt16BE(pos + 5),
          height: bytes.readUInt16BE(pos + 3),
          channels: bytes[pos + 7],
          bytesPerSample: bytes[pos + 2] > 8 ? 2 : 1,
        };
      }
      pos += bytes.readUInt16BE(pos);
    }
  }
  return null;
}

/** Throws a BrandingError when decoding an image of this geometry would cost too much. */
export function checkLogoGeometry(geometry: ImageGeometry): void {
  const { width, height, channels, bytesPerSample } = geometry;
  if (width > BRANDING_LIMITS.logoPixels || height > BRANDING_LIMITS.logoPixels) {
    throw new BrandingError(
      'logo',
      `must be at most ${BRANDING_LIMITS.logoPixels}×${BRANDING_LIMITS.logoPixels} pixels, got ${width}×${height}`,
    );
  }
  const decoded = width * height * channels * bytesPerSample;
  if (decoded > BRANDING_LIMITS.logoDecodedBytes) {
    const mib = (n: number) => `${Math.ceil((n / 1024 / 1024) * 10) / 10} MiB`;
    throw new BrandingError(
      'logo',
      `must decode to at most ${mib(BRANDING_LIMITS.logoDecodedBytes)} (width × height × channels), got ${mib(decoded)} (${width}×${height}, ${channels} channel${channels === 1 ? '' : 's'}${bytesPerSample > 1 ? ', 16 bits' : ''})`,
    );
  }
}

/**
 * Checks untrusted branding input and returns a clean copy (strings trimmed, empty optional
 * strings dropped, colour lower-cased). Throws a BrandingError naming the offending field.
 */
export function validateBranding(input: unknown): Branding {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new BrandingError('(root)', 'must be an object');
  }
  const obj = input as Record<string, unknown>;
  const allowed = new Set(['displayName', 'logo', 'primaryColor', 'footerText', 'contactLine']);
  for (const key of Object.keys(obj)) {
    if (!allowed.has(key)) throw new BrandingError(key, 'is not a known branding field');
  }
  const displayName = text(obj, 'displayName', BRANDING_LIMITS.displayName, true)!;
  const color = obj['primaryColor'];
  if (color === undefined || color === null) throw new BrandingError('primaryColor', 'is required');
  if (typeof color !== 'string' || !HEX_COLOR.test(color)) {
    throw new BrandingError('primaryColor', `must be a colour as #rrggbb, got ${JSON.stringify(color)}`);
  }
  const branding: Branding = { displayName, primaryColor: color.toLowerCase() };

  const logo = obj['logo'];
  if (logo !== undefined && logo !== null) {
    if (!Buffer.isBuffer(logo)) throw new BrandingError('logo', 'must be a Buffer of PNG or JPEG bytes');
    if (logo.length === 0) throw new BrandingError('logo', 'must not be empty');
    if (logo.length > BRANDING_LIMITS.logoBytes) {
      throw new BrandingError('logo', `must be at most ${BRANDING_LIMITS.logoBytes} bytes, got ${logo.length}`);
    }
    if (imageFormat(logo) === null) throw new BrandingError('logo', 'must be a PNG or JPEG image');
    // An image whose header cannot be read is refused when it is test-embedded.
    const geometry = imageGeometry(logo);
    if (geometry) checkLogoGeometry(geometry);
    branding.logo = logo;
  }
  const footerText = text(obj, 'footerText', BRANDING_LIMITS.footerText, false);
  if (footerText !== undefined) branding.footerText = footerText;
  const contactLine = text(obj, 'contactLine', BRANDING_LIMITS.contactLine, false);
  if (contactLine !== undefined) branding.contactLine = contactLine;
  return branding;
}
