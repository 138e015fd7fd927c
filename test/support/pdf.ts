import { deflateSync } from 'node:zlib';
import { PDFParse } from 'pdf-parse';

/** Helpers for tests that look inside produced PDFs. */

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A valid w×h RGB PNG: a two-colour diagonal, built from bytes. */
export function tinyPng(w = 8, h = 8): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const raw = Buffer.alloc(h * (1 + 3 * w));
  for (let y = 0; y < h; y++) {
    const row = y * (1 + 3 * w);
    raw[row] = 0; // filter: none
    for (let x = 0; x < w; x++) {
      const on = x >= y;
      raw[row + 1 + 3 * x] = on ? 0xe4 : 0xff;
      raw[row + 2 + 3 * x] = on ? 0x57 : 0xff;
      raw[row + 3 + 3 * x] = on ? 0x2e : 0xff;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export interface Extracted {
  text: string;
  pages: number;
  info: Record<string, unknown>;
}

export async function extract(pdf: Buffer): Promise<Extracted> {
  const parser = new PDFParse({ data: new Uint8Array(pdf) });
  try {
    const text = await parser.getText();
    const info = await parser.getInfo();
    return { text: text.text, pages: text.total, info: (info.info ?? {}) as Record<string, unknown> };
  } finally {
    await parser.destroy();
  }
}

/** Extracted text with runs of whitespace (line breaks of wrapped text) collapsed. */
export const flat = (s: string) => s.replace(/\s+/g, ' ');
/** Without any whitespace: long paragraphs wrap after hyphens, where the extractor adds a break. */
export const squash = (s: string) => s.replace(/\s+/g, '');
