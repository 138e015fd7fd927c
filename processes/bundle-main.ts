import fs from 'node:fs';
import { bundleWorkflows } from '../temporal/worker';
import { loadConfig } from '../src/config';
import { logger } from '../src/observability/logger';

/**
 * `processes/bundle-main <file>` (compiled or through tsx): writes the workflow bundle to a file, in a
 * short-lived process, so that webpack's memory never stays in the long-running worker. With tracing
 * configured (OTEL_EXPORTER_OTLP_ENDPOINT) the bundle carries the OpenTelemetry workflow interceptors.
 */
async function main(): Promise<void> {
  const target = process.argv[2];
  if (!target) throw new Error('usage: bundle-main.ts <output file>');
  const bundle = await bundleWorkflows({ tracing: loadConfig().tracing !== null });
  fs.writeFileSync(`${target}.tmp`, bundle.code);
  fs.renameSync(`${target}.tmp`, target);
}

main().catch((err) => {
  logger.fatal({ err }, 'bundling the workflow code failed');
  process.exit(1);
});
