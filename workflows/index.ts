// Bundle entry of the workflow code; everything exported here is a workflow type.
export { AuditWorkflow } from './audit';
export { CrawlWorkflow } from './crawl';
export { DeliveryWorkflow } from './delivery';
export { WebhookHealthWorkflow } from './delivery-health';
export { NotificationWorkflow } from './notification';
export { PruneWorkflow } from './prune';
export { ReportWorkflow } from './report';
export { SiteRunWorkflow } from './site-run';
