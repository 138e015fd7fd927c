import type { OpenApiParts } from './openapi-parts';

// Notification channels in the OpenAPI document (README "Notification channels").

export const NOTIFICATIONS_TAG = {
  name: 'Notifications',
  description:
    'Channels that tell people when something needs them: an e-mail address, a Slack incoming webhook (Block Kit) or a ' +
    'Teams incoming webhook or Workflows webhook (an Adaptive Card), for site.regressed, audit.failed, webhook.failing ' +
    'and webhook.disabled. Each message links to the dashboard and is its own Temporal workflow: retried on the webhook ' +
    'delivery schedule after a 429 (not before its Retry-After), a 5xx or a network error, and not after any other 4xx. ' +
    "Test keys' channels are sent to the mock receiver instead of their target.",
};

export function notificationPaths(p: OpenApiParts): Record<string, object> {
  const { ref, json, errors, ok, common, pageParams } = p;
  return {
    '/notification-channels': {
      post: {
        operationId: 'createNotificationChannel',
        summary: 'Add a notification channel: an e-mail address, or a Slack or Teams incoming webhook',
        description:
          '`target` is checked for its `type`: one e-mail address for `email`; for `slack` and `teams` an https URL that ' +
          'passes the same outbound policy as webhook URLs (no private or loopback addresses). Nothing is stored when a ' +
          'field is refused. At most 50 channels per workspace and environment.',
        requestBody: { required: true, ...json(ref('CreateNotificationChannelRequest')) },
        responses: {
          '201': ok('The channel.', ref('NotificationChannel')),
          ...errors('invalid_request', 'payload_too_large', ...common),
        },
      },
      get: {
        operationId: 'listNotificationChannels',
        summary: 'List the notification channels of the workspace, oldest first',
        parameters: pageParams,
        responses: {
          '200': ok('A page of channels.', ref('NotificationChannelList')),
          ...errors('invalid_request', ...common),
        },
      },
    },
    '/notification-channels/{channel_id}': {
      delete: {
        operationId: 'deleteNotificationChannel',
        summary: 'Remove a notification channel: later events are not sent to it, and retries to it stop',
        parameters: [p.idParam('channel_id', 'notification_channel')],
        responses: { '204': { description: 'Removed.' }, ...errors('notification_channel_not_found', ...common) },
      },
    },
  };
}
