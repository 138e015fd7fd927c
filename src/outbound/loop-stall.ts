import { performance } from 'node:perf_hooks';

/**
 * How long this process could not run while it waited on a site: its event loop blocked (another
 * audit's analysis finishing in the same worker, a garbage collection) or the machine too busy to
 * schedule it. A response that arrives meanwhile waits for us, so a timing measured across a stall
 * would blame the site for our own time (docs/analyzers.md, PERF_TTFB_SLOW).
 *
 * A timer ticks every TICK_MS while some measurement is open; a tick that comes more than
 * STALL_MS late marks the whole of its lateness as stalled. Smaller lateness is ordinary timer
 * jitter and is not counted, so a measurement is never made shorter by it.
 */
const TICK_MS = 10;
const STALL_MS = 20;

let stalledMs = 0;
let lastTick = 0;
let open = 0;
let timer: NodeJS.Timeout | undefined;

function tick(): void {
  const now = performance.now();
  const late = now - lastTick - TICK_MS;
  if (late > STALL_MS) stalledMs += late;
  lastTick = now;
}

/**
 * Opens a measurement; the function it returns closes it and says how many milliseconds of it this
 * process was stalled (0 when it never was). Call it once.
 */
export function measureStalls(): () => number {
  if (open++ === 0) {
    lastTick = performance.now();
    // Never keeps the process alive on its own.
    timer = setInterval(tick, TICK_MS).unref();
  } else {
    // A stall that ended just now (the code that opens this one ran long) is not this one's.
    tick();
  }
  const before = stalledMs;
  let closed = false;
  return () => {
    if (closed) throw new Error('a stall measurement is closed once');
    closed = true;
    // A stall that has not ticked yet (the loop is only now free) counts too.
    tick();
    const stalled = stalledMs - before;
    if (--open === 0) {
      clearInterval(timer);
      timer = undefined;
    }
    return stalled;
  };
}
