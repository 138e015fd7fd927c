import { loadLighthouse, measureWithLighthouse } from './lighthouse';
import type { LighthouseReply, LighthouseRequest } from './lighthouse-process';

/**
 * The entry of a Lighthouse process (lighthouse-process.ts): one run per request, answered over IPC.
 * Lighthouse can leave a protocol call nobody awaits when its tab or browser goes away mid-run (its
 * `gotoURL` races the navigation against a crash); in this process such a rejection is dropped, as the
 * run it belonged to has already answered. It never reaches the worker that asked.
 */
process.on('unhandledRejection', (reason) => {
  if (isClosedTarget(reason)) return;
  console.error('Lighthouse process: unhandled rejection', reason);
  process.exit(1);
});

// The worker that forked this process is gone (or closed the channel): nothing is left to answer.
process.on('disconnect', () => process.exit(0));

process.on('message', (request: LighthouseRequest) => {
  void answer(request);
});

async function answer({ id, port, url, timeoutMs }: LighthouseRequest): Promise<void> {
  let reply: LighthouseReply;
  try {
    reply = { id, result: await measureWithLighthouse(port, url, timeoutMs) };
  } catch (err) {
    reply = { id, error: err instanceof Error ? err.message : String(err) };
  }
  if (process.connected) process.send!(reply);
}

/** A tab or browser gone under a run: a plain protocol error, or Lighthouse's rewrap of one. */
function isClosedTarget(reason: unknown): boolean {
  const { name, protocolError } = (reason ?? {}) as { name?: unknown; protocolError?: unknown };
  if (name === 'TargetCloseError' || name === 'ProtocolError') return true;
  return typeof protocolError === 'string' && /Target closed|Session closed/.test(protocolError);
}

// Ready once Lighthouse is loaded, so a warm pool's first page does not wait for it.
void loadLighthouse().then(() => process.send!({ ready: true }));
