// Examples of the notification-channel schemas (README "Notification channels"), part of the OpenAPI
// document's COMPONENT_EXAMPLES; Redocly's lint validates each against its schema.

const channel = {
  channel_id: 'nch_4Tq8mZ2vK6nB1cR9yW3x',
  type: 'slack',
  target: 'https://hooks.slack.com/services/T0000000/B0000000/XXXXXXXXXXXXXXXXXXXXXXXX',
  events: ['site.regressed', 'audit.failed'],
  created_at: '2026-11-20T09:00:00.000Z',
};

export const NOTIFICATION_EXAMPLES: Record<string, unknown> = {
  CreateNotificationChannelRequest: { type: 'email', target: 'ops@example.com', events: ['audit.failed'] },
  NotificationChannel: channel,
  NotificationChannelList: { data: [channel], has_more: false, next_cursor: null },
};
