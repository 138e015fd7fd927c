import { Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '../config';
import { systemClock } from '../clock';
import { createDb, migrateLatest, type Db } from '../db/knex';
import { openDatabase } from '../db/open';
import {
  createAccount,
  createApiKey,
  listApiKeys,
  NotFoundError,
  revokeApiKey,
  setAccountTier,
  setKeyAllowlist,
  TierRequiredError,
} from '../accounts/repository';
import { accountUsage } from '../accounts/usage';
import { TIERS, MODES, type Mode, type Tier } from '../schemas/audit';
import { readFile } from 'node:fs/promises';
import { workspaceTier } from '../accounts/repository';
import { FEATURE_MIN_TIER, tierAtLeast } from '../accounts/tiers';
import { validateBranding } from '../reports/branding';
import { presentBranding } from '../presenters/branding';
import { loadBranding, saveBranding } from '../reports/branding-repository';
import { checkLogoEmbeds } from '../reports/pdf';
import { listSigningKeys, rotateSigningKey } from '../reports/signing-keys';

/** Operator CLI: `npm run --silent admin -- <command> [--json]` (see README). */

const program = new Command('admin').description('Administer accounts, workspaces and API keys').showHelpAfterError();

const tierOption = (value: string): Tier => {
  if (!(TIERS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`must be one of ${TIERS.join(', ')}`);
  return value as Tier;
};
const modeOption = (value: string): Mode => {
  if (!(MODES as readonly string[]).includes(value))
    throw new InvalidArgumentError(`must be one of ${MODES.join(', ')}`);
  return value as Mode;
};
const countOption = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};

const account = program.command('account').description('Accounts and their tiers');
account
  .command('create')
  .description('Create an account with its first workspace')
  .requiredOption('--tier <tier>', 'free, pro, team or enterprise', tierOption)
  .option('--quota <n>', 'monthly audit quota (enterprise only)', countOption)
  .option('--json', 'print one JSON object')
  .action((opts: { tier: Tier; quota?: number; json?: boolean }) =>
    run(opts.json, async (db) => {
      if (opts.quota !== undefined && opts.tier !== 'enterprise')
        throw new Error('--quota applies to enterprise accounts only');
      const created = await createAccount(db, {
        tier: opts.tier,
        customQuota: opts.quota ?? null,
        now: systemClock.now(),
      });
      return {
        json: created,
        text:
          `Created account ${created.account_id} (tier ${created.tier}) with workspace ${created.workspace_id}.\n` +
          `Next: npm run admin -- key create --workspace ${created.workspace_id} --mode test`,
      };
    }),
  );
account
  .command('set-tier')
  .description('Change the tier at once (an upgrade resets the period usage; a downgrade refunds nothing)')
  .requiredOption('--account <id>', 'account id (acct_…)')
  .requiredOption('--tier <tier>', 'free, pro, team or enterprise', tierOption)
  .option('--quota <n>', 'monthly audit quota (enterprise only)', countOption)
  .option('--json', 'print one JSON object')
  .action((opts: { account: string; tier: Tier; quota?: number; json?: boolean }) =>
    run(opts.json, async (db) => {
      if (opts.quota !== undefined && opts.tier !== 'enterprise')
        throw new Error('--quota applies to enterprise accounts only');
      const now = systemClock.now();
      const changed = await setAccountTier(db, {
        accountId: opts.account,
        tier: opts.tier,
        customQuota: opts.quota,
        now,
      });
      const usage = await accountUsage(db, opts.account, now);
      const json = {
        ...changed,
        audits_limit: usage.limit,
        audits_used: usage.used,
        audits_remaining: usage.remaining,
      };
      return {
        json,
        text: `Account ${changed.account_id}: ${changed.previous_tier} → ${changed.tier} (${changed.change}); ${usage.remaining} of ${usage.limit} audits left this period.`,
      };
    }),
  );
account
  .command('usage')
  .description("Show the account's quota position this period")
  .requiredOption('--account <id>', 'account id (acct_…)')
  .option('--json', 'print one JSON object')
  .action((opts: { account: string; json?: boolean }) =>
    run(opts.json, async (db) => {
      const usage = await accountUsage(db, opts.account, systemClock.now());
      const json = {
        account_id: opts.account,
        tier: usage.tier,
        period_start: usage.period.start.toISOString(),
        period_end: usage.period.end.toISOString(),
        audits_limit: usage.limit,
        audits_used: usage.used,
        audits_remaining: usage.remaining,
      };
      return {
        json,
        text: `Account ${opts.account} (${usage.tier}): ${usage.used} used, ${usage.remaining} of ${usage.limit} left until ${json.period_end}.`,
      };
    }),
  );

const key = program.command('key').description('API keys of a workspace');
key
  .command('create')
  .description('Create an API key; the secret is shown once')
  .requiredOption('--workspace <id>', 'workspace id (ws_…)')
  .requiredOption('--mode <mode>', 'test or live', modeOption)
  .option('--json', 'print one JSON object')
  .action((opts: { workspace: string; mode: Mode; json?: boolean }) =>
    run(opts.json, async (db) => {
      const created = await createApiKey(db, { workspaceId: opts.workspace, mode: opts.mode, now: systemClock.now() });
      return {
        json: {
          key_id: created.key_id,
          key: created.key,
          prefix: created.prefix,
          mode: created.mode,
          workspace_id: created.workspace_id,
        },
        text: `Created ${created.mode} key ${created.key_id} for ${created.workspace_id}.\n\n  ${created.key}\n\nStore it now: it cannot be shown again.`,
      };
    }),
  );
key
  .command('revoke')
  .description('Revoke a key (effective on every API instance within 30 s)')
  .requiredOption('--key <id>', 'key id (key_…)')
  .option('--json', 'print one JSON object')
  .action((opts: { key: string; json?: boolean }) =>
    run(opts.json, async (db) => {
      const revoked = await revokeApiKey(db, opts.key, systemClock.now());
      return { json: revoked, text: `Revoked ${revoked.key_id} at ${revoked.revoked_at}.` };
    }),
  );
key
  .command('list')
  .description('List the keys of a workspace (never the secrets)')
  .requiredOption('--workspace <id>', 'workspace id (ws_…)')
  .option('--json', 'print one JSON object')
  .action((opts: { workspace: string; json?: boolean }) =>
    run(opts.json, async (db) => {
      const keys = await listApiKeys(db, opts.workspace);
      const text = keys.length
        ? keys
            .map(
              (k) =>
                `${k.key_id}  ${k.prefix}…  ${k.mode.padEnd(4)}  created ${k.created_at}  last used ${k.last_used_at ?? 'never'}${k.revoked_at ? `  REVOKED ${k.revoked_at}` : ''}`,
            )
            .join('\n')
        : `No keys in ${opts.workspace}.`;
      return { json: { data: keys }, text };
    }),
  );

key
  .command('allow-ips')
  .description("Restrict a key to these source addresses (team tier and up); --cidrs '' clears it")
  .requiredOption('--key <id>', 'key id (key_…)')
  .requiredOption('--cidrs <list>', 'comma-separated IPs or CIDR ranges, e.g. 203.0.113.0/24,2001:db8::/32')
  .option('--json', 'print one JSON object')
  .action((opts: { key: string; cidrs: string; json?: boolean }) =>
    run(opts.json, async (db) => {
      const cidrs = opts.cidrs
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean);
      const result = await setKeyAllowlist(db, { keyId: opts.key, cidrs });
      return {
        json: result,
        text: result.allowed_cidrs
          ? `Key ${result.key_id} now accepts requests only from ${result.allowed_cidrs.join(', ')}.`
          : `Key ${result.key_id} accepts requests from any address.`,
      };
    }),
  );

const branding = program.command('branding').description('White-label branding of PDF reports (pro tier and up)');
const brandingModes = (mode: Mode | undefined): Mode[] => (mode ? [mode] : [...MODES]);
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
  .action(
    (opts: {
      workspace: string;
      name: string;
      color: string;
      logo?: string;
      footer?: string;
      contact?: string;
      mode?: Mode;
      json?: boolean;
    }) =>
      run(opts.json, async (db) => {
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
      }),
  );
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
      const text = MODES.map((mode) => `${mode}: ${shown[mode]!.display_name ?? '(neutral, no branding)'}`).join('\n');
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

async function requireBrandingTier(db: Db, workspaceId: string): Promise<void> {
  const tier = await workspaceTier(db, workspaceId);
  if (!tierAtLeast(tier, FEATURE_MIN_TIER.branding)) {
    throw new TierRequiredError(
      `report branding requires the ${FEATURE_MIN_TIER.branding} tier or higher; this account is on ${tier}`,
    );
  }
}

const reportKey = program.command('report-key').description('Keys that sign the 60-minute report links');
reportKey
  .command('rotate')
  .description(
    'Sign new links with a new key; links signed before keep working until they expire (unless --revoke-previous)',
  )
  .option('--revoke-previous', 'delete the previous keys too: links they signed stop working at once (a leaked key)')
  .option('--json', 'print one JSON object')
  .action((opts: { revokePrevious?: boolean; json?: boolean }) =>
    run(opts.json, async (db) => {
      const rotated = await rotateSigningKey(db, systemClock.now(), { revokePrevious: opts.revokePrevious });
      const text =
        `Report links are now signed with ${rotated.key_id}.` +
        (rotated.revoked.length
          ? ` Revoked: ${rotated.revoked.join(', ')}.`
          : rotated.retired.length
            ? ` Retired (still verifying until their links expire): ${rotated.retired.join(', ')}.`
            : '');
      return { json: rotated, text };
    }),
  );
reportKey
  .command('list')
  .description('Signing keys: the newest unretired one signs, all verify')
  .option('--json', 'print one JSON object')
  .action((opts: { json?: boolean }) =>
    run(opts.json, async (db) => {
      const keys = await listSigningKeys(db);
      const text = keys.length
        ? keys
            .map(
              (k) =>
                `${k.key_id}  created ${k.created_at}${k.retired_at ? `  retired ${k.retired_at}` : '  (signing)'}`,
            )
            .join('\n')
        : 'No signing key yet (one is made when the first link is signed).';
      return { json: { data: keys }, text };
    }),
  );

async function run(
  json: boolean | undefined,
  action: (db: Db) => Promise<{ json: object; text: string }>,
): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase(config, { startEmbedded: true });
  const db = createDb(database.url, { max: 2 });
  try {
    await migrateLatest(db);
    const result = await action(db);
    process.stdout.write(json ? `${JSON.stringify(result.json)}\n` : `${result.text}\n`);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const code =
      err instanceof NotFoundError
        ? 'not_found'
        : err instanceof TierRequiredError
          ? 'tier_required'
          : 'invalid_request';
    if (json) process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
    else process.stderr.write(`error: ${message}\n`);
    process.exitCode = 1;
  } finally {
    await db.destroy();
    await database.close();
  }
}

// Exit explicitly: the tsx wrapper does not pass a bare process.exitCode on.
program.parseAsync(process.argv).then(
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    process.stderr.write(`error: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
