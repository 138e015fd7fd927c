import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { systemClock } from '../../clock';
import type { Db } from '../../db/knex';
import { TierRequiredError, workspaceTier } from '../../accounts/repository';
import { FEATURE_MIN_TIER, tierAtLeast } from '../../accounts/tiers';
import { validateBranding } from '../../reports/branding';
import { presentBranding } from '../../presenters/branding';
import { loadBranding, saveBranding } from '../../reports/branding-repository';
import { checkLogoEmbeds } from '../../reports/pdf';
import { MODES, type Mode } from '../../schemas/audit';
import { modeOption } from '../options';
import { run } from '../run';

/** `branding set|show|clear`: white-label branding of PDF reports. */
export function registerBrandingCommands(program: Command): void {
  const branding = program.command('branding').description('White-label branding of PDF reports (pro tier and up)');
  branding
    .command('set')
    .description(
      'Replace the branding of a workspace (both modes unless --mode); reports are re-rendered when next requested',
    )
    .requiredOption('--workspace <id>', 'workspace id (ws_…)')
    .requiredOption('--name <text>', "the agency's name")
    .requiredOption('--color <hex>', 'accent colour, #rrggbb')
    .option('--logo <file>', 'PNG or JPEG file, at most 40 KiB')
    .option('--footer <text>', 'footer text on every page')
    .option('--contact <text>', 'contact line on the cover')
    .option('--mode <mode>', 'test or live (default: both)', modeOption)
    .option('--json', 'print one JSON object')
    .action((opts: BrandingSetOptions) => run(opts.json, (db) => setBranding(db, opts)));
  branding
    .command('show')
    .description("Show a workspace's branding")
    .requiredOption('--workspace <id>', 'workspace id (ws_…)')
    .option('--json', 'print one JSON object')
    .action((opts: { workspace: string; json?: boolean }) =>
      run(opts.json, async (db) => {
        await workspaceTier(db, opts.workspace);
        const shown: Record<string, ReturnType<typeof presentBranding>> = {};
        for (const mode of MODES)
          shown[mode] = presentBranding(await loadBranding(db, { workspaceId: opts.workspace, mode }));
        const text = MODES.map((mode) => `${mode}: ${shown[mode]!.display_name ?? '(neutral, no branding)'}`).join(
          '\n',
        );
        return { json: { workspace_id: opts.workspace, ...shown }, text };
      }),
    );
  branding
    .command('clear')
    .description('Back to the neutral, unbranded report (both modes unless --mode)')
    .requiredOption('--workspace <id>', 'workspace id (ws_…)')
    .option('--mode <mode>', 'test or live (default: both)', modeOption)
    .option('--json', 'print one JSON object')
    .action((opts: { workspace: string; mode?: Mode; json?: boolean }) =>
      run(opts.json, async (db) => {
        await workspaceTier(db, opts.workspace);
        for (const mode of brandingModes(opts.mode))
          await saveBranding(db, { workspaceId: opts.workspace, mode }, null, systemClock.now());
        return {
          json: { workspace_id: opts.workspace, cleared: brandingModes(opts.mode) },
          text: `Branding of ${opts.workspace} cleared.`,
        };
      }),
    );
}

const brandingModes = (mode: Mode | undefined): Mode[] => (mode ? [mode] : [...MODES]);

interface BrandingSetOptions {
  workspace: string;
  name: string;
  color: string;
  logo?: string;
  footer?: string;
  contact?: string;
  mode?: Mode;
  json?: boolean;
}

/** `branding set`: validates the whole branding (logo included) before saving it for each mode. */
async function setBranding(db: Db, opts: BrandingSetOptions): Promise<{ json: object; text: string }> {
  await requireBrandingTier(db, opts.workspace);
  const logo = opts.logo ? await readFile(opts.logo) : undefined;
  const value = validateBranding({
    displayName: opts.name,
    primaryColor: opts.color,
    footerText: opts.footer,
    contactLine: opts.contact,
    logo,
  });
  if (value.logo) await checkLogoEmbeds(value.logo);
  const saved: Record<string, unknown> = {};
  for (const mode of brandingModes(opts.mode)) {
    saved[mode] = presentBranding(
      await saveBranding(db, { workspaceId: opts.workspace, mode }, value, systemClock.now()),
    );
  }
  return {
    json: { workspace_id: opts.workspace, ...saved },
    text: `Branding of ${opts.workspace} (${brandingModes(opts.mode).join(', ')}) set to "${value.displayName}".`,
  };
}

async function requireBrandingTier(db: Db, workspaceId: string): Promise<void> {
  const tier = await workspaceTier(db, workspaceId);
  if (!tierAtLeast(tier, FEATURE_MIN_TIER.branding)) {
    throw new TierRequiredError(
      `report branding requires the ${FEATURE_MIN_TIER.branding} tier or higher; this account is on ${tier}`,
    );
  }
}
