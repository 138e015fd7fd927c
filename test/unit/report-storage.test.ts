import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { FileReportStorage } from '../../src/reports/file-storage';

async function read(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('filesystem report storage', () => {
  let root: string;
  let storage: FileReportStorage;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'reports-'));
    storage = new FileReportStorage(root);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('stores, replaces, opens and deletes objects under the root', async () => {
    await storage.put('ws_1/aud_1/r0-abc.pdf', Buffer.from('%PDF-one'));
    await storage.put('ws_1/aud_1/r0-abc.pdf', Buffer.from('%PDF-two!'));
    const opened = await storage.open('ws_1/aud_1/r0-abc.pdf');
    assert.ok(opened);
    assert.equal(opened.size, 9);
    assert.equal(await storage.exists('ws_1/aud_1/r0-abc.pdf'), true);
    assert.equal((await read(opened.stream)).toString(), '%PDF-two!');
    // Written aside and renamed: no temporary file is left behind.
    assert.deepEqual(await readdir(path.join(root, 'ws_1', 'aud_1')), ['r0-abc.pdf']);
    await storage.delete('ws_1/aud_1/r0-abc.pdf');
    assert.equal(await storage.open('ws_1/aud_1/r0-abc.pdf'), null);
    assert.equal(await storage.exists('ws_1/aud_1/r0-abc.pdf'), false);
    await storage.delete('ws_1/aud_1/r0-abc.pdf'); // deleting what is gone is not an error
  });

  it('refuses keys that could leave the root', async () => {
    for (const key of [
      '../outside.pdf',
      'ws/../../x.pdf',
      '/etc/passwd',
      'ws\\\\x.pdf',
      '',
      'ws//x.pdf',
      'ws/./x.pdf',
    ]) {
      await assert.rejects(storage.put(key, Buffer.from('x')), /invalid report storage key/, key);
    }
  });
});
