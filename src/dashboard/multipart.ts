/** A file of a multipart/form-data form (the branding page's logo). */
export interface UploadedFile {
  field: string;
  filename: string;
  data: Buffer;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * A multipart/form-data body (RFC 7578) as text fields and files. Malformed parts are skipped: the
 * CSRF check then finds no token and refuses the request.
 */
export function parseMultipart(body: Buffer, contentType: string): { fields: URLSearchParams; files: UploadedFile[] } {
  const fields = new URLSearchParams();
  const files: UploadedFile[] = [];
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!boundary) return { fields, files };
  const delimiter = Buffer.from(`\r\n--${boundary[1] ?? boundary[2]}`);
  // Prefixing CRLF lets the first delimiter match like every other one.
  const text = Buffer.concat([Buffer.from('\r\n'), body]);
  let start = text.indexOf(delimiter);
  while (start >= 0) {
    const partStart = start + delimiter.length + 2; // the delimiter's own CRLF (or "--" at the end)
    const next = text.indexOf(delimiter, partStart);
    if (next < 0) break;
    const part = text.subarray(partStart, next);
    const headerEnd = part.indexOf(HEADER_END);
    if (headerEnd >= 0) {
      const headers = part.subarray(0, headerEnd).toString('utf8');
      const data = part.subarray(headerEnd + HEADER_END.length);
      const name = /content-disposition:[^\r\n]*\bname="([^"]*)"/i.exec(headers)?.[1];
      const filename = /content-disposition:[^\r\n]*\bfilename="([^"]*)"/i.exec(headers)?.[1];
      if (name !== undefined && filename !== undefined) files.push({ field: name, filename, data: Buffer.from(data) });
      else if (name !== undefined) fields.append(name, data.toString('utf8'));
    }
    start = next;
  }
  return { fields, files };
}
