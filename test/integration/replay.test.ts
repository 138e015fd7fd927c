import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { readHistoryFile } from '../replay/history-file';
import { workflowBundle } from '../support/stack';

const HISTORIES_DIR = path.join(__dirname, '..', 'replay', 'histories');

/**
 * Histories recorded from real runs (test/tools/record-histories.ts) replayed against today's
 * workflow code: a change that would make workflows already running non-deterministic fails here.
 * Changes to a workflow's command order go behind `patched()` so these stay green.
 */
describe('recorded workflow histories', function () {
  this.timeout(60_000);

  before(() => {
    try {
      Runtime.install({ logger: new DefaultLogger('ERROR') });
    } catch {
      // Already installed by the shared stack or another file of this run.
    }
  });

  it('replay on the current workflow code without non-determinism', async () => {
    const files = fs
      .readdirSync(HISTORIES_DIR)
      .filter((f) => f.endsWith('.json'))
      .sort();
    assert.ok(files.length >= 10, 'every recorded path, before and after the patched() changes');
    const histories = files.map((file) => ({
      workflowId: path.basename(file, '.json'),
      history: readHistoryFile(path.join(HISTORIES_DIR, file)),
    }));
    const failures: string[] = [];
    let replayed = 0;
    for await (const result of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories)) {
      replayed++;
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    assert.equal(replayed, files.length);
    assert.deepEqual(failures, []);
  });
});
