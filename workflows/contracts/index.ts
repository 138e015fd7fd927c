// What the workflows agree on with their starters, signallers and activities: inputs, ids,
// signals, search attributes, failure codes and retry policies. Imported from the workflow sandbox
// too, so nothing here may import Node modules (type-only imports from src/ are erased).
export * from './audit';
export * from './audit-failures';
export * from './crawl';
export * from './delivery';
export * from './notifications';
export * from './report';
export * from './retry-policies';
export * from './schedules';
export * from './search-attributes';
export * from './sites';
export * from './webhook-health';
