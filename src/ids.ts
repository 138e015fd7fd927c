import { createHash, randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniformly random base62 string (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

// The OS's generator is asked for a block at a time, not once per id: every API request takes a
// request id, and a call per id was the largest single cost of serving a share badge. Each byte is
// used once and zeroed, so what made a key or a token does not stay behind in the block.
const RANDOM_BLOCK_BYTES = 4096;
let randomBlock = Buffer.alloc(0);
let randomAt = 0;

function randomByte(): number {
  if (randomAt >= randomBlock.length) {
    randomBlock = randomBytes(RANDOM_BLOCK_BYTES);
    randomAt = 0;
  }
  const byte = randomBlock[randomAt]!;
  randomBlock[randomAt++] = 0;
  return byte;
}

const nextUlid = monotonicFactory();

export const newLiveAuditId = (): string => `aud_${nextUlid()}`;
export const newAccountId = (): string => `acct_${randomBase62(16)}`;
export const newWorkspaceId = (): string => `ws_${randomBase62(16)}`;
export const newKeyId = (): string => `key_${randomBase62(16)}`;
export const newRequestId = (): string => `req_${randomBase62(20)}`;
/** Monitored sites and their runs: time-ordered, lower-case (docs/decisions.md, Monitoring). */
export const newSiteId = (): string => `site_${nextUlid().toLowerCase()}`;
export const newSiteRunId = (): string => `run_${nextUlid().toLowerCase()}`;
/** Notification channels (docs/decisions.md, "Notification channels"). */
export const newNotificationChannelId = (): string => `nch_${randomBase62(20)}`;
/** Share links of an audit (docs/decisions.md, "Share links"): the id names the link, never unlocks it. */
export const newShareId = (): string => `shr_${randomBase62(20)}`;

/** Test-mode audit ids are derived from (workspace, normalized domain): same key and domain, same id. */
export function testAuditId(workspaceId: string, domain: string): string {
  const digest = createHash('sha256').update(`test-audit\0${workspaceId}\0${domain}`).digest();
  let out = '';
  for (let i = 0; out.length < 26; i++) out += BASE62[digest[i] % 62];
  return `aud_${out}`;
}

/**
 * The shapes of the ids clients send back (prefix and alphabet, bounded length): anything else is
 * refused before a query, so garbage such as NUL bytes or megabyte strings never reaches Postgres.
 */
export const ID_PATTERNS = {
  audit: '^aud_[0-9A-Za-z]{1,64}$',
  webhook: '^wh_[0-9A-Za-z]{1,64}$',
  delivery: '^dlv_[0-9A-Za-z]{1,64}$',
  site: '^site_[0-9a-z]{1,64}$',
  site_run: '^run_[0-9a-z]{1,64}$',
  fingerprint: '^fp_[0-9a-z]{1,64}$',
  notification_channel: '^nch_[0-9A-Za-z]{1,64}$',
  share: '^shr_[0-9A-Za-z]{1,64}$',
} as const;

const ID_SHAPES = Object.fromEntries(
  Object.entries(ID_PATTERNS).map(([kind, pattern]) => [kind, new RegExp(pattern)]),
) as Record<keyof typeof ID_PATTERNS, RegExp>;

export function hasIdShape(kind: keyof typeof ID_PATTERNS, value: unknown): value is string {
  return typeof value === 'string' && ID_SHAPES[kind].test(value);
}
