export { createAuditActivities, type AuditActivities, type AuditActivityDeps } from './audit';
export {
  createBrowserCompletionActivities,
  createBrowserStageActivities,
  createQueuedBrowserActivities,
  type BrowserCompletionActivities,
  type BrowserStageActivities,
} from './browser';
export { createShellRenderActivities, type ShellRenderActivities } from './render';
export { createCrawlActivities, type CrawlActivities, type CrawlActivityDeps } from './crawl';
export {
  createDeliveryActivities,
  createWebhookHealthActivities,
  type DeliveryActivities,
  type WebhookHealthActivities,
} from './delivery';
export { createMaintenanceActivities, type MaintenanceActivities } from './maintenance';
export { createNotificationActivities, type NotificationActivities } from './notifications';
export { createSiteActivities, type SiteActivities } from './sites';
export { createReportPlanningActivities, type ReportPlanningActivities } from './report';
export { createReportRenderingActivities, type ReportRenderingActivities } from './report-render';
