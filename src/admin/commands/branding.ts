import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { systemClock } from '../../clock';
import type { Db } from '../../db/knex';
import { workspaceTier } from '../../accounts/repository';
import { presentBranding } from '../../presenters/branding';
import { clearBranding, setBranding, showBranding, type BrandingActor } from '../../reports/branding-service';
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
    .action((opts: BrandingSetOptions) => run(opts.json, (db) => setBrandingCommand(db, opts)));
  branding
    .command('show')
    .description("Show a workspace's branding")
    .requiredOption('--workspace <id>', 'workspace id (ws_…)')
    .option('--json', 'print one JSON object')
    .action((opts: { workspace: string; json?: boolean }) =>
      run(opts.json, async (db) => {
        const shown: Record<string, ReturnType<typeof presentBranding>> = {};
        for (const actor of await actors(db, opts.workspace, undefined))
          shown[actor.scope.mode] = presentBranding(await showBranding({ db }, actor));
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
        for (const actor of await actors(db, opts.workspace, opts.mode))
          await clearBranding({ db, clock: systemClock }, actor);
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

/**
 * `branding set`: the service's rules (tier gate, every field, the logo test-embedded) for each mode;
 * the same input passes or fails in both, so the first mode's answer decides.
 */
async function setBrandingCommand(db: Db, opts: BrandingSetOptions): Promise<{ json: object; text: string }> {
  const logo = opts.logo ? await readFile(opts.logo) : undefined;
  const saved: Record<string, ReturnType<typeof presentBranding>> = {};
  for (const actor of await actors(db, opts.workspace, opts.mode)) {
    const input = {
      displayName: opts.name,
      primaryColor: opts.color,
      footerText: opts.footer,
      contactLine: opts.contact,
      logo,
    };
    saved[actor.scope.mode] = presentBranding(await setBranding({ db, clock: systemClock }, actor, input));
  }
  const name = Object.values(saved)[0]?.display_name;
  return {
    json: { workspace_id: opts.workspace, ...saved },
    text: `Branding of ${opts.workspace} (${brandingModes(opts.mode).join(', ')}) set to "${name}".`,
  };
}

/** The operator acts for the workspace's account, under its tier, in each mode asked for (NotFoundError: no such workspace). */
async function actors(db: Db, workspaceId: string, mode: Mode | undefined): Promise<BrandingActor[]> {
  const account = { tier: await workspaceTier(db, workspaceId) };
  return brandingModes(mode).map((m) => ({ scope: { workspaceId, mode: m }, account }));
}
