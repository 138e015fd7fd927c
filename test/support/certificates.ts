import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** A self-signed certificate for localhost / 127.0.0.1 made with the openssl CLI; null without openssl. */
export function selfSignedCertificate(dir: string): { keyPath: string; certPath: string } | null {
  const keyPath = path.join(dir, 'key.pem');
  const certPath = path.join(dir, 'cert.pem');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-keyout',
        keyPath,
        '-out',
        certPath,
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    return { keyPath, certPath };
  } catch {
    return null;
  }
}
