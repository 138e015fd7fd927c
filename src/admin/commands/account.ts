import type { Command } from 'commander';
import { systemClock } from '../../clock';
import { createAccount, setAccountTier } from '../../accounts/repository';
import { accountUsage } from '../../accounts/usage';
import { applySiteLimit } from '../../sites/tier-limits';
import type { Db } from '../../db/knex';
import type { Tier } from '../../schemas/audit';
import { countOption, tierOption } from '../options';
import { run } from '../run';

/** `account create|set-tier|usage`: accounts and their tiers. */
export function registerAccountCommands(program: Command): void {
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
        const { sites, usage } = await afterTierChange(db, opts.account, opts.tier, now);
        return {
          json: {
            ...changed,
            audits_limit: usage.limit,
            audits_used: usage.used,
            audits_remaining: usage.remaining,
            ...sites.json,
          },
          text: `Account ${changed.account_id}: ${changed.previous_tier} → ${changed.tier} (${changed.change}); ${usage.remaining} of ${usage.limit} audits left this period.${sites.text}`,
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
}

/** After a tier change: sites over the new limit pause, and resume on an upgrade (README "Monitoring"); the usage now. */
async function afterTierChange(db: Db, accountId: string, tier: Tier, now: Date) {
  const { paused, resumed } = await db.transaction((trx) => applySiteLimit(trx, { accountId, tier, now }));
  const changed = paused.length || resumed.length;
  const sites = {
    json: { sites_paused: paused, sites_resumed: resumed },
    text: changed ? ` Sites paused over the limit: ${paused.length}; resumed: ${resumed.length}.` : '',
  };
  return { sites, usage: await accountUsage(db, accountId, now) };
}
