import { createHash, randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniformly random base62 string (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

const nextUlid = monotonicFactory();

export const newLiveAuditId = (): string => `aud_${nextUlid()}`;
export const newAccountId = (): string => `acct_${randomBase62(16)}`;
export const newWorkspaceId = (): string => `ws_${randomBase62(16)}`;
export const newKeyId = (): string => `key_${randomBase62(16)}`;
export const newRequestId = (): string => `req_${randomBase62(20)}`;

/** Test-mode audit ids are derived from (workspace, normalized domain): same key and domain, same id. */
export function testAuditId(workspaceId: string, domain: string): string {
  const digest = createHash('sha256').update(`test-audit\0${workspaceId}\0${domain}`).digest();
  let out = '';
  for (let i = 0; out.length < 26; i++) out += BASE62[digest[i] % 62];
  return `aud_${out}`;
}
