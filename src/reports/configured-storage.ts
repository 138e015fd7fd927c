import type { Config } from '../config';
import { FileReportStorage } from './file-storage';
import type { ReportStorage } from './storage';

/** The storage the configuration names: the bucket of REPORT_STORAGE_URL, else files under reportsDir. */
export function createReportStorage(config: Pick<Config, 'reportsDir' | 'reportObjectStore'>): ReportStorage {
  if (!config.reportObjectStore) return new FileReportStorage(config.reportsDir);
  // The AWS SDK (about 30 MiB resident) is loaded only for a bucket.
  const { S3ReportStorage } = require('./s3-storage') as typeof import('./s3-storage');
  return new S3ReportStorage(config.reportObjectStore);
}
