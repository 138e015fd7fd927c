import type { EvidenceByCode } from './evidence-context';

/** What the DNS and email analyzers of the synthetic site report when they warn or fail. */
export const DNS_EMAIL_EVIDENCE = {
  DNS_DNSSEC_MISSING: ({ domain, site }) => [
    {
      message: `${site.registrable} is not signed with DNSSEC.`,
      evidence: `no DS record for ${site.registrable}`,
      urls: [domain],
    },
  ],
  DNS_CAA_MISSING: ({ domain, site }) => [
    {
      message: 'No CAA record restricts which authorities may issue certificates.',
      evidence: `no CAA record at ${site.host}${site.host !== site.registrable ? ` or ${site.registrable}` : ''}`,
      urls: [domain],
    },
  ],
  DNS_IPV6_MISSING: ({ domain, site, rng }) => [
    {
      message: `${site.host} has no IPv6 address.`,
      evidence: `${site.host}: A 203.0.113.${rng.int(2, 254)}; AAAA (none)`,
      urls: [domain],
    },
  ],
  EMAIL_SPF_MISSING: ({ domain, site, rng }) => [
    rng.chance(0.7)
      ? {
          message: `${site.registrable} publishes no SPF record.`,
          evidence: `no TXT record starting with v=spf1 at ${site.registrable}`,
          urls: [domain],
        }
      : {
          message: `${site.registrable} publishes two SPF records, which makes SPF fail.`,
          evidence: 'v=spf1 include:_spf.google.com ~all | v=spf1 include:sendgrid.net ~all',
          urls: [domain],
        },
  ],
  EMAIL_SPF_WEAK: ({ domain, rng }) => {
    const ending = rng.pick(['?all', '+all', '']);
    return [
      {
        message:
          ending === ''
            ? 'The SPF record has no all mechanism, so unlisted servers are not rejected.'
            : `The SPF record ends with ${ending}, so any server passes.`,
        evidence: `v=spf1 include:_spf.google.com include:sendgrid.net${ending ? ` ${ending}` : ''}`,
        urls: [domain],
      },
    ];
  },
  EMAIL_DMARC_MISSING: ({ domain, site }) => [
    {
      message: `No DMARC record at _dmarc.${site.registrable}.`,
      evidence: `no TXT record at _dmarc.${site.registrable}`,
      urls: [domain],
    },
  ],
  EMAIL_DMARC_WEAK: ({ domain, site }) => [
    {
      message: 'The DMARC policy is p=none: spoofed mail is still delivered.',
      evidence: `v=DMARC1; p=none; rua=mailto:dmarc@${site.registrable}`,
      urls: [domain],
    },
  ],
  EMAIL_NO_MAIL_HYGIENE: ({ domain, site }) => [
    {
      message: `${site.registrable} has no MX record and does not declare that it sends no mail.`,
      evidence: 'MX (none); no null MX; SPF without -all',
      urls: [domain],
    },
  ],
} satisfies EvidenceByCode;
