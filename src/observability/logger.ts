import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * Field names whose values never reach a log line, at the top level and one level down (e.g. an
 * error's `headers.authorization`): keys, secrets, passwords, tokens, cookies and sessions.
 */
const SECRET_FIELDS = [
  'key',
  'apiKey',
  'api_key',
  'secret',
  'password',
  'token',
  'sessionToken',
  'session_token',
  'session',
  'authorization',
  'Authorization',
  'cookie',
  'Cookie',
  'set-cookie',
];

const REDACTED_PATHS = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((field) => `*.${field}`),
  ...SECRET_FIELDS.map((field) => `*.headers.${field}`),
];

/**
 * A JSON-lines logger (pino), info and up unless told; pretty-printed when stdout is a terminal and the
 * development package pino-pretty is installed (a production install omits it). `destination` is for
 * tests that read what was logged.
 */
export function createLogger(
  opts: { level?: string; name?: string; destination?: DestinationStream; pretty?: boolean } = {},
): Logger {
  const options = {
    level: opts.level ?? 'info',
    name: opts.name,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  if (opts.destination) return pino(options, opts.destination);
  if ((opts.pretty ?? process.stdout.isTTY) && prettyPrinterInstalled())
    return pino({ ...options, transport: { target: 'pino-pretty' } });
  return pino(options);
}

/** The process's logger; its entry point sets the level from LOG_LEVEL (config.logLevel). */
export const logger = createLogger();

function prettyPrinterInstalled(): boolean {
  try {
    require.resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}
