import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { systemClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createLiveEngine } from '../../src/audits/live-engine';
import { produceAuditJson } from '../../src/audits/produce';
import type { AuditRow } from '../../src/audits/repository';
import { validateBranding } from '../../src/reports/branding';
import { renderAuditReport } from '../../src/reports/pdf';
import { FIXTURE_SITES_DIR, serveFixtureSite } from '../support/fixture-server';
import { tinyPng } from '../support/pdf';

/**
 * `npm run report:sample [-- <fixture site> [--neutral]]`: crawls a fixture website of
 * test/fixtures/sites on 127.0.0.1 with the real crawler and analyzers, renders its PDF report
 * (branded as a sample agency unless --neutral) and, when poppler-utils is installed, a PNG of the
 * cover and summary pages. Everything is written to .data/samples/ (not part of the repository).
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const neutral = args.includes('--neutral');
  const site = args.find((a) => !a.startsWith('--')) ?? 'broken-seo';
  const out = path.join(__dirname, '..', '..', '.data', 'samples');
  await mkdir(out, { recursive: true });

  const server = await serveFixtureSite(site).catch(() => {
    throw new Error(`no fixture site "${site}" in ${FIXTURE_SITES_DIR}`);
  });
  try {
    const config = loadConfig({ ...process.env, OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
    const now = systemClock.now();
    const row = {
      id: 'aud_SAMPLE0000000000000000000',
      workspace_id: 'ws_sample',
      account_id: 'acct_sample',
      mode: 'live',
      domain: server.origin,
      tier: 'pro',
      status: 'running',
      created_at: now,
      started_at: now,
    } as AuditRow;
    const run = { heartbeat: () => undefined, signal: new AbortController().signal, finalAttempt: true };
    const { audit } = await produceAuditJson(createLiveEngine(config), row, systemClock, run);
    const branding = neutral
      ? null
      : validateBranding({
          displayName: 'Northwind Web Partners',
          primaryColor: '#1f6f8b',
          logo: tinyPng(120, 40),
          footerText: 'Confidential — prepared by Northwind Web Partners for its client',
          contactLine: 'audits@northwind.example · +44 20 7946 0000',
        });
    const pdf = await renderAuditReport(audit, branding, { generatedAt: now });
    const file = path.join(out, `${site}${neutral ? '-neutral' : ''}-report.pdf`);
    await writeFile(file, pdf);
    console.log(
      `${site}: ${audit.crawl.pages_crawled} pages, score ${audit.score} (${audit.grade}), ${audit.findings.length} findings`,
    );
    console.log(`PDF  ${path.relative(process.cwd(), file)} (${(pdf.length / 1024).toFixed(0)} KiB)`);
    for (const page of [1, 3]) {
      const prefix = file.replace(/\.pdf$/, `-page-${page}`);
      try {
        await promisify(execFile)('pdftoppm', [
          '-png',
          '-r',
          '80',
          '-f',
          String(page),
          '-l',
          String(page),
          '-singlefile',
          file,
          prefix,
        ]);
        console.log(`PNG  ${path.relative(process.cwd(), prefix)}.png`);
      } catch (err) {
        const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
        console.log(
          missing
            ? 'PNG  skipped: pdftoppm not found (apt-get install poppler-utils)'
            : `PNG  failed: ${(err as Error).message}`,
        );
        break;
      }
    }
  } finally {
    await server.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
