import assert from 'node:assert/strict';
import { parseMultipart } from '../../src/dashboard/multipart';

describe('dashboard multipart forms', () => {
  it('reads text fields and files, keeping file bytes exact (CRLF and binary inside included)', () => {
    const logo = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x0d, 0x0a]);
    const body = Buffer.concat([
      Buffer.from(
        '--XyZ\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\ntok\r\n' +
          '--XyZ\r\nContent-Disposition: form-data; name="display_name"\r\n\r\nAcme Digital\r\n' +
          '--XyZ\r\nContent-Disposition: form-data; name="logo"; filename="logo.png"\r\nContent-Type: image/png\r\n\r\n',
      ),
      logo,
      Buffer.from('\r\n--XyZ--\r\n'),
    ]);
    const { fields, files } = parseMultipart(body, 'multipart/form-data; boundary=XyZ');
    assert.equal(fields.get('_csrf'), 'tok');
    assert.equal(fields.get('display_name'), 'Acme Digital');
    assert.equal(files.length, 1);
    assert.equal(files[0]!.field, 'logo');
    assert.equal(files[0]!.filename, 'logo.png');
    assert.ok(files[0]!.data.equals(logo));
  });

  it('yields nothing without a boundary or from a truncated body', () => {
    assert.equal(parseMultipart(Buffer.from('--a\r\n'), 'multipart/form-data').fields.size, 0);
    const truncated = parseMultipart(
      Buffer.from('--a\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\ntok'),
      'multipart/form-data; boundary=a',
    );
    assert.equal(truncated.fields.get('_csrf'), null);
  });
});
