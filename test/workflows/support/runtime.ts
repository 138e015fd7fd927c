import { DefaultLogger, Runtime } from '@temporalio/worker';

/**
 * Only errors from the SDK, including its native core: failed attempts and the determinism
 * violation are what these tests provoke on purpose, and would otherwise be logged as warnings.
 */
export function installQuietRuntime(): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
    });
  } catch {
    // Already installed by another test file of this run.
  }
}
