/**
 * Renders make a lot of short-lived garbage (layout objects, page streams, compressed buffers: a
 * few hundred MiB over a few dozen reports) that V8 collects only when its heap limit, sized from
 * the machine's memory, is near: the report worker's resident memory climbed with every render and
 * stayed up. The report worker runs with --expose-gc (processes/worker-process.ts) and collects
 * after each render, which costs a few tens of milliseconds beside a render of hundreds, so its
 * memory returns to the same base after every report. Elsewhere (no exposed gc) this does nothing.
 */
export function collectAfterRender(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
