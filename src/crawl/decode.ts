import zlib from 'node:zlib';
import type { OutboundResponse } from '../outbound/client';
import { storableText } from '../text/storable';
import { decodeText } from './encoding';

/**
 * The response body as text. The crawler asks for br/gzip (so the compression analyzer sees what
 * browsers get), hence bodies are decompressed here, bounded so a compression bomb cannot blow
 * memory, then decoded with the character encoding a browser would pick (encoding.ts).
 */
export function decodeBodyText(response: OutboundResponse, maxDecodedBytes: number): string {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const options = { maxOutputLength: maxDecodedBytes, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  let bytes: Buffer = response.body;
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') bytes = zlib.gunzipSync(response.body, options);
    else if (encoding === 'deflate') bytes = zlib.inflateSync(response.body, options);
    else if (encoding === 'br')
      bytes = zlib.brotliDecompressSync(response.body, {
        maxOutputLength: maxDecodedBytes,
        finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
      });
  } catch {
    // A truncated or oversized stream: keep what can be read rather than losing the page.
    bytes = Buffer.alloc(0);
  }
  // What the analyzers read, quote as evidence and the audit stores (docs/decisions.md, "Bytes from outside").
  return storableText(decodeText(bytes, response.headers['content-type']));
}
