import type { Command } from 'commander';
import { systemClock } from '../../clock';
import { createAccount, setAccountTier } from '../../accounts/repository';
import { accountUsage } from '../../accounts/usage';
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
}
