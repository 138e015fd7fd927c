import { parentPort } from 'node:worker_threads';
import PDFDocument from 'pdfkit';
import { BrandingError, checkLogoGeometry, type ImageGeometry } from './branding';
import { checkLogoEmbeds } from './pdf';

/**
 * Worker thread of LogoChecks: test-embeds one logo at a time, off the API's event loop. Before
 * pdfkit decodes anything, the geometry pdfkit itself read from the headers is bounded (the
 * API's own header parse is a first, cheaper pass).
 */
interface OpenedImage {
  width: number;
  height: number;
  colorSpace?: string;
  bits?: number;
  image?: { colors: number; hasAlphaChannel: boolean; bits: number };
}

export interface LogoCheckRequest {
  id: number;
  logo: Uint8Array;
}

export interface LogoCheckReply {
  id: number;
  /** The BrandingError message when the logo is refused. */
  refusal?: string;
}

const JPEG_CHANNELS: Record<string, number> = { DeviceGray: 1, DeviceRGB: 3, DeviceCMYK: 4 };

function geometryAsPdfkitReadsIt(logo: Buffer): ImageGeometry {
  let opened: OpenedImage;
  try {
    opened = (
      new PDFDocument({ autoFirstPage: false }) as unknown as { openImage(src: Buffer): OpenedImage }
    ).openImage(logo);
  } catch (err) {
    throw new BrandingError(
      'logo',
      `could not be read as an image (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  const png = opened.image;
  const channels = png ? png.colors + (png.hasAlphaChannel ? 1 : 0) : (JPEG_CHANNELS[opened.colorSpace ?? ''] ?? 4);
  const bits = png ? png.bits : (opened.bits ?? 8);
  return { width: opened.width, height: opened.height, channels, bytesPerSample: bits > 8 ? 2 : 1 };
}

async function check(logo: Buffer): Promise<string | undefined> {
  try {
    checkLogoGeometry(geometryAsPdfkitReadsIt(logo));
    await checkLogoEmbeds(logo);
    return undefined;
  } catch (err) {
    if (err instanceof BrandingError) return err.message;
    throw err;
  }
}

parentPort?.on('message', (request: LogoCheckRequest) => {
  check(Buffer.from(request.logo.buffer, request.logo.byteOffset, request.logo.byteLength)).then(
    (refusal) => parentPort?.postMessage({ id: request.id, refusal } satisfies LogoCheckReply),
    (err: unknown) =>
      parentPort?.postMessage({
        id: request.id,
        refusal: `branding.logo: could not be read as an image (${String(err)})`,
      } satisfies LogoCheckReply),
  );
});
