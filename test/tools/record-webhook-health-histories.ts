import path from 'node:path';
import { webhookHealthWorkflowId } from '../../workflows/contracts';
import { writeHistoryFile } from '../replay/history-file';
import { startTestInfrastructure } from '../support/infrastructure';

/**
 * `npm exec -- node --import tsx test/tools/record-webhook-health-histories.ts <label>`: runs the real
 * stack with WEBHOOK_DISABLE_AFTER_MS=3000 through both ends of a WebhookHealthWorkflow (a webhook
 * disabled, with its owner warned and another webhook told; a webhook that recovered before the
 * warning) and saves each history as test/replay/histories/<label>-webhook-health-<end>.json, for
 * test/integration/replay.test.ts. The streaks are started by failed test events, as any failed
 * attempt starts one. Same rules as test/tools/record-histories.ts: a new label per change.
 */
const OUT_DIR = path.join(__dirname, '..', 'replay', 'histories');

async function main(): Promise<void> {
  const label = process.argv[2];
  if (!label || !/^[a-z0-9-]+$/.test(label)) throw new Error('usage: record-webhook-health-histories.ts <label>');
  const infra = await startTestInfrastructure((line) => console.log(`[setup] ${line}`));
  process.env.WEBHOOK_DISABLE_AFTER_MS = '3000';
  // Loaded once the infrastructure exists: the stack reads TEST_DATABASE_URL and TEST_TEMPORAL_ADDRESS.
  const stack = require('../support/stack') as typeof import('../support/stack');
  const { startReceiver } = require('../support/receiver') as typeof import('../support/receiver');
  const { insertUserRow, addMembership } = require('../../src/people/users') as typeof import('../../src/people/users');
  const { db, clock, service } = await stack.getStack();
  const failing = await startReceiver(() => 500);
  const healthy = await startReceiver(() => 200);
  let recovering = 500;
  const flaky = await startReceiver(() => recovering);
  try {
    const account = await stack.newAccount('pro');
    const owner = await insertUserRow(db, { email: `owner-${label}@example.com`, passwordHash: 'x', now: clock.now() });
    await addMembership(db, { workspaceId: account.workspaceId, userId: owner.id, role: 'owner', now: clock.now() });
    const create = async (body: object): Promise<string> => {
      const response = await stack.api('POST', '/v1/webhooks', { key: account.liveKey, body });
      if (response.status !== 201) throw new Error(response.text);
      return response.body.webhook_id;
    };
    const test = (webhookId: string) => stack.api('POST', `/v1/webhooks/${webhookId}/test`, { key: account.liveKey });
    const dead = await create({ url: failing.url });
    await create({ url: healthy.url, events: ['webhook.disabled'] });
    const recovered = await create({ url: flaky.url });
    await test(dead);
    await test(recovered);
    recovering = 200;
    await test(recovered);
    for (const [end, webhookId] of [
      ['disabled', dead],
      ['recovered', recovered],
    ]) {
      const handle = service.temporal.client.workflow.getHandle(webhookHealthWorkflowId(webhookId));
      console.log(`${end}: ${String(await handle.result())}`);
      const history = await handle.fetchHistory();
      writeHistoryFile(path.join(OUT_DIR, `${label}-webhook-health-${end}.json`), history);
      console.log(`recorded ${label}-webhook-health-${end} (${history.events?.length ?? 0} events)`);
    }
  } finally {
    await Promise.all([failing.close(), healthy.close(), flaky.close()]);
    await stack.stopStack();
    await infra.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
