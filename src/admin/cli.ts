import { Command } from 'commander';
import { registerAccountCommands } from './commands/account';
import { registerBrandingCommands } from './commands/branding';
import { registerChannelCommands } from './commands/channel';
import { registerKeyCommands } from './commands/key';
import { registerReportKeyCommands } from './commands/report-key';
import { registerUserCommands } from './commands/user';

/** Operator CLI: `npm run --silent admin -- <command> [--json]` (see README). */

const program = new Command('admin').description('Administer accounts, workspaces and API keys').showHelpAfterError();
registerAccountCommands(program);
registerKeyCommands(program);
registerBrandingCommands(program);
registerChannelCommands(program);
registerReportKeyCommands(program);
registerUserCommands(program);

// Exit explicitly: the tsx wrapper does not pass a bare process.exitCode on.
program.parseAsync(process.argv).then(
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    process.stderr.write(`error: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
