import type { SyntheticAuditInput } from '../../src/audits/synthetic';

/** Input of a synthetic audit with fixed ids and timestamps, for tests and benches that need one. */
export function syntheticInput(domain: string, over: Partial<SyntheticAuditInput> = {}): SyntheticAuditInput {
  return {
    auditId: 'aud_01JTEST0000000000000000000',
    workspaceId: 'ws_test123',
    domain,
    tier: 'pro',
    createdAt: '2026-11-21T10:15:00.000Z',
    startedAt: '2026-11-21T10:15:00.120Z',
    completedAt: '2026-11-21T10:15:00.480Z',
    ...over,
  };
}
