import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildOpenApi } from '../../src/api/openapi';

/**
 * `npm run lint` part: Redocly CLI's lint (test/lint/redocly.yaml) of the OpenAPI document exactly as
 * GET /v1/openapi.json serves it. Fails on any problem, warnings included. Offline: the document has
 * no remote $ref, and telemetry and update checks are off.
 */
const root = path.join(__dirname, '..', '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
try {
  const file = path.join(dir, 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(buildOpenApi('https://audit.example.net/v1'), null, 2));
  const result = spawnSync(
    process.execPath,
    [
      require.resolve('@redocly/cli/bin/cli.js', { paths: [root] }),
      'lint',
      '--config',
      path.join(__dirname, 'redocly.yaml'),
      '--format',
      'json',
      '--max-problems',
      '1000',
      file,
    ],
    {
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  const json = result.stdout.slice(result.stdout.indexOf('{'));
  const report = JSON.parse(json) as {
    totals: { errors: number; warnings: number };
    problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
  };
  for (const p of report.problems)
    console.log(`${p.severity} ${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer).join(', ')}`);
  const { errors, warnings } = report.totals;
  console.log(`openapi lint (Redocly, recommended): ${errors} errors, ${warnings} warnings`);
  process.exitCode = errors + warnings === 0 && result.status === 0 ? 0 : 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
