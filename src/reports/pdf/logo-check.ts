import PDFDocument from 'pdfkit';
import { BrandingError } from '../branding';

/**
 * Throws a BrandingError when pdfkit cannot embed the logo. A file can carry a PNG or JPEG
 * signature and still be unreadable; finding out when the branding is saved beats failing every
 * later render.
 */
export async function checkLogoEmbeds(logo: Buffer): Promise<void> {
  const doc = new PDFDocument({ autoFirstPage: true, compress: false });
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('data', () => undefined);
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  try {
    doc.image(logo, 0, 0, { fit: [140, 70] });
    doc.end();
    await ended;
  } catch (err) {
    throw new BrandingError('logo', `could not be read as an image (${(err as Error).message})`);
  }
}
