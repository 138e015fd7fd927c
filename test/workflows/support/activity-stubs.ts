import type {
  AuditActivities,
  DeliveryActivities,
  NotificationActivities,
  ReportPlanningActivities,
} from '../../../activities';

/** Every activity the audit worker's workflows call (the report render runs on its own queue). */
export type WorkflowActivities = AuditActivities &
  DeliveryActivities &
  ReportPlanningActivities &
  NotificationActivities;
export type ActivityName = keyof WorkflowActivities;
type InputOf<N extends ActivityName> = Parameters<WorkflowActivities[N]>[0];

/** Plain functions in place of the real activities (which need Postgres and the network), recording each call. */
export class ActivityStubs {
  readonly activities: WorkflowActivities;
  private readonly calls: Array<{ name: ActivityName; input: unknown }> = [];
  private readonly waiters: Array<() => void> = [];

  constructor(overrides: Partial<WorkflowActivities> = {}) {
    const behaviour: WorkflowActivities = { ...succeedingActivities(), ...overrides };
    // A delivery's first attempt (a local activity) behaves as its attempts do, unless told otherwise.
    if (overrides.attemptDelivery && !overrides.attemptDeliveryOnce)
      behaviour.attemptDeliveryOnce = overrides.attemptDelivery;
    const recorded: Record<string, (input: never) => Promise<unknown>> = {};
    for (const [name, fn] of Object.entries(behaviour) as Array<[ActivityName, (input: never) => Promise<unknown>]>) {
      recorded[name] = async (input) => {
        this.calls.push({ name, input });
        for (const wake of this.waiters.splice(0)) wake();
        return fn(input);
      };
    }
    this.activities = recorded as unknown as WorkflowActivities;
  }

  /** Inputs of every call of one activity, in call order. */
  inputsOf<N extends ActivityName>(name: N): Array<InputOf<N>> {
    return this.calls.filter((call) => call.name === name).map((call) => call.input as InputOf<N>);
  }

  /** Every delivery attempt, in call order: the local first attempt and the attempts as activities. */
  attempts(): Array<InputOf<'attemptDelivery'> & { local: boolean }> {
    return this.calls
      .filter((call) => call.name === 'attemptDeliveryOnce' || call.name === 'attemptDelivery')
      .map((call) => ({ ...(call.input as InputOf<'attemptDelivery'>), local: call.name === 'attemptDeliveryOnce' }));
  }

  /** Resolves once `name` has been called `count` times (a point where the workflow is known to be waiting). */
  async waitForCalls(name: ActivityName, count: number): Promise<void> {
    while (this.inputsOf(name).length < count) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
}

/** The happy path: rows found, the audit passes, nobody subscribed, no report planned, every POST acknowledged. */
function succeedingActivities(): WorkflowActivities {
  return {
    markAuditRunning: async () => undefined,
    markAuditWaitingForRetry: async () => undefined,
    markAuditFailed: async () => undefined,
    runAudit: async () => ({ score: 90, grade: 'A' }),
    planDeliveries: async () => [],
    // Every first attempt acknowledged, and logged.
    sendFirstAttempts: async () => ({ unrecorded: [], retrying: [] }),
    recordFirstAttempts: async () => true,
    deliveryProgress: async () => null,
    recordDelivery: async () => true,
    attemptDelivery: async () => ({ delivered: true, stop: false }),
    attemptDeliveryOnce: async () => ({ delivered: true, stop: false }),
    recordDeliveryAttempt: async () => undefined,
    markDeliveryFailed: async () => undefined,
    planReport: async () => null,
    // No notification channel listens, unless a test says otherwise; every message sent at once.
    planNotifications: async () => [],
    recordNotification: async () => true,
    attemptNotification: async () => ({ done: true, delivered: true, retryAfterMs: null }),
  };
}
