import { createHash } from 'node:crypto';
import { randomBase62 } from '../ids';
import type { Mode } from '../schemas/audit';

const KEY_PATTERN = /^svc_(test|live)_[0-9A-Za-z]{32}$/;

export function generateApiKey(mode: Mode): string {
  return `svc_${mode}_${randomBase62(32)}`;
}

/** The mode a well-formed key belongs to, or null for anything of another shape. */
export function parseApiKey(key: string): { mode: Mode } | null {
  const match = KEY_PATTERN.exec(key);
  return match ? { mode: match[1] as Mode } : null;
}

/** Keys carry 190 bits of randomness, so a fast hash is enough; only this hash is stored. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** What listings show of a key: the environment prefix and four characters, never the secret. */
export function displayPrefix(key: string): string {
  return key.slice(0, 'svc_live_'.length + 4);
}
