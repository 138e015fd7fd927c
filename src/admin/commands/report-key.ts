import type { Command } from 'commander';
import { systemClock } from '../../clock';
import { listSigningKeys, rotateSigningKey } from '../../reports/signing-keys';
import { run } from '../run';

/** `report-key rotate|list`: keys that sign the report links. */
export function registerReportKeyCommands(program: Command): void {
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
}
