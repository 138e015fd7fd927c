/**
 * The port of each process's internal /metrics listener, as an offset from METRICS_PORT: every process `npm start`
 * runs (the API in the supervisor, each worker kind in a child) has its own, so none collide (README "Metrics and logs").
 */
export const METRICS_PORT_OFFSETS = { audits: 0, reports: 1, browser: 2, api: 3 } as const;

/** Where the process of `kind` serves its /metrics, or null without METRICS_PORT (0). */
export function metricsPortOf(metricsPort: number, kind: keyof typeof METRICS_PORT_OFFSETS): number | null {
  return metricsPort > 0 ? metricsPort + METRICS_PORT_OFFSETS[kind] : null;
}

/** METRICS_PORT, checked (as a non-negative integer by the caller): the last offset must still be a port. */
export function checkMetricsPort(port: number): number {
  const highest = 65535 - Math.max(...Object.values(METRICS_PORT_OFFSETS));
  if (port > highest) throw new Error(`METRICS_PORT must be at most ${highest} (the API's is + 3), got "${port}"`);
  return port;
}

/**
 * METRICS_TOKEN, checked: a bearer token a scraper sends over the public port, long enough not to be guessed (its
 * 404s do not slow a guesser down), and only characters that pass through a header unchanged. Never echoed.
 */
export function checkMetricsToken(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^[\x21-\x7e]{32,}$/.test(raw))
    throw new Error(
      'METRICS_TOKEN must be at least 32 printable ASCII characters without spaces (openssl rand -hex 32)',
    );
  return raw;
}
