import type { CatalogRow } from './row';

/** The DNS and email analyzers, in catalog order (docs/analyzers.md, Catalog). */
export const DNS_EMAIL_ROWS = [
  [
    'DNS_DNSSEC_MISSING',
    'M',
    'DNSSEC not enabled',
    'Without DNSSEC, resolvers cannot verify DNS answers, so forged records can send your visitors and email to an attacker.',
    'Enable DNSSEC signing at your DNS provider and publish the DS record at your registrar.',
  ],
  [
    'DNS_CAA_MISSING',
    'L',
    'No CAA record',
    'A CAA record restricts which certificate authorities may issue certificates for the domain, reducing the risk of a mis-issued certificate.',
    'Publish CAA records naming the authorities you use, for example `CAA 0 issue "letsencrypt.org"`, plus an `iodef` contact.',
  ],
  [
    'DNS_IPV6_MISSING',
    'L',
    'No IPv6 address (AAAA record)',
    'Many mobile and broadband users are on IPv6; without an AAAA record they reach the site through translation gateways that add latency and failure points.',
    'Publish an AAAA record for the site (most CDNs and hosts provide one) and check that the site answers over IPv6.',
  ],
  [
    'EMAIL_SPF_MISSING',
    'H',
    'No valid SPF record',
    'Without exactly one SPF record, receivers cannot tell which servers may send mail for the domain: spoofed mail is more likely to be delivered, and your own mail more likely to land in spam.',
    'Publish a single TXT record starting with `v=spf1` that lists your senders and ends with `-all` (or `~all`), for example `v=spf1 include:_spf.google.com -all`.',
  ],
  [
    'EMAIL_SPF_WEAK',
    'M',
    'SPF policy too permissive',
    '`+all`, `?all` or a missing `all` lets any server pass SPF, and more than 10 DNS lookups makes the record fail with a permanent error.',
    'End the record with `-all` or `~all`, and remove unused includes (or flatten nested ones) to stay within 10 DNS lookups.',
  ],
  [
    'EMAIL_DMARC_MISSING',
    'H',
    'No DMARC record',
    'Without DMARC, receivers have no policy for mail that fails SPF and DKIM, so attackers can send phishing mail that appears to come from your domain; large mailbox providers now require DMARC from bulk senders.',
    'Publish a TXT record at `_dmarc.<your domain>`, for example `v=DMARC1; p=quarantine; rua=mailto:dmarc@<your domain>`, watch the reports, then move to `p=reject`.',
  ],
  [
    'EMAIL_DMARC_WEAK',
    'M',
    'DMARC policy does not enforce',
    '`p=none` only monitors: mail that spoofs your domain is still delivered.',
    'Once DMARC reports show your legitimate senders pass, raise the policy to `p=quarantine` and then `p=reject`.',
  ],
  [
    'EMAIL_NO_MAIL_HYGIENE',
    'I',
    'Domain does not declare that it sends no mail',
    'A domain that sends no email can say so (null MX, `v=spf1 -all`, DMARC `p=reject`), so that nobody can send convincing mail in its name.',
    'If the domain sends no mail, publish a null MX record (`MX 0 .`), `v=spf1 -all` and `v=DMARC1; p=reject`.',
  ],
] as const satisfies readonly CatalogRow[];
