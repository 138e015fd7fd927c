import type { Db } from '../db/knex';
import type { Mailer } from '../mail/mailer';
import { workspaceMembers } from '../people/members';

/**
 * The e-mails to a workspace's owners about a failing webhook (docs/decisions.md, "Webhook
 * lifecycle"), through the same mailer as the dashboard's invitations (MAIL_TRANSPORT: the
 * mail_outbox table by default). A workspace without owners (one made with the admin CLI alone)
 * has nobody to tell.
 */
export interface FailingWebhook {
  id: string;
  url: string;
  workspace_id: string;
  mode: string;
}

export async function sendFailureNotice(
  deps: { db: Db; mailer: Mailer },
  webhook: FailingWebhook,
  input: { failingSince: Date; disableAt: Date },
): Promise<number> {
  return mailOwners(deps, webhook.workspace_id, {
    subject: `Webhook failing since ${day(input.failingSince)}: ${webhook.url}`,
    text: [
      `Every delivery to the ${webhook.mode} webhook ${webhook.id} (${webhook.url}) has failed since ${input.failingSince.toISOString()}.`,
      `If none gets through, the webhook will be disabled on ${input.disableAt.toISOString()} and sent nothing more until it is enabled again.`,
      '',
      `Its delivery log (GET /v1/webhooks/${webhook.id}/deliveries?status=failed) shows what the endpoint answered.`,
      `Once it is fixed, POST /v1/webhooks/${webhook.id}/test sends a test event, and`,
      `POST /v1/webhooks/${webhook.id}/recover {"since": "…"} sends the failed deliveries again.`,
    ].join('\n'),
  });
}

export async function sendDisabledNotice(
  deps: { db: Db; mailer: Mailer },
  webhook: FailingWebhook,
  input: { failingSince: Date | null; disabledAt: Date },
): Promise<number> {
  return mailOwners(deps, webhook.workspace_id, {
    subject: `Webhook disabled: ${webhook.url}`,
    text: [
      `The ${webhook.mode} webhook ${webhook.id} (${webhook.url}) was disabled at ${input.disabledAt.toISOString()}:`,
      `every delivery to it failed${input.failingSince ? ` since ${input.failingSince.toISOString()}` : ''}. Nothing more is sent to it.`,
      '',
      `To turn it back on once the endpoint answers again: PATCH /v1/webhooks/${webhook.id} {"status": "enabled"}.`,
      `POST /v1/webhooks/${webhook.id}/recover {"since": "…"} then sends the failed deliveries of the last 7 days again.`,
    ].join('\n'),
  });
}

async function mailOwners(
  deps: { db: Db; mailer: Mailer },
  workspaceId: string,
  mail: { subject: string; text: string },
): Promise<number> {
  const owners = (await workspaceMembers(deps.db, workspaceId)).filter((member) => member.role === 'owner');
  for (const owner of owners) await deps.mailer.send({ to: owner.email, ...mail });
  return owners.length;
}

function day(at: Date): string {
  return at.toISOString().slice(0, 10);
}
