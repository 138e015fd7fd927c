import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import type { Config } from '../config';
// Its module imports checkStorageKey from this one; both are used only after loading, so the cycle is harmless.
import { S3ReportStorage } from './s3-storage';

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

/** The storage the configuration names: the bucket of REPORT_STORAGE_URL, else files under reportsDir. */
export function createReportStorage(config: Pick<Config, 'reportsDir' | 'reportObjectStore'>): ReportStorage {
  return config.reportObjectStore
    ? new S3ReportStorage(config.reportObjectStore)
    : new FileReportStorage(config.reportsDir);
}

export class FileReportStorage implements ReportStorage {
  constructor(readonly root: string) {}

  private pathOf(key: string): string {
    checkStorageKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    // Write aside, then rename: a reader never sees a half-written PDF.
    const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(temporary, bytes);
      await rename(temporary, target);
    } catch (err) {
      await rm(temporary, { force: true });
      throw err;
    }
  }

  async exists(key: string): Promise<boolean> {
    return stat(this.pathOf(key)).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return false;
        throw err;
      },
    );
  }

  async open(key: string): Promise<{ stream: Readable; size: number } | null> {
    const file = this.pathOf(key);
    try {
      const { size } = await stat(file);
      return { stream: createReadStream(file), size };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }
}
