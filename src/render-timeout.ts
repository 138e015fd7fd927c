/**
 * How long a rendered page may take to paint (FCP) and load before it is unrenderable: the default
 * and the most BROWSER_RENDER_TIMEOUT_MS may set, as the browser activities' own time-outs are sized
 * for it (docs/operations.md).
 */
export const RENDER_TIMEOUT_MS = 30_000;
