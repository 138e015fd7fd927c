import type { Config } from '../config';
import { FileReportStorage } from './file-storage';
import { S3ReportStorage } from './s3-storage';
import type { ReportStorage } from './storage';

/** The storage the configuration names: the bucket of REPORT_STORAGE_URL, else files under reportsDir. */
export function createReportStorage(config: Pick<Config, 'reportsDir' | 'reportObjectStore'>): ReportStorage {
  return config.reportObjectStore
    ? new S3ReportStorage(config.reportObjectStore)
    : new FileReportStorage(config.reportsDir);
}
