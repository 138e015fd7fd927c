import fs from 'node:fs';
import { bundleWorkflows } from '../temporal/worker';
import { logger } from '../src/observability/logger';

/**
 * `node --import tsx processes/bundle-main.ts <file>`: writes the workflow bundle to a file, in a
 * short-lived process, so that webpack's memory never stays in the long-running worker.
 */
async function main(): Promise<void> {
  const target = process.argv[2];
  if (!target) throw new Error('usage: bundle-main.ts <output file>');
  const bundle = await bundleWorkflows();
  fs.writeFileSync(`${target}.tmp`, bundle.code);
  fs.renameSync(`${target}.tmp`, target);
}

main().catch((err) => {
  logger.fatal({ err }, 'bundling the workflow code failed');
  process.exit(1);
});
