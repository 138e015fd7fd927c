import { writeFile } from 'node:fs/promises';
import { createAuditClient } from '../client';
import { triggerAudit, waitForAudit } from './api';
import { parseArgs, SHOWN, USAGE_ERROR, type AuditCommand } from './args';
import { readEnvironment, type CliEnvironment } from './env';
import { evaluateGate } from './gate';
import { renderAudit, renderTrigger } from './output';
import { progressLine } from './progress';
import { CliError, EXIT } from './types';

/**
 * The customer CLI (README "Use it from CI"; docs/decisions.md, "Customer CLI"): `audit <domain>`
 * triggers an audit through the typed client, waits for it when asked, reports it in the chosen
 * format and exits 0 when the gate passes, 1 when it fails, 2 on a usage or API error.
 */

export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  env: CliEnvironment;
  fetch?: typeof globalThis.fetch;
  sleep?: (ms: number) => Promise<void>;
}

/** AUDIT_API_URL with its /v1 (added when missing), as the typed client wants it. */
export function apiBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`AUDIT_API_URL is not a URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`AUDIT_API_URL must be an http:// or https:// URL: ${value}`);
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith('/v1') ? path : `${path}/v1`;
  url.search = '';
  url.hash = '';
  return url.href;
}

async function emit(command: AuditCommand, io: CliIo, report: string, summary: string): Promise<void> {
  if (!command.output) {
    io.stdout.write(report);
    return;
  }
  try {
    await writeFile(command.output, report);
  } catch (err) {
    throw new CliError(`cannot write ${command.output}: ${(err as Error).message}`);
  }
  io.stderr.write(`${summary}; ${command.format} written to ${command.output}\n`);
}

async function runAudit(command: AuditCommand, io: CliIo): Promise<number> {
  const { apiUrl, apiKey } = io.env;
  if (!apiUrl || !apiKey)
    throw new CliError(
      'set AUDIT_API_URL (e.g. https://audits.example.net/v1) and AUDIT_API_KEY (svc_live_… or svc_test_…)',
    );
  const baseUrl = apiBaseUrl(apiUrl);
  const client = createAuditClient({ baseUrl, apiKey, ...(io.fetch ? { fetch: io.fetch } : {}) });
  const progress = progressLine(io.stderr, !io.env.ci);
  progress.update(`triggering an audit of ${command.domain}…`);
  let audit;
  try {
    const trigger = await triggerAudit(client, command.domain, { tier: command.tier, render: command.render });
    if (!command.wait) {
      progress.clear();
      await emit(command, io, renderTrigger(command.format, trigger), `audit ${trigger.audit_id} ${trigger.status}`);
      return EXIT.passed;
    }
    audit = await waitForAudit(client, trigger.audit_id, {
      timeoutMs: command.timeoutMs,
      onStatus: (status) => progress.status(trigger.audit_id, status),
      ...(io.sleep ? { sleep: io.sleep } : {}),
    });
  } finally {
    progress.clear();
  }
  const gate = evaluateGate(audit, command);
  const report = renderAudit(command.format, audit, {
    options: command,
    gate,
    docsUrl: new URL('/docs', baseUrl).href,
  });
  await emit(command, io, report, `${audit.domain}: score ${audit.score} (${audit.grade}), audit ${audit.audit_id}`);
  // The text report on stdout says it already; the other formats stay machine-readable.
  if (!gate.passed && (command.format !== 'text' || command.output))
    io.stderr.write(`gate failed: ${gate.reasons.join('; ')}\n`);
  return gate.passed ? EXIT.passed : EXIT.gateFailed;
}

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const command = parseArgs(argv, { writeOut: (t) => io.stdout.write(t), writeErr: (t) => io.stderr.write(t) });
  if (command === SHOWN) return EXIT.passed;
  if (command === USAGE_ERROR) return EXIT.error;
  try {
    return await runAudit(command, io);
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    io.stderr.write(`error: ${err.message}\n`);
    return EXIT.error;
  }
}

/** The process: argv and environment in, an exit code out once stdout has taken every byte. */
export function run(): void {
  const exit = (code: number) => process.stdout.write('', () => process.exit(code));
  main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: readEnvironment() }).then(
    exit,
    (err: unknown) => {
      process.stderr.write(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      exit(EXIT.error);
    },
  );
}
