// Bundle entry of the workflow code; everything exported here is a workflow type.
export { AuditWorkflow } from './audit';
export { PruneWorkflow } from './prune';
