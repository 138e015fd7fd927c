import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { BrandingError, imageGeometry, validateBranding } from '../../src/reports/branding';
import { LogoChecks } from '../../src/reports/logo-checks';
import { tinyPng } from '../support/pdf';

/** The signature and IHDR of a PNG, then an IDAT of zero bytes: enough for the header checks. */
function pngWith(width: number, height: number, colorType: number, bitDepth = 8): Buffer {
  const png = Buffer.from(tinyPng(1, 1));
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  png[24] = bitDepth;
  png[25] = colorType;
  return png;
}

function jpegWith(width: number, height: number, components: number, leading: Buffer = Buffer.alloc(0)): Buffer {
  const frame = Buffer.from([0xff, 0xc2, 0x00, 0x11, 0x08, 0, 0, 0, 0, components]);
  frame.writeUInt16BE(height, 5);
  frame.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), leading, frame, Buffer.alloc(9), Buffer.from([0xff, 0xd9])]);
}

function refusal(logo: Buffer): string {
  try {
    validateBranding({ displayName: 'Acme', primaryColor: '#000000', logo });
  } catch (err) {
    assert.ok(err instanceof BrandingError);
    return err.message;
  }
  return 'accepted';
}

describe('logo geometry', () => {
  it('reads PNG and JPEG headers as pdfkit does', () => {
    assert.deepEqual(imageGeometry(pngWith(300, 100, 6)), { width: 300, height: 100, channels: 4, bytesPerSample: 1 });
    assert.deepEqual(imageGeometry(pngWith(300, 100, 0, 16)), {
      width: 300,
      height: 100,
      channels: 1,
      bytesPerSample: 2,
    });
    // An APP0 segment before the frame header is skipped by its length.
    const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x06, 0x4a, 0x46, 0x49, 0x46]);
    assert.deepEqual(imageGeometry(jpegWith(640, 480, 3, app0)), {
      width: 640,
      height: 480,
      channels: 3,
      bytesPerSample: 1,
    });
    assert.equal(imageGeometry(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])), null);
  });

  it('bounds the decoded size as well as the dimensions', () => {
    assert.equal(refusal(pngWith(2048, 2048, 6)), 'accepted');
    assert.equal(refusal(pngWith(4096, 4096, 0)), 'accepted');
    assert.match(
      refusal(pngWith(4096, 4096, 4)),
      /must decode to at most 16 MiB \(width × height × channels\), got 32 MiB \(4096×4096, 2 channels\)/,
    );
    assert.match(refusal(pngWith(2048, 2048, 6, 16)), /got 32 MiB \(2048×2048, 4 channels, 16 bits\)/);
    assert.match(refusal(pngWith(4097, 1, 0)), /must be at most 4096×4096 pixels, got 4097×1/);
    assert.match(refusal(jpegWith(60_000, 10, 1)), /must be at most 4096×4096 pixels, got 60000×10/);
    assert.match(refusal(jpegWith(4096, 4096, 3)), /got 48 MiB \(4096×4096, 3 channels\)/);
  });
});

describe('logo checks in a worker thread', function () {
  this.timeout(60_000);
  const checks = new LogoChecks({ concurrency: 1, timeoutMs: 30_000, idleMs: 1000 });
  after(() => checks.close());

  it('accepts a logo pdfkit embeds and refuses one it cannot read', async () => {
    await checks.check(tinyPng(200, 60));
    await assert.rejects(
      checks.check(pngWith(8, 8, 2).subarray(0, 33)),
      (err: unknown) => err instanceof BrandingError && /could not be read as an image/.test(err.message),
    );
  });

  it('bounds the geometry pdfkit itself reads, whatever the first header said', async () => {
    // A second IHDR after the image data: pdfkit's PNG reader takes the last one.
    const honest = tinyPng(8, 8);
    const iend = honest.length - 12;
    const second = pngWith(4096, 4096, 4).subarray(8, 33);
    const forged = Buffer.concat([honest.subarray(0, iend), second, honest.subarray(iend)]);
    assert.equal(refusal(forged), 'accepted', 'the first header passes the quick check');
    await assert.rejects(
      checks.check(forged),
      (err: unknown) => err instanceof BrandingError && /must decode to at most 16 MiB/.test(err.message),
    );
  });

  it('runs checks one at a time and keeps the event loop free', async () => {
    const rgba = (shade: number) => {
      const raw = Buffer.alloc(1024 * (1 + 1024 * 4), shade);
      for (let y = 0; y < 1024; y++) raw[y * (1 + 1024 * 4)] = 0;
      const png = pngWith(1024, 1024, 6);
      const idat = deflateSync(raw);
      const chunk = Buffer.alloc(12 + idat.length);
      chunk.writeUInt32BE(idat.length, 0);
      chunk.write('IDAT', 4, 'latin1');
      idat.copy(chunk, 8);
      // pdfkit does not verify CRCs: the zero CRC is fine for this purpose.
      return Buffer.concat([png.subarray(0, 33), chunk, png.subarray(png.length - 12)]);
    };
    const logos = [rgba(10), rgba(20), rgba(30)];
    let longestPause = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      longestPause = Math.max(longestPause, performance.now() - last);
      last = performance.now();
    }, 5);
    await Promise.all(logos.map((logo) => checks.check(logo)));
    clearInterval(ticker);
    assert.ok(longestPause < 250, `the event loop paused ${Math.round(longestPause)} ms`);
  });
});
