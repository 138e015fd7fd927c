export { createAuditActivities, type AuditActivities, type AuditActivityDeps } from './audit';
export { createMaintenanceActivities, type MaintenanceActivities } from './maintenance';
