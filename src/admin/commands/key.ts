import type { Command } from 'commander';
import { systemClock } from '../../clock';
import { createKey, listKeys, revokeKey, setKeyAllowlist } from '../../accounts/key-service';
import type { Mode } from '../../schemas/audit';
import { modeOption } from '../options';
import { run } from '../run';

/** `key create|revoke|list|allow-ips`: API keys of a workspace. */
export function registerKeyCommands(program: Command): void {
  const key = program.command('key').description('API keys of a workspace');
  key
    .command('create')
    .description('Create an API key; the secret is shown once')
    .requiredOption('--workspace <id>', 'workspace id (ws_…)')
    .requiredOption('--mode <mode>', 'test or live', modeOption)
    .option('--json', 'print one JSON object')
    .action((opts: { workspace: string; mode: Mode; json?: boolean }) =>
      run(opts.json, async (db) => {
        const created = await createKey({ db, clock: systemClock }, { workspaceId: opts.workspace, mode: opts.mode });
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
        const revoked = await revokeKey({ db, clock: systemClock }, opts.key);
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
        const keys = await listKeys({ db }, opts.workspace);
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
        const result = await setKeyAllowlist({ db, clock: systemClock }, opts.key, opts.cidrs.split(','));
        return {
          json: result,
          text: result.allowed_cidrs
            ? `Key ${result.key_id} now accepts requests only from ${result.allowed_cidrs.join(', ')}.`
            : `Key ${result.key_id} accepts requests from any address.`,
        };
      }),
    );
}
