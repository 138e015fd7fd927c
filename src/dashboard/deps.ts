import type { Clock } from '../clock';
import type { Config } from '../config';
import type { Db } from '../db/knex';

/** What the dashboard's routes need from the composition root (processes/service.ts). */
export interface DashboardDeps {
  db: Db;
  clock: Clock;
  config: Config;
  /** Public base URL of the service (for links in mail and the Origin check when set). */
  baseUrl: () => string;
  log?: (message: string, err?: unknown) => void;
}
