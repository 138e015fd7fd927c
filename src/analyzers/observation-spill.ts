import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { StringInterner } from '../text/string-interner';
import { unpackValues } from './observed-part';

/** Pages whose observations are held in memory before they are written out (per analyzer). */
export const SPILL_CHUNK_PAGES = 1_000;

interface Chunk {
  offset: number;
  length: number;
  /** Written as packValues made it (a part observed beforehand), not as v8.serialize did. */
  packed: boolean;
}

/**
 * Each analyzer's per-page observations, written to a scratch file a chunk of pages at a time and read
 * back for one analyzer at a time when it finishes: the analysis holds one analyzer's observations,
 * never every analyzer's for every page (docs/architecture.md, "Analysis in bounded memory"). The file
 * is scratch for one analysis run; a worker that dies leaves it to the OS's temporary directory, and
 * the retried activity analyses the stored crawl again.
 */
export class ObservationSpill {
  private readonly pending: unknown[][];
  private readonly chunks: Chunk[][];
  private file: { dir: string; fd: number; size: number } | null = null;

  constructor(
    analyzers: number,
    private readonly chunkPages = SPILL_CHUNK_PAGES,
  ) {
    this.pending = Array.from({ length: analyzers }, () => []);
    this.chunks = Array.from({ length: analyzers }, () => []);
  }

  /** Records analyzer `i`'s observation of the next page. */
  push(i: number, value: unknown): void {
    this.pending[i]!.push(value);
  }

  /** Called after each page: a full chunk of observations goes to the scratch file. */
  pageDone(pagesObserved: number): void {
    if (pagesObserved % this.chunkPages === 0) this.flush();
  }

  /**
   * Analyzer `i`'s values for the next pages, packed elsewhere (an ObservedPart's packValues): they
   * follow every value pushed so far, and are written as they are. Call it for every analyzer, so
   * that all of them stay aligned.
   */
  append(i: number, packed: Uint8Array): void {
    this.flush();
    this.write(i, packed, true);
  }

  /**
   * Hands analyzer `i`'s observation of every page to `into`, in page order, a chunk at a time; its
   * share of the file is not read again.
   */
  take(i: number, into: (page: number, value: unknown) => void): void {
    let page = 0;
    const shared = new SharedStrings();
    for (const chunk of this.chunks[i]!) {
      const buffer = Buffer.allocUnsafe(chunk.length);
      fs.readSync(this.file!.fd, buffer, 0, chunk.length, chunk.offset);
      const values = chunk.packed ? unpackValues(buffer) : (v8.deserialize(buffer) as unknown[]);
      for (const value of values) into(page++, shared.of(value));
    }
    for (const value of this.pending[i]!) into(page++, value);
    this.chunks[i] = [];
    this.pending[i] = [];
  }

  /** The scratch directory while the spill has written to it (tests check it goes). */
  get scratchDir(): string | null {
    return this.file?.dir ?? null;
  }

  /** Removes the scratch file (idempotent). */
  close(): void {
    if (!this.file) return;
    fs.closeSync(this.file.fd);
    fs.rmSync(this.file.dir, { recursive: true, force: true });
    this.file = null;
  }

  private flush(): void {
    this.pending.forEach((values, i) => {
      if (values.length === 0) return;
      this.write(i, v8.serialize(values), false);
      this.pending[i] = [];
    });
  }

  private write(i: number, bytes: Uint8Array, packed: boolean): void {
    const file = this.file ?? (this.file = openScratch());
    fs.writeSync(file.fd, bytes, 0, bytes.length, file.size);
    this.chunks[i]!.push({ offset: file.size, length: bytes.length, packed });
    file.size += bytes.length;
  }
}

/** Nesting followed when strings are made shared; anything deeper is handed over as read. */
const MAX_DEPTH = 16;

/**
 * What is read back makes a fresh string per page even where every page said the same (a check's
 * message and evidence on every page of a site): strings are kept once per analyzer while its
 * observations are read back. Strings are immutable, so the finish sees the same values
 * (docs/architecture.md, "Durable crawl", Memory). The values are otherwise as written: objects the
 * same in a chunk (a shared PAGE_PASS) are one object again after v8.deserialize.
 */
class SharedStrings {
  private readonly strings = new StringInterner();

  of(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.strings.intern(value);
    if (typeof value !== 'object' || value === null || depth >= MAX_DEPTH) return value;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = this.of(value[i], depth + 1);
    } else if (Object.getPrototypeOf(value) === Object.prototype) {
      // Plain records only: typed arrays, maps and sets are handed over as read.
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) record[key] = this.of(record[key], depth + 1);
    }
    return value;
  }
}

function openScratch(): { dir: string; fd: number; size: number } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-analysis-'));
  return { dir, fd: fs.openSync(path.join(dir, 'observations'), 'w+'), size: 0 };
}
