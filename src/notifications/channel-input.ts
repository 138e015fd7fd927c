import {
  createNotificationChannelBodySchema,
  NOTIFICATION_CHANNEL_TYPES,
  NOTIFICATION_EVENTS,
  type CreateNotificationChannelBody,
} from '../schemas/api-notifications';

type ChannelType = CreateNotificationChannelBody['type'];

/** What a person typed for a new channel: the dashboard's form fields, the admin CLI's options. */
export interface ChannelInput {
  type: string;
  target: string;
  events: readonly string[];
}

/** Why the input is not a request the API would take; each surface words it for its own readers. */
export type ChannelInputProblem =
  'type_unknown' | 'target_empty' | 'target_too_long' | 'events_empty' | 'events_unknown' | 'events_repeated';

/** The longest target the API's request body takes. */
export const CHANNEL_TARGET_MAX = createNotificationChannelBodySchema.properties.target.maxLength;

/**
 * The one rule that turns typed input into a channel-create request: the shape the API's schema
 * (src/schemas/api-notifications.ts) checks with ajv, for the surfaces that take fields one by one.
 * The first problem found, in the form's order (type, target, events), or the request for
 * src/notifications/service.ts createChannel, whose rules (the target for its type, the limit) follow.
 */
export function channelCreateRequest(
  input: ChannelInput,
): { request: CreateNotificationChannelBody; problem?: undefined } | { problem: ChannelInputProblem } {
  if (!isChannelType(input.type)) return { problem: 'type_unknown' };
  if (input.target === '') return { problem: 'target_empty' };
  if (input.target.length > CHANNEL_TARGET_MAX) return { problem: 'target_too_long' };
  const problem = eventsProblem(input.events);
  if (problem) return { problem };
  const events = [...input.events] as CreateNotificationChannelBody['events'];
  return { request: { type: input.type, target: input.target, events } };
}

export function isChannelType(value: string): value is ChannelType {
  return (NOTIFICATION_CHANNEL_TYPES as readonly string[]).includes(value);
}

/** What is wrong with a channel's events, if anything: at least one, each a known event, each once. */
export function eventsProblem(
  events: readonly string[],
): Extract<ChannelInputProblem, 'events_empty' | 'events_unknown' | 'events_repeated'> | undefined {
  if (events.length === 0) return 'events_empty';
  if (!events.every((event) => (NOTIFICATION_EVENTS as readonly string[]).includes(event))) return 'events_unknown';
  if (new Set(events).size !== events.length) return 'events_repeated';
  return undefined;
}
