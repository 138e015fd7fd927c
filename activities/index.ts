export { createAuditActivities, type AuditActivities, type AuditActivityDeps } from './audit';
export { createDeliveryActivities, type DeliveryActivities } from './delivery';
export { createMaintenanceActivities, type MaintenanceActivities } from './maintenance';
export {
  createReportPlanningActivities,
  createReportRenderingActivities,
  type ReportPlanningActivities,
  type ReportRenderingActivities,
} from './report';
