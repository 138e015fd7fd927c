import { randomUUID } from 'node:crypto';
import { getStack, type TestAccount } from './stack';

/** A completed audit of `domain` reporting findings with these fingerprints (what triage needs to exist). */
export async function seedCompletedAudit(
  account: TestAccount,
  input: { domain: string; mode: 'test' | 'live'; fingerprints: string[]; score?: number; extra?: object },
): Promise<string> {
  const { db } = await getStack();
  const id = `aud_SEED${randomUUID().replace(/-/g, '').slice(0, 22).toUpperCase()}`;
  const now = new Date();
  const findings = input.fingerprints.map((fingerprint, i) => ({
    id: `fnd_${i}`,
    fingerprint,
    analyzer: 'SEC_HSTS_MISSING',
    severity: 'high',
    title: `Finding ${i}`,
  }));
  const result = { audit_id: id, score: input.score ?? 80, categories: { security: 80 }, findings, ...input.extra };
  await db('audits').insert({
    id,
    workspace_id: account.workspaceId,
    account_id: account.accountId,
    mode: input.mode,
    domain: input.domain,
    tier: 'pro',
    status: 'completed',
    score: input.score ?? 80,
    grade: 'B',
    charged: false,
    result_json: JSON.stringify(result),
    created_at: now,
    completed_at: now,
  });
  return id;
}
