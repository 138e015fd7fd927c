import pg from 'pg';
import type { Knex } from 'knex';

/**
 * Cross-instance cache coherence through Postgres LISTEN/NOTIFY. Writers publish a change inside
 * their transaction (delivered only if it commits); every API instance listens and drops what it
 * cached about that entity. While the listening connection is down, `healthy` is false and caches
 * must not be trusted (they are cleared on reconnect).
 */
export const CHANGE_CHANNEL = 'audit_service_changes';

export type ChangeKind = 'account' | 'key' | 'audit' | 'signing_key' | 'share' | 'branding';
export interface Change {
  kind: ChangeKind;
  id: string;
}

/** The feeds listening in this process: they hear its own changes as soon as they are committed. */
const feedsHere = new Set<ChangeFeed>();

export async function publishChange(db: Knex | Knex.Transaction, change: Change): Promise<void> {
  await db.raw('SELECT pg_notify(?, ?)', [CHANGE_CHANNEL, JSON.stringify(change)]);
  // The NOTIFY comes back a round trip later; a request of this process that follows the write must
  // not see what it replaced in between (a link just revoked, a branding just saved).
  const heardHere = () => {
    for (const feed of feedsHere) feed.hear(change);
  };
  if (db.isTransaction !== true) heardHere();
  else (db as Knex.Transaction).executionPromise.then(heardHere, () => undefined);
}

export class ChangeFeed {
  private client: pg.Client | null = null;
  private closed = false;
  private listeners: Array<(change: Change | 'reset') => void> = [];
  healthy = false;

  constructor(private readonly databaseUrl: string) {}

  /** Receives each change, or 'reset' when changes may have been missed (forget everything). */
  subscribe(listener: (change: Change | 'reset') => void): void {
    this.listeners.push(listener);
  }

  async start(): Promise<void> {
    await this.connect();
    feedsHere.add(this);
  }

  /** A change this process committed (publishChange); the same change's NOTIFY follows, and is harmless twice. */
  hear(change: Change): void {
    this.emit(change);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('notification', (message) => {
      if (message.channel !== CHANGE_CHANNEL || !message.payload) return;
      try {
        this.emit(JSON.parse(message.payload) as Change);
      } catch {
        this.emit('reset');
      }
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    await client.connect();
    await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    this.client = client;
    this.emit('reset'); // anything cached before (re)connecting may be stale
    this.healthy = true;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    this.healthy = false;
    this.emit('reset');
    if (this.closed) return;
    const retry = (delayMs: number) =>
      setTimeout(() => {
        if (this.closed) return;
        this.connect().catch(() => retry(Math.min(delayMs * 2, 10_000)));
      }, delayMs).unref();
    retry(200);
  }

  private emit(change: Change | 'reset'): void {
    for (const listener of this.listeners) listener(change);
  }

  async stop(): Promise<void> {
    this.closed = true;
    this.healthy = false;
    feedsHere.delete(this);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
