import { delays, integer } from './env-parsing';

/** The webhook settings of src/config.ts (README "Environment"), parsed from the environment it reads. */
export interface WebhookSettings {
  deliveryRetryDelaysMs: number[];
  deliveryTimeoutMs: number;
  /** Manual redelivery stays possible this long after the original event (7 days). */
  redeliveryWindowMs: number;
  testWebhookMockUrl: string | undefined;
  /** WEBHOOK_DISABLE_AFTER_MS: a webhook whose every attempt failed this long is disabled (5 days); 0: never. */
  webhookDisableAfterMs: number;
}

export function webhookSettings(env: Record<string, string | undefined>): WebhookSettings {
  return {
    deliveryRetryDelaysMs: delays(
      'DELIVERY_RETRY_DELAYS_MS',
      env.DELIVERY_RETRY_DELAYS_MS,
      [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000],
    ),
    deliveryTimeoutMs: integer('DELIVERY_TIMEOUT_MS', env.DELIVERY_TIMEOUT_MS, 5000),
    redeliveryWindowMs: integer('REDELIVERY_WINDOW_MS', env.REDELIVERY_WINDOW_MS, 7 * 24 * 3600_000),
    testWebhookMockUrl: env.TEST_WEBHOOK_MOCK_URL || undefined,
    webhookDisableAfterMs: integer('WEBHOOK_DISABLE_AFTER_MS', env.WEBHOOK_DISABLE_AFTER_MS, 5 * 24 * 3600_000),
  };
}
