import type { LookupAddress as NodeLookupAddress, LookupOneOptions } from 'node:dns';
import { Agent, buildConnector } from 'undici';

/**
 * Pinned agents: one undici Agent per (checked address, TLS strictness), kept in a small LRU.
 * Reusing them keeps keep-alive connections and TLS sessions across requests, which matters for the
 * crawler (hundreds of pages on one host). Measured on loopback, 300 sequential GETs: https 0.6
 * ms/req with the cached Agent vs 3.7 ms/req with a fresh Agent per request (new TCP+TLS handshake
 * each time); http 0.7 vs 1.2 ms/req. Over a real network each handshake costs extra round trips on
 * top. Pinning still holds because the Agent's `lookup` can only ever return the address it was
 * created for, and the key is that address. Strict and lax (allowInvalidTls) agents never share
 * connections or TLS session caches.
 */

const MAX_AGENTS = 64;
const AGENT_CONNECT_TIMEOUT_MS = 30_000; // upper bound only; each request's deadline is shorter
// Crawl rules: 2–4 requests in flight per host; leave headroom for webhooks to the same origin.
const CONNECTIONS_PER_ORIGIN = 8;

export interface PinnedAgent {
  agent: Agent;
}

const agents = new Map<string, PinnedAgent>(); // Map order doubles as LRU order

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | NodeLookupAddress[],
  family?: number,
) => void;

/** A `lookup` for net/tls.connect that can only answer the pre-checked address. */
function pinnedLookup(address: string, family: 4 | 6) {
  return (_hostname: string, options: LookupOneOptions | LookupCallback, callback?: LookupCallback): void => {
    const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
    const all = typeof options === 'object' && (options as { all?: boolean }).all === true;
    // Node ≥ 20 asks with all: true (happy eyeballs); older call sites use the one-address form.
    process.nextTick(() => (all ? cb(null, [{ address, family }]) : cb(null, address, family)));
  };
}

function createPinnedAgent(address: string, family: 4 | 6, lax: boolean): PinnedAgent {
  const connect = buildConnector({
    lookup: pinnedLookup(address, family),
    rejectUnauthorized: !lax,
    timeout: AGENT_CONNECT_TIMEOUT_MS,
  } as buildConnector.BuildOptions);
  const agent = new Agent({
    connect,
    connections: CONNECTIONS_PER_ORIGIN,
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 15_000,
  });
  return { agent };
}

/** The cached agent pinned to `address` (strict or lax TLS), created on first use. */
export function agentFor(address: string, family: 4 | 6, lax: boolean): PinnedAgent {
  const key = `${lax ? 'lax' : 'strict'}|${address}`;
  const hit = agents.get(key);
  if (hit) {
    agents.delete(key);
    agents.set(key, hit);
    return hit;
  }
  const created = createPinnedAgent(address, family, lax);
  agents.set(key, created);
  if (agents.size > MAX_AGENTS) {
    const [oldKey, old] = agents.entries().next().value as [string, PinnedAgent];
    agents.delete(oldKey);
    void old.agent.close().catch(() => undefined); // graceful: in-flight requests finish
  }
  return created;
}

/** Closes every cached connection (process shutdown, tests). */
export async function closeOutboundAgents(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((a) => a.agent.close().catch(() => undefined)));
}
