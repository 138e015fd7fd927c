export { createAuditActivities, type AuditActivities, type AuditActivityDeps } from './audit';
