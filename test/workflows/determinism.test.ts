import assert from 'node:assert/strict';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { readHistoryFile } from '../replay/history-file';
import { workflowBundle } from '../support/stack';
import { installQuietRuntime } from './support/runtime';

const RECORDED = path.join(__dirname, '..', 'replay', 'histories', 'v2-delivery-delivered.json');

/**
 * What guards running workflows against a careless edit: a recorded history replayed on code whose
 * commands come in another order must fail as non-deterministic (and pass on the real code, so the
 * failure is the reordering's and not the history's). No server: replay runs in the worker alone.
 */
describe('replaying a recorded history on reordered workflow code', function () {
  this.timeout(60_000);

  before(installQuietRuntime);

  it('passes on the real DeliveryWorkflow and fails with DeterminismViolationError on the reordered copy', async () => {
    const history = readHistoryFile(RECORDED);
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, 'recorded-delivery');

    const reordered = await bundleWorkflowCode({
      workflowsPath: require.resolve('./fixtures/reordered-delivery-workflow'),
      logger: new DefaultLogger('ERROR'),
    });
    await assert.rejects(
      Worker.runReplayHistory({ workflowBundle: reordered }, history, 'recorded-delivery'),
      (err: unknown) => {
        assert.ok(err instanceof DeterminismViolationError, `expected a DeterminismViolationError, got ${String(err)}`);
        return true;
      },
    );
  });
});
