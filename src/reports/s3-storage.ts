import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { ReportObjectStore } from '../config';
import { checkStorageKey, type ReportStorage } from './storage';

/**
 * Reports in an S3-compatible bucket (REPORT_STORAGE_URL=s3://bucket/prefix), so that API and report
 * workers on several machines share them. A PUT replaces an object atomically: a reader sees the old
 * or the new PDF, never part of one. Errors other than "no such object" are thrown as they are, so a
 * render whose upload fails is retried by Temporal and a download answers the usual internal error.
 */
export class S3ReportStorage implements ReportStorage {
  private readonly client: S3Client;

  constructor(readonly settings: ReportObjectStore) {
    this.client = new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
      ...(settings.credentials ? { credentials: settings.credentials } : {}),
      // Checksums only where S3 demands them: the SDK's default CRC headers are not understood by
      // every S3-compatible server, and TLS plus the PDF's own sha256 (audit_reports) cover integrity.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // A store that does not answer must fail the call (and so be retried), not hang it.
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
    });
  }

  private keyOf(key: string): string {
    checkStorageKey(key);
    return `${this.settings.prefix}${key}`;
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.settings.bucket,
        Key: this.keyOf(key),
        Body: bytes,
        ContentLength: bytes.length,
        ContentType: key.endsWith('.pdf') ? 'application/pdf' : 'application/octet-stream',
      }),
    );
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.keyOf(key) }));
      return true;
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  }

  async open(key: string): Promise<{ stream: Readable; size: number } | null> {
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.keyOf(key) }),
      );
      // In Node the body is the HTTP response itself: streamed to the caller, never held in memory.
      return { stream: object.Body as Readable, size: Number(object.ContentLength) };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    // S3 answers 204 whether or not the object existed.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.keyOf(key) }));
  }

  /** Closes the client's sockets (tests, shutdown). */
  close(): void {
    this.client.destroy();
  }
}

/** No such object; a missing bucket is a misconfiguration and stays an error. */
function isMissing(err: unknown): boolean {
  return (
    err instanceof S3ServiceException &&
    err.name !== 'NoSuchBucket' &&
    (err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata.httpStatusCode === 404)
  );
}
