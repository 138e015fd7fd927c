import assert from 'node:assert/strict';
import { bodyValidator } from '../../src/api/validation';
import { CHANNEL_TARGET_MAX, channelCreateRequest, type ChannelInput } from '../../src/notifications/channel-input';
import { createNotificationChannelBodySchema } from '../../src/schemas/api-notifications';

const validateCreate = bodyValidator(createNotificationChannelBodySchema);

const valid: ChannelInput = {
  type: 'slack',
  target: 'https://hooks.slack.com/services/T0/B0/x',
  events: ['audit.failed'],
};

/** Input a person may type on the dashboard's form or the admin CLI, each with the problem found first. */
const CASES: Array<[Partial<ChannelInput>, string | undefined]> = [
  [{}, undefined],
  [{ type: 'email', target: 'ops@example.com', events: ['site.regressed', 'webhook.disabled'] }, undefined],
  [{ target: 'x'.repeat(CHANNEL_TARGET_MAX) }, undefined],
  [{ type: 'discord' }, 'type_unknown'],
  [{ type: '' }, 'type_unknown'],
  [{ type: 'discord', target: '', events: [] }, 'type_unknown'],
  [{ target: '' }, 'target_empty'],
  [{ target: '', events: [] }, 'target_empty'],
  [{ target: 'x'.repeat(CHANNEL_TARGET_MAX + 1) }, 'target_too_long'],
  [{ events: [] }, 'events_empty'],
  [{ events: ['audit.completed'] }, 'events_unknown'],
  [{ events: ['audit.failed', ''] }, 'events_unknown'],
  [{ events: ['audit.failed', 'audit.failed'] }, 'events_repeated'],
];

describe('notification channel input (src/notifications/channel-input.ts)', () => {
  it('finds the first problem in the form’s order, or makes the request of the input unchanged', () => {
    for (const [changes, problem] of CASES) {
      const input = { ...valid, ...changes };
      const parsed = channelCreateRequest(input);
      assert.equal(parsed.problem, problem, JSON.stringify(changes));
      if (!parsed.problem) assert.deepEqual(parsed.request, { ...input, events: [...input.events] });
    }
  });

  it('takes exactly the requests the API’s schema takes', () => {
    for (const [changes] of CASES) {
      const input = { ...valid, ...changes };
      const byApi = (() => {
        try {
          validateCreate({ ...input });
          return true;
        } catch {
          return false;
        }
      })();
      assert.equal(channelCreateRequest(input).problem === undefined, byApi, JSON.stringify(changes));
    }
  });
});
