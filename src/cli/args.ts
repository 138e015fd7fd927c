import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { FORMATS, SEVERITIES, TIERS, type Format, type Severity, type Tier } from './types';
import type { Schemas } from '../client';

type Render = NonNullable<Schemas['TriggerAuditRequest']['render']>;
/** The values of `render`, as the API's schema has them (a value it does not know is a usage error, exit 2). */
const RENDERS = ['sample', 'all'] as const satisfies readonly Render[];

/** `audit <domain>` as the user asked for it (docs/decisions.md, "Customer CLI"). */
export interface AuditCommand {
  /** An absolute http(s) URL; a bare host is taken as https://host. */
  domain: string;
  tier?: Tier;
  /** `render` of POST /audits: `all` renders every crawled page (team and up); the API's default when absent. */
  render?: Render;
  /** Wait for completion: asked with --wait, or implied by a gate or a format that needs the result. */
  wait: boolean;
  failUnder?: number;
  failOnNew?: Severity;
  format: Format;
  output?: string;
  timeoutMs: number;
}

/** The help was printed: nothing else to do (exit 0). */
export const SHOWN = 'shown';
/** Commander printed a usage error on stderr (exit 2). */
export const USAGE_ERROR = 'usage_error';

export interface ArgsOutput {
  writeOut(text: string): void;
  writeErr(text: string): void;
}

/** Formats that describe the completed audit, so they wait for it. */
const RESULT_FORMATS: ReadonlySet<Format> = new Set(['sarif', 'junit', 'csv']);
const DEFAULT_TIMEOUT_SECONDS = 1800;

function wholeNumber(min: number, max: number) {
  return (value: string): number => {
    if (!/^[0-9]+$/.test(value) || Number(value) < min || Number(value) > max)
      throw new InvalidArgumentError(`Expected a whole number from ${min} to ${max}.`);
    return Number(value);
  };
}

function program(output: ArgsOutput, onAudit: (command: AuditCommand) => void): Command {
  const root = new Command('domain-audit')
    .description('Audit a website with the Domain Audit API and gate CI on the result.')
    .configureOutput({ writeOut: output.writeOut, writeErr: output.writeErr })
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  root
    .command('audit')
    .description('Trigger an audit of <domain>; with --wait, wait for it and report it.')
    .argument('<domain>', 'the site, e.g. https://example.com (https:// is assumed for a bare host)')
    .addOption(new Option('--tier <tier>', "audit depth (default: the account's tier)").choices(TIERS))
    .addOption(
      new Option('--render <pages>', 'pages rendered in the browser: sample (default) or all (team and up)').choices(
        RENDERS,
      ),
    )
    .option('--wait', 'wait for the audit to complete (implied by --fail-under, --fail-on-new and sarif, junit, csv)')
    .option('--fail-under <score>', 'exit 1 when the score is under this (0-100)', wholeNumber(0, 100))
    .addOption(
      new Option(
        '--fail-on-new <severity>',
        "exit 1 when a finding at or above this severity is new since the domain's previous audit",
      ).choices(SEVERITIES),
    )
    .addOption(new Option('--format <format>', 'output format').choices(FORMATS).default('text'))
    .option('-o, --output <file>', 'write the output to this file instead of stdout')
    .option(
      '--timeout <seconds>',
      `give up waiting after this many seconds (default ${DEFAULT_TIMEOUT_SECONDS})`,
      wholeNumber(1, 86_400),
    )
    .action((domain: string, options: Record<string, unknown>) => onAudit(toCommand(domain, options)));
  return root;
}

function toCommand(domain: string, options: Record<string, unknown>): AuditCommand {
  const format = options.format as Format;
  const failUnder = options.failUnder as number | undefined;
  const failOnNew = options.failOnNew as Severity | undefined;
  return {
    domain: /^[a-z][a-z0-9+.-]*:\/\//i.test(domain) ? domain : `https://${domain}`,
    tier: options.tier as Tier | undefined,
    render: options.render as Render | undefined,
    wait: Boolean(options.wait) || failUnder !== undefined || failOnNew !== undefined || RESULT_FORMATS.has(format),
    failUnder,
    failOnNew,
    format,
    output: options.output as string | undefined,
    timeoutMs: ((options.timeout as number | undefined) ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
  };
}

/**
 * The command line (without node and the script), parsed by commander. Errors are printed by
 * commander on `output.writeErr`; the caller exits 2 for them (commander's own code is 1, which the
 * CLI keeps for a failed gate).
 */
export function parseArgs(
  argv: readonly string[],
  output: ArgsOutput,
): AuditCommand | typeof SHOWN | typeof USAGE_ERROR {
  let parsed: AuditCommand | undefined;
  const root = program(output, (command) => (parsed = command));
  try {
    root.parse([...argv], { from: 'user' });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    return err.exitCode === 0 ? SHOWN : USAGE_ERROR;
  }
  if (parsed) return parsed;
  // No command given: the help, as an error.
  output.writeErr(root.helpInformation());
  return USAGE_ERROR;
}
