import type { Readable } from 'node:stream';

/**
 * Where rendered reports are kept. Keys are relative, slash-separated names chosen by the service
 * (never by a caller). The filesystem default keeps them under the data folder; a deployment with
 * several worker and API machines needs a shared backend (e.g. an S3-compatible bucket) behind the
 * same interface.
 */
export interface ReportStorage {
  /** Stores the bytes under key, replacing any earlier object atomically. */
  put(key: string, bytes: Buffer): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** A stream of the object and its size, or null when there is none. */
  open(key: string): Promise<{ stream: Readable; size: number } | null>;
  /** Removes the object; no error when it does not exist. */
  delete(key: string): Promise<void>;
}

const SAFE_KEY = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_.-]+)*$/;

/** Keys come from the service itself; refuse anything that could leave the root (or prefix) all the same. */
export function checkStorageKey(key: string): void {
  if (!SAFE_KEY.test(key) || key.split('/').some((part) => part === '..' || part === '.')) {
    throw new Error(`invalid report storage key ${JSON.stringify(key)}`);
  }
}
