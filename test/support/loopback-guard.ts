import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { closeOutboundAgents } from '../../src/outbound/pinned-agents';

/**
 * Registers mocha hooks in the calling describe() that record every connection the outbound client
 * makes and fail the suite if one went anywhere but loopback.
 */
export function useLoopbackGuard(): void {
  const connectedTo: string[] = [];
  const onConnected = (msg: unknown) => connectedTo.push((msg as { socket: Socket }).socket.remoteAddress ?? '?');
  before(() => diagnosticsChannel.subscribe('undici:client:connected', onConnected));
  after(async () => {
    diagnosticsChannel.unsubscribe('undici:client:connected', onConnected);
    await closeOutboundAgents();
    assert.ok(connectedTo.length > 0);
    for (const address of connectedTo)
      assert.match(address, /^(?:::ffff:)?127\./, `connection to non-loopback ${address}`);
  });
}
