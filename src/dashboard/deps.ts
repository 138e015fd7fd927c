import type { Clock } from '../clock';
import type { Config } from '../config';
import type { ChangeFeed } from '../db/change-feed';
import type { Db } from '../db/knex';
import type { Mailer } from '../mail/mailer';
import type { AuditScheduler } from '../audits/scheduler';
import type { ReportRenderRequests } from '../reports/render-requests';
import type { SigningKeyring } from '../reports/signing-keys';
import type { SiteSchedules } from '../sites/schedule-sync';
import type { FailureWatch } from '../webhooks/failing-streak';
import type { DeliveryControl } from '../webhooks/redelivery';

/** What the dashboard's routes need from the composition root (processes/service.ts). */
export interface DashboardDeps {
  db: Db;
  clock: Clock;
  config: Config;
  /** Public base URL of the service (for links in mail and the Origin check when set). */
  baseUrl: () => string;
  log?: (message: string, err?: unknown) => void;
  /** Sends invitations (the mail_outbox table unless MAIL_TRANSPORT is set). */
  mailer: Mailer;
  /** Starts audits run from the dashboard (the API's trigger). */
  scheduler: AuditScheduler;
  /** The redeliver signal of temporal/delivery-control, as the API's retry route sends it. */
  deliveries: DeliveryControl;
  /** Where a failing webhook is reported (a failed test event counts as the API's does); nowhere when unset. */
  watch?: FailureWatch;
  /** PDF reports: the API's render requests and link signing keys. */
  reports: ReportRenderRequests;
  keyring: SigningKeyring;
  /** The sites' Temporal Schedules, as the API's site routes use them. */
  siteSchedules: SiteSchedules;
  /** What keeps this instance's caches coherent (share links kept open); without it every visit reads the database. */
  changes?: ChangeFeed;
}
