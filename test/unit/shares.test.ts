import assert from 'node:assert/strict';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { brandStyle } from '../../src/dashboard/share/share-document';
import {
  checkShareAccess,
  isShareToken,
  newShareToken,
  shareTokenHash,
  signShareAccess,
  SHARE_ACCESS_TTL_MS,
} from '../../src/shares/access';
import { badgeSvg } from '../../src/shares/badge';

const KEY = { id: 'rsk_abcdefghijklmnop', secret: Buffer.alloc(32, 7) };
const NOW = new Date('2026-11-28T10:00:00Z');
const SHARE = { id: 'shr_one', expires_at: new Date('2026-12-28T10:00:00Z') };
const find = async (id: string) => (id === KEY.id ? KEY : undefined);

describe('share links: tokens and the access cookie', () => {
  it('makes 256-bit base64url tokens, stored only as their SHA-256', () => {
    const token = newShareToken();
    assert.ok(isShareToken(token));
    assert.notEqual(newShareToken(), token);
    assert.equal(shareTokenHash(token).length, 32);
    for (const bad of ['', 'a'.repeat(42), 'a'.repeat(44), `${'a'.repeat(42)}=`, `${'a'.repeat(42)}/`, 42])
      assert.equal(isShareToken(bad), false, String(bad));
  });

  it('opens the link it was signed for, until it expires, and nothing once altered', async () => {
    const { value, maxAgeSeconds } = signShareAccess(KEY, SHARE, NOW);
    assert.equal(maxAgeSeconds, SHARE_ACCESS_TTL_MS / 1000);
    assert.equal(await checkShareAccess(value, SHARE.id, find, NOW), true);
    assert.equal(await checkShareAccess(value, 'shr_two', find, NOW), false, 'another link');
    const late = new Date(NOW.getTime() + SHARE_ACCESS_TTL_MS);
    assert.equal(await checkShareAccess(value, SHARE.id, find, late), false, 'expired');
    const [keyId, expires, mac] = value.split('.');
    const forged = [
      `${keyId}.${Number(expires) + 3600}.${mac}`,
      `rsk_unknownunknown0.${expires}.${mac}`,
      `${keyId}.${expires}.${mac!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`,
      `${keyId}.${expires}`,
      '',
      undefined,
    ];
    // Every other last character too, including the three a base64 decoder reads as the same bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (const c of alphabet.replace(mac!.at(-1)!, '')) forged.push(`${keyId}.${expires}.${mac!.slice(0, 42)}${c}`);
    for (const cookie of forged) assert.equal(await checkShareAccess(cookie, SHARE.id, find, NOW), false, cookie);
  });

  it('never outlives the link itself', () => {
    const ending = { ...SHARE, expires_at: new Date(NOW.getTime() + 60_000) };
    assert.equal(signShareAccess(KEY, ending, NOW).maxAgeSeconds, 60);
  });
});

describe('share links: the badge', () => {
  const parse = (svg: string) => new XMLParser({ ignoreAttributes: false }).parse(svg).svg;

  it('is well-formed SVG naming the site, grade and score, in the score colour', () => {
    const svg = badgeSvg({ domain: 'https://xn--bcher-kva.example', status: 'completed', score: 82, grade: 'B' });
    assert.equal(XMLValidator.validate(svg), true);
    const root = parse(svg);
    assert.equal(root['@_role'], 'img');
    assert.equal(root.title['#text'], 'Audit of bücher.example: grade B, score 82 out of 100');
    assert.match(svg, /B · 82\/100/);
    assert.match(svg, /fill="#65a30d"/);
  });

  it('escapes what the site name holds, and says when there is no score yet', () => {
    const svg = badgeSvg({ domain: 'https://a.example/<&"\'>', status: 'running', score: null, grade: null });
    assert.equal(XMLValidator.validate(svg), true);
    assert.match(parse(svg).title['#text'], /not completed yet/);
    assert.match(svg, />pending</);
    assert.match(badgeSvg({ domain: 'https://a.example', status: 'failed', score: null, grade: null }), />failed</);
  });
});

describe('share links: the brand colours of the page', () => {
  it('puts white or near-black text on the band, whichever reads better, and links in the colour only when it reads on white', () => {
    assert.equal(
      brandStyle({ displayName: 'A', primaryColor: '#0b6e4f' }),
      ':root{--brand:#0b6e4f;--brand-ink:#ffffff;--accent:#0b6e4f}',
    );
    assert.equal(
      brandStyle({ displayName: 'A', primaryColor: '#FFE066' }),
      ':root{--brand:#ffe066;--brand-ink:#111827;--accent:#3d4eac}',
    );
    // Only ever a #rrggbb colour inside the style: anything else falls back to the neutral look.
    assert.match(brandStyle({ displayName: 'A', primaryColor: 'red;}</style>' }), /--brand:#2f4858;/);
  });
});
