import type { FromSchema } from 'json-schema-to-ts';
import { timestamp } from './api-common';

/** Notification channels: e-mail, Slack and Teams messages to people when something needs them. */

/** Events a channel listens to (workflows/contracts NotificationEvent is the same list). */
export const NOTIFICATION_EVENTS = ['site.regressed', 'audit.failed', 'webhook.failing', 'webhook.disabled'] as const;
export const NOTIFICATION_CHANNEL_TYPES = ['email', 'slack', 'teams'] as const;

const type = {
  type: 'string',
  enum: NOTIFICATION_CHANNEL_TYPES,
  description:
    'email: a message through the service mailer; slack: a Slack incoming webhook (Block Kit); teams: a Microsoft Teams incoming webhook or Workflows webhook (an Adaptive Card).',
} as const;

const target = {
  type: 'string',
  minLength: 1,
  maxLength: 2048,
  description:
    'For email an e-mail address; for slack and teams the incoming-webhook URL, https, passing the same outbound policy as webhook URLs.',
} as const;

const events = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { type: 'string', enum: NOTIFICATION_EVENTS },
  description:
    "What the channel is told of: site.regressed (a monitored site's audit scored 5 or more points lower, or has a new high or critical finding), audit.failed (after all automatic retries), webhook.failing (every delivery to a webhook has failed for 60 % of WEBHOOK_DISABLE_AFTER_MS) and webhook.disabled.",
} as const;

export const createNotificationChannelBodySchema = {
  $id: 'CreateNotificationChannelRequest',
  type: 'object',
  additionalProperties: false,
  required: ['type', 'target', 'events'],
  properties: { type, target, events },
} as const;
export type CreateNotificationChannelBody = FromSchema<typeof createNotificationChannelBodySchema>;

export const notificationChannelSchema = {
  $id: 'NotificationChannel',
  type: 'object',
  required: ['channel_id', 'type', 'target', 'events', 'created_at'],
  properties: {
    channel_id: { type: 'string' },
    type,
    target: { type: 'string', description: 'The e-mail address, or the incoming-webhook URL.' },
    events: { type: 'array', items: { type: 'string', enum: NOTIFICATION_EVENTS } },
    created_at: timestamp,
  },
} as const;

export const notificationChannelListSchema = {
  $id: 'NotificationChannelList',
  type: 'object',
  required: ['data', 'has_more', 'next_cursor'],
  properties: {
    data: { type: 'array', items: { $ref: '#/components/schemas/NotificationChannel' } },
    has_more: { type: 'boolean' },
    next_cursor: { type: ['string', 'null'] },
  },
} as const;
