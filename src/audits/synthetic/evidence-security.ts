import type { Severity } from '../../schemas/audit';
import { everywhere, type EvidenceByCode } from './evidence-context';

/** What the security analyzers of the synthetic site report when they warn or fail. */
export const SECURITY_EVIDENCE = {
  SEC_HTTPS_UNAVAILABLE: ({ domain, site }) => [
    {
      message: 'The site could not be reached over HTTPS; it is served only over unencrypted http://.',
      evidence: `https://${site.host}: connection refused on port 443`,
      urls: [domain],
    },
  ],
  SEC_HTTP_NOT_REDIRECTED: ({ site, rng }) => [
    rng.chance(0.5)
      ? {
          message: 'http:// answers with the page itself instead of redirecting to https://.',
          evidence: `GET http://${site.host}/ → HTTP 200 (no redirect)`,
          urls: [`http://${site.host}/`],
        }
      : {
          message: 'http:// first redirects to another host, so HSTS cannot be set for this one.',
          evidence: `GET http://${site.host}/ → 301 https://www.${site.registrable}/`,
          urls: [`http://${site.host}/`],
        },
  ],
  SEC_TLS_CERT_INVALID: ({ domain, site, rng }) => [
    rng.chance(0.5)
      ? {
          message: 'The certificate chain is incomplete: the intermediate certificate is not served.',
          evidence: `unable to verify the first certificate (subject CN=${site.host}, issuer CN=R11)`,
          urls: [domain],
        }
      : {
          message: 'The certificate does not cover this host name.',
          evidence: `certificate names *.${rng.pick(['herokuapp.com', 'netlify.app', 'hosting-provider.net'])}, not ${site.host}`,
          urls: [domain],
        },
  ],
  SEC_TLS_CERT_EXPIRING: ({ domain, rng }) => {
    const days = rng.int(2, 29);
    return [
      {
        message: `The certificate expires in ${days} days.`,
        evidence: `notAfter in ${days} days; issuer: ${rng.pick(["Let's Encrypt R11", 'Sectigo RSA Domain Validation', 'DigiCert Global G2'])}`,
        urls: [domain],
        ...(days <= 7 ? { severity: 'high' as Severity } : {}),
      },
    ];
  },
  SEC_TLS_LEGACY_PROTOCOL: ({ domain, rng }) => {
    const both = rng.chance(0.6);
    return [
      {
        message: `The server accepts ${both ? 'TLS 1.0 and TLS 1.1' : 'TLS 1.1'} handshakes.`,
        evidence: both ? 'TLSv1: accepted; TLSv1.1: accepted' : 'TLSv1: refused; TLSv1.1: accepted',
        urls: [domain],
      },
    ];
  },
  SEC_TLS_WEAK_KEY: ({ domain }) => [
    { message: 'The certificate uses a 1024-bit RSA key.', evidence: 'public key: RSA 1024 bits', urls: [domain] },
  ],
  SEC_HSTS_MISSING: (ctx) => [
    {
      message: `HTTPS page served without a Strict-Transport-Security header.${everywhere(ctx)}`,
      evidence: 'Strict-Transport-Security: (absent)',
    },
  ],
  SEC_HSTS_WEAK: (ctx) =>
    ctx.status === 'warn'
      ? [
          {
            message: `HSTS max-age is 15768000 (182.5 days), under the recommended one year.${everywhere(ctx)}`,
            evidence: 'Strict-Transport-Security: max-age=15768000',
            subject: 'max-age under 1 year',
          },
        ]
      : [
          {
            message: `HSTS max-age is 86400 (1 days), under the 6-month minimum.${everywhere(ctx)}`,
            evidence: 'Strict-Transport-Security: max-age=86400; includeSubDomains',
            subject: 'max-age under 6 months',
          },
        ],
  SEC_CSP_MISSING: (ctx) => [
    {
      message: `No Content-Security-Policy header or <meta http-equiv="Content-Security-Policy">.${everywhere(ctx)}`,
      evidence: 'Content-Security-Policy: (absent)',
      subject: 'absent',
    },
  ],
  SEC_CSP_UNSAFE: (ctx) => [
    {
      message: `The policy allows 'unsafe-inline' scripts and sets no object-src.${everywhere(ctx)}`,
      evidence:
        "Content-Security-Policy: default-src 'self'; script-src 'self' 'unsafe-inline' https://www.googletagmanager.com; img-src 'self' data: https:",
      subject: 'script-src',
    },
  ],
  SEC_CLICKJACKING: (ctx) => [
    {
      message: `Neither X-Frame-Options nor a CSP frame-ancestors directive stops other sites from framing this page.${everywhere(ctx)}`,
      evidence: 'X-Frame-Options: (absent); no CSP frame-ancestors directive',
      subject: 'unrestricted',
    },
  ],
  SEC_XCTO_MISSING: (ctx) => [
    {
      message: `No X-Content-Type-Options header.${everywhere(ctx)}`,
      evidence: 'X-Content-Type-Options: (absent)',
      subject: 'absent',
    },
  ],
  SEC_REFERRER_POLICY_UNSAFE: (ctx) => {
    const policy = ctx.rng.pick(['no-referrer-when-downgrade', 'unsafe-url']);
    return [
      {
        message: `Referrer policy "${policy}" sends this site's addresses to other sites.${everywhere(ctx)}`,
        evidence: `Referrer-Policy: ${policy}`,
        subject: policy,
      },
    ];
  },
  SEC_COOKIE_INSECURE: ({ domain, rng }) => {
    const cookie = rng.pick(['PHPSESSID', 'session_id', 'connect.sid', 'laravel_session']);
    return [
      {
        message: `Cookie ${cookie} is set without the Secure and HttpOnly attributes.`,
        evidence: `Set-Cookie: ${cookie}=…; path=/`,
        urls: [`${domain}/login`],
        subject: `${cookie} secure`,
      },
    ];
  },
  SEC_CORS_CREDENTIALED_ANY: ({ domain }) => [
    {
      message: 'The API reflects any Origin and allows credentials.',
      evidence:
        'Origin: https://attacker.example → Access-Control-Allow-Origin: https://attacker.example; Access-Control-Allow-Credentials: true',
      urls: [`${domain}/api/me`],
    },
  ],
  SEC_SRI_MISSING: (ctx) => {
    const evidence = ctx.rng.pick([
      '<script src="https://cdn.jsdelivr.net/npm/jquery@3.7.1/dist/jquery.min.js"></script>',
      '<script src="https://unpkg.com/alpinejs@3.14.1/dist/cdn.min.js" defer></script>',
      '<script src="https://cdnjs.cloudflare.com/ajax/libs/lodash.js/4.17.21/lodash.min.js"></script>',
    ]);
    // The real analyzer's subject is the script's address.
    const src = /src="([^"]+)"/.exec(evidence)![1]!;
    return [
      { message: `External script loaded without an integrity attribute.${everywhere(ctx)}`, evidence, subject: src },
    ];
  },
  SEC_MIXED_CONTENT: ({ site }) => [
    {
      message: 'HTTPS page loads an image over http://.',
      evidence: `<img src="http://${site.host}/images/hero.jpg" alt="">`,
      subject: `img http://${site.host}/images/hero.jpg`,
    },
  ],
  SEC_VERSION_DISCLOSURE: (ctx) => {
    const header = ctx.rng.pick([
      'Server: nginx/1.18.0 (Ubuntu)',
      'Server: Apache/2.4.41 (Ubuntu)',
      'X-Powered-By: PHP/8.1.2',
      'X-Powered-By: Express',
      'Server: Microsoft-IIS/10.0',
    ]);
    const name = header.split(':')[0]!;
    return [
      {
        message: `${name === 'Server' ? 'The Server header names the software version.' : 'The X-Powered-By header discloses the technology stack.'}${everywhere(ctx)}`,
        evidence: header,
        subject: name.toLowerCase(),
      },
    ];
  },
  SEC_SECURITY_TXT_MISSING: ({ domain }) => [
    {
      message: 'No security.txt file is published.',
      evidence: 'GET /.well-known/security.txt → HTTP 404',
      urls: [`${domain}/.well-known/security.txt`],
    },
  ],
} satisfies EvidenceByCode;
